"""Render modes of both environments: rgb_array pictures, RecordVideo, SB3's make_vec_env, human without a display."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import seasons_env
from seasons_env.picture import picture_size, render_rgb
from seasons_env.rendering import render_text


def test_gym_rgb_array_is_the_learning_seats_picture() -> None:
    env = gymnasium.make(seasons_env.GYM_ENV_ID, num_players=3, level="magician", agent_seat=1, render_mode="rgb_array")
    env.reset(seed=5)
    frame = env.render()
    width, height = picture_size(3)
    assert frame.shape == (height, width, 3) and frame.dtype == np.uint8
    assert np.array_equal(frame, render_rgb(env.unwrapped.game, seat=1))
    env.close()


def test_record_video_of_a_seeded_game(tmp_path) -> None:
    imageio = pytest.importorskip("imageio", reason="imageio comes with moviepy, in the test extra")
    from gymnasium.wrappers import RecordVideo

    env = gymnasium.make(seasons_env.GYM_ENV_ID, num_players=2, level="magician", render_mode="rgb_array")
    env = RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda episode: True, name_prefix="game")
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    steps, done = 0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, terminated, truncated, info = env.step(action)
        steps += 1
        done = terminated or truncated
    assert "scores" in info  # the whole game was played
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1
    reader = imageio.get_reader(videos[0])
    try:
        assert reader.count_frames() == steps + 1  # the reset position and one frame per step
        assert reader.get_meta_data()["size"] == picture_size(2)
    finally:
        reader.close()


def test_sb3_make_vec_env_trains_maskable_ppo_on_the_env_id() -> None:
    """Issue 9 item 13: SB3 passes render_mode="rgb_array" to every environment it makes."""
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    venv = make_vec_env(seasons_env.GYM_ENV_ID, n_envs=2, seed=0, env_kwargs={"num_players": 2, "level": "apprentice"})
    assert venv.render_mode == "rgb_array"
    small = {"n_steps": 128, "batch_size": 64, "n_epochs": 1, "policy_kwargs": {"net_arch": [32]}}
    model = MaskablePPO("MlpPolicy", venv, seed=0, device="cpu", **small)
    model.learn(300)
    assert model.num_timesteps >= 300
    tiles = venv.render()
    width, height = picture_size(2)
    assert tiles.dtype == np.uint8 and tiles.shape[1:] == (width, 3) and tiles.shape[0] >= height
    venv.close()


def test_pettingzoo_rgb_array_god_view_and_render_seat() -> None:
    god = seasons_env.env(num_players=2, level="magician", render_mode="rgb_array")
    god.reset(seed=0)
    game = god.unwrapped.game
    assert np.array_equal(god.render(), render_rgb(game))
    seat = seasons_env.env(num_players=2, level="magician", render_mode="rgb_array", render_seat=1)
    seat.reset(seed=0)
    assert np.array_equal(seat.render(), render_rgb(game, seat=1))
    text = seasons_env.env(num_players=2, level="magician", render_mode="ansi", render_seat=1)
    text.reset(seed=0)
    assert text.render() == render_text(game, viewer=1)
    assert "god view" not in text.render() and "god view" in render_text(game)


@pytest.mark.parametrize("make", ["gym", "pettingzoo"])
def test_human_mode_without_a_display_prints_the_text_board(make: str, monkeypatch, capsys) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    if make == "gym":
        env = gymnasium.make(seasons_env.GYM_ENV_ID, num_players=2, level="magician", render_mode="human")
        env.reset(seed=1)
        capsys.readouterr()
        assert env.render() is None
        expected = render_text(env.unwrapped.game, viewer=0)
    else:
        env = seasons_env.env(num_players=2, level="magician", render_mode="human")
        env.reset(seed=1)
        capsys.readouterr()
        assert env.render() is None
        expected = render_text(env.unwrapped.game)
    assert capsys.readouterr().out == expected + "\n"
    env.close()


def test_picture_window_shows_the_frame() -> None:
    """The human mode's window (here on matplotlib's non-interactive Agg canvas: no display in the tests)."""
    import matplotlib.pyplot as plt

    from seasons_env.picture import PictureWindow

    game = seasons_env.Game.new(2, "magician", seed=0)
    window = PictureWindow("test window")
    frame = render_rgb(game)
    window.show(frame)
    shown = window._image.get_array()
    assert np.array_equal(np.asarray(shown), frame)
    window.show(render_rgb(game, seat=0))  # the next frame replaces the image in the same window
    assert np.array_equal(np.asarray(window._image.get_array()), render_rgb(game, seat=0))
    assert plt.fignum_exists("test window")
    window.close()
    assert not plt.fignum_exists("test window")


def test_a_window_needs_a_display_and_an_interactive_backend(monkeypatch) -> None:
    import matplotlib

    from seasons_env.picture import display_available

    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setattr(matplotlib, "get_backend", lambda: "TkAgg")
    assert not display_available()  # no display
    monkeypatch.setenv("DISPLAY", ":0")
    assert display_available()
    monkeypatch.setattr(matplotlib, "get_backend", lambda: "agg")
    assert not display_available()  # a display, but a backend that draws only to files
