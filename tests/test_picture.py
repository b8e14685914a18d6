"""The board picture (``seasons_env.picture``) and the text board: what each observer may see, determinism."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from random_play import random_positions

from seasons_env import Game
from seasons_env.engine.data import CARD_NAMES
from seasons_env.picture import board_view, picture_size, render_rgb
from seasons_env.rendering import render_text


def _position(num_players: int, level: str, seed: int, decisions: int) -> Game:
    game = Game.new(num_players, level, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(decisions):
        if game.is_over:
            break
        legal = game.legal_action_list()
        game.apply(legal[int(rng.integers(len(legal)))])
    return game


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_picture_is_an_rgb_array_of_the_documented_size(num_players: int) -> None:
    game = _position(num_players, "archmage", 1, 120)
    frame = render_rgb(game)
    width, height = picture_size(num_players)
    assert frame.shape == (height, width, 3) and frame.dtype == np.uint8
    assert width % 16 == 0 and height % 16 == 0  # video encoders take it as it is
    colours = frame[::2, ::2].astype(np.int64) @ np.array([1 << 16, 1 << 8, 1])
    assert len(np.unique(colours)) > 20  # a drawing, not a blank


def _digest(frame: np.ndarray) -> str:
    return hashlib.sha256(frame.tobytes()).hexdigest()


def test_same_position_same_pixels_in_another_process_and_after_a_round_trip() -> None:
    game = _position(3, "magician", 4, 150)
    first = render_rgb(game, seat=1)
    assert _digest(render_rgb(game, seat=1)) == _digest(first)
    assert _digest(render_rgb(Game.from_dict(game.to_dict()), seat=1)) == _digest(first)
    code = textwrap.dedent(
        """
        import hashlib, numpy as np
        from seasons_env import Game
        from seasons_env.picture import render_rgb
        game = Game.new(3, "magician", seed=4)
        rng = np.random.default_rng(4)
        for _ in range(150):
            legal = game.legal_action_list()
            game.apply(legal[int(rng.integers(len(legal)))])
        print(hashlib.sha256(render_rgb(game, seat=1).tobytes()).hexdigest())
        """
    )
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert other == _digest(first)


@pytest.mark.parametrize("level", ["apprentice", "magician", "archmage"])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_a_seat_sees_the_same_board_in_every_world_it_cannot_tell_apart(num_players: int, level: str) -> None:
    """Paired states: redraw everything ``seat`` cannot see; its text board, board view and picture stay."""
    rng = np.random.default_rng(num_players * 10 + len(level))
    compared = pictures = 0
    for seed in range(2):
        for k, game in enumerate(random_positions(num_players, level, seed, every=5)):
            for seat in range(num_players):
                other = game.determinize(seat, rng)
                assert render_text(other, viewer=seat) == render_text(game, viewer=seat)
                assert board_view(other, seat) == board_view(game, seat)
                compared += 1
                if k % 12 == 0 and seat == k // 12 % num_players:
                    assert np.array_equal(render_rgb(other, seat), render_rgb(game, seat))
                    pictures += 1
    assert compared >= 80 and pictures >= 4


def test_text_board_names_no_options_of_another_seat() -> None:
    """Issue 15 item 3: seat 0's draft pack appeared in seat 1's text board."""
    game = Game.new(2, "magician", seed=0)
    text = render_text(game, viewer=1)
    assert text.splitlines()[-1] == "Player 0 decides: draft_pick"
    own = render_text(game, viewer=0).splitlines()[-1]
    assert own.startswith("Player 0 decides: draft_pick: choose card: ")
    god = render_text(game)
    assert "god view" in god.splitlines()[0] and god.splitlines()[-1] == own


def test_seat_view_names_own_cards_and_counts_the_others() -> None:
    game = _position(2, "magician", 3, 0)  # the draft: both packs hold 9 cards
    view = board_view(game, seat=1)
    assert view["seat"] == 1 and view["options"] is None  # seat 0 decides
    assert view["players"][1]["pack"] == [CARD_NAMES[c] for c in game.draft_pack[1]]
    assert view["players"][0]["pack"] is None and view["players"][0]["pack_size"] == 9
    god = board_view(game)
    assert god["seat"] is None and god["players"][0]["pack"] == [CARD_NAMES[c] for c in game.draft_pack[0]]
    assert len(god["options"]) == len(game.legal_action_list())
    assert not np.array_equal(render_rgb(game), render_rgb(game, seat=1))  # the god view is drawn differently


def test_the_picture_shows_public_facts() -> None:
    """Changing a public fact changes the picture (the picture is not a constant)."""
    game = _position(2, "archmage", 2, 120)
    assert not game.is_over  # a finished game's scores follow from its facts: they are not changed alone
    state = game.to_dict()
    base = render_rgb(game, seat=0)
    for change in ("crystals", "reserve", "summoning_gauge", "bonuses_used"):
        other = game.to_dict()
        player = other["players"][1]
        if change == "reserve":
            player["reserve"]["fire"] = (player["reserve"]["fire"] + 1) % 3
        elif change == "bonuses_used":
            player["bonuses_used"] = (player["bonuses_used"] + 1) % 4
        elif change == "summoning_gauge":
            player["summoning_gauge"] = (player["summoning_gauge"] + 1) % 16
        else:
            player[change] = player[change] + 1
        assert not np.array_equal(render_rgb(Game.from_dict(other), seat=0), base), change
    assert state == game.to_dict()


def test_tapped_cards_and_stored_tokens_are_shown() -> None:
    state = {
        "num_players": 2,
        "level": "magician",
        "players": [
            {"in_play": [{"card": 4, "tokens": {"water": 2}}, {"card": 2, "tapped": True}], "summoning_gauge": 2},
            {},
        ],
        "pending": [{"step": "turn", "player": 0}, {"step": "move_marker", "player": 0}],
        "turn_player": 0,
    }
    game = Game.from_dict(state)
    cards = board_view(game)["players"][0]["in_play"]
    assert cards[0]["stored"] == [2, 0, 0, 0] and not cards[0]["tapped"]
    assert cards[1]["tapped"] and cards[1]["stored"] is None
    picture = render_rgb(game)
    state["players"][0]["in_play"][0]["tokens"] = {"water": 3}
    assert not np.array_equal(render_rgb(Game.from_dict(state)), picture)
    state["players"][0]["in_play"][1]["tapped"] = False
    assert not np.array_equal(render_rgb(Game.from_dict(state)), picture)


@pytest.mark.parametrize("seat", [2, -1, True, "0", 0.0])
def test_a_bad_seat_is_refused_by_name(seat: object) -> None:
    game = Game.new(2, "magician", seed=0)
    with pytest.raises(ValueError, match="seat"):
        render_rgb(game, seat=seat)
    with pytest.raises(ValueError, match="viewer"):
        render_text(game, viewer=seat)
