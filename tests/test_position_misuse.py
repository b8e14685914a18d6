"""Positions read from files are untrusted input (issue 9, items 7, 8 and 23): names are never called, numbers
are bounded, and nothing a caller gets back can change the game."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from seasons_env import Game
from seasons_env.encoding import encode_observation


def _state() -> dict:
    return Game.new(2, "archmage", seed=5).to_dict()


def _legacy_state() -> dict:
    """A position whose ``rng`` is a numpy PCG64 state, as state format version 1 wrote it."""
    d = _state()
    state = np.random.default_rng(5).bit_generator.state
    d["version"] = 1
    d["rng"] = {
        "bit_generator": "PCG64",
        "state": str(state["state"]["state"]),
        "inc": str(state["state"]["inc"]),
        "has_uint32": 0,
        "uinteger": 0,
    }
    return d


def test_a_legacy_generator_goes_on_as_it_did() -> None:
    d = _legacy_state()
    game = Game.from_dict(d)
    assert Game.from_dict(game.to_dict()).to_dict() == game.to_dict()  # written back as it was read
    reference = np.random.default_rng(5)
    # the first chance of the game is the first round's dice, after the draft: play it out and compare
    rng = np.random.default_rng(0)
    while game.pending_decision != "choose_die":
        game.apply(int(rng.choice(game.legal_action_list())))
    faces = [face for _, face, _ in game.rolled]
    assert faces == [int(f) for f in reference.integers(6, size=len(faces))]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"stream": "mt"}, r"rng\.stream"),
        ({"key": "-3"}, r"rng\.key"),
        ({"key": str(2**64)}, r"rng\.key"),
        ({"key": 1.5}, r"rng\.key"),
        ({"counter": -1}, r"rng\.counter"),
        ({"counter": True}, r"rng\.counter"),
        ({"counter": 2**60}, r"rng\.counter"),
        ({"extra": 1}, r"unknown keys \['extra'\]"),
    ],
)
def test_bad_chance_streams_name_the_field(change: dict, field: str) -> None:
    d = _state()
    d["rng"].update(change)
    with pytest.raises(ValueError, match=field):
        Game.from_dict(d)


@pytest.mark.parametrize("name", ["test", "seed", "default_rng", "MT19937", "__class__", 7])
def test_rng_names_outside_the_table_are_refused_and_never_called(name: object, monkeypatch) -> None:
    called = []
    monkeypatch.setattr(np.random, "test", lambda *a, **k: called.append("test"), raising=False)
    monkeypatch.setattr(np.random, "seed", lambda *a, **k: called.append("seed"))
    d = _legacy_state()
    d["rng"]["bit_generator"] = name
    with pytest.raises(ValueError, match=r"rng\.bit_generator"):
        Game.from_dict(d)
    assert called == []


@pytest.mark.parametrize(
    ("key", "value"),
    [("state", -1), ("inc", 2**130), ("has_uint32", 5), ("uinteger", "x"), ("state", 1.5), ("state", None)],
)
def test_bad_rng_words_name_the_field(key: str, value: object) -> None:
    d = _legacy_state()
    d["rng"][key] = value
    with pytest.raises(ValueError, match=rf"rng\.{key}"):
        Game.from_dict(d)


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("reserve", {"water": 10**18}, r"players\[1\]\.reserve\.water"),
        ("reserve", {"water": 8, "earth": 8, "fire": 8}, r"players\[1\]\.reserve holds 24"),
        ("reserve", {"fire": 2.9}, r"players\[1\]\.reserve\.fire must be an int"),
        ("reserve", {"air": True}, r"players\[1\]\.reserve\.air must be an int"),
        ("crystals", 10**100, r"players\[1\]\.crystals"),
    ],
)
def test_numbers_beyond_what_the_game_allows_are_refused_at_once(field: str, value: object, path: str) -> None:
    d = _state()
    d["players"][1][field] = value
    with pytest.raises(ValueError, match=path):
        Game.from_dict(d)


def test_the_largest_accepted_position_stays_finite_in_the_observation() -> None:
    d = _state()
    d["players"][0]["crystals"] = 100_000
    game = Game.from_dict(d)
    assert np.isfinite(encode_observation(game, 0)).all() and np.isfinite(encode_observation(game, 1)).all()


def test_changing_the_legal_action_list_leaves_the_game_unchanged() -> None:
    game = Game.new(2, "magician", seed=1)
    before = copy.deepcopy(game.to_dict())
    legal = game.legal_action_list()
    legal.clear()
    legal.append(10_000)
    assert game.to_dict() == before
    assert game.legal_action_list() == sorted(game.legal_actions().tolist()) and game.legal_action_list()
    with pytest.raises(ValueError):
        game.apply(10_000)
