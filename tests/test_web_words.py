"""What the page of ``seasons play --web`` is told in words (``agents/web_words.py``): the cards' printed facts, the
energy moves said as gained, discarded or returned, the cards the log names only where the seat may know them, the
score's parts that add up to the score, and no internal decision name in anything shown."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from web_play import state, web_server

from seasons_agents.web_game import seat_state
from seasons_agents.web_words import move_card, move_label, score_parts
from seasons_env import Game
from seasons_env.engine import steps
from seasons_env.engine.actions import decode
from seasons_env.engine.data import CARD_BY_NAME, CARDS, ENERGIES
from seasons_env.rendering import card_choice_is_public
from seasons_env.replay import Replay, make_record, parse_record

NAMES = ["human", "random", "random"]
#: A decision's internal name (``die_of_malice_window``, ``draft_pick``): those joined by "_" (the others, such as
#: "turn" or "overflow", are ordinary words).
INTERNAL = re.compile(r"\b(" + "|".join(sorted((n for n in steps.STEP_BY_NAME if "_" in n), key=len)[::-1]) + r")\b")


def _random_game(num_players: int, level: str, seed: int):
    """Yield ``(game, action)`` for every decision of a random game, then ``(final position, None)``."""
    game = Game.new(num_players, level, seed=seed)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        action = int(rng.choice(game.legal_action_list()))
        yield game, action
        game.apply(action)
    yield game, None


def test_the_cards_text_is_the_card_data_for_every_card_shown() -> None:
    game = Game.new(2, "archmage", seed=5)
    now = seat_state(game, 0, NAMES[:2], [])
    assert set(now["cards"]) == set(now["view"]["players"][0]["pack"])
    for name, facts in now["cards"].items():
        card = CARDS[CARD_BY_NAME[name]]
        assert facts["name"] == name and facts["effect"] == card.effect and facts["prestige"] == card.prestige
        assert facts["type"] == ("magic item" if card.is_item else "familiar")
        water, earth, fire, air, crystals = card.cost[2]
        for count, word in ((water, "water"), (earth, "earth"), (fire, "fire"), (air, "air"), (crystals, "crystals")):
            assert (f"{count} {word}" in facts["cost"]) == bool(count), (name, facts["cost"])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_energy_moves_say_gained_discarded_or_returned_and_the_score_parts_add_up(seed: int) -> None:
    said: dict[str, str] = {}
    for game, action in _random_game(3, "archmage", seed):
        for p in range(game.num_players):
            parts = score_parts(game, p)
            total = parts["crystals"] + parts["prestige"] - parts["bonus_penalty"] - parts["hand_penalty"]
            assert total == parts["score"] == game.scores()[p]
        if action is None:
            continue
        group, k = decode(action)
        if group == "CHOOSE_ENERGY":
            label = move_label(game, game.current_player, action, own=True)
            assert ENERGIES[k] in label
            said[game.pending_decision] = label
    verbs = {"gain_energy": "gain ", "overflow": "discard ", "exchange_discard": "return "}
    for decision, label in said.items():
        assert INTERNAL.search(label) is None, label
        if decision in verbs:
            assert label.startswith(verbs[decision]), label
    assert "gain_energy" in said


def test_the_log_names_a_card_only_where_the_seat_may_know_it() -> None:
    named = hidden = 0
    for seed in range(4):
        for game, action in _random_game(2, "archmage", seed):
            if action is None:
                continue
            actor = game.current_player
            card = move_card(game, actor, action, own=False)
            if decode(action)[0] == "CHOOSE_CARD" and not card_choice_is_public(game, action):
                assert card is None and "(a card you do not see)" in move_label(game, actor, action, own=False)
                assert move_card(game, actor, action, own=True) is not None  # the chooser knows it
                hidden += 1
            elif card is not None:
                named += 1
            if decode(action)[0] in ("KEEP_CARD", "DISCARD_CARD"):
                drawn = move_card(game, actor, action, own=True)
                assert drawn is not None and drawn in move_label(game, actor, action, own=True)
                assert move_card(game, actor, action, own=False) is None
    assert named > 50 and hidden > 20


def test_nothing_shown_names_a_decision_by_its_internal_name(tmp_path) -> None:
    with web_server(tmp_path, "random", 2, "archmage", seed=9, seat=1) as server:
        now = state(server)
        assert now["current_player"] == 1 or server.table.game.game.is_over
        shown = [now["prompt"], now["help"], *(o["label"] for o in now["legal"]), *(e["label"] for e in now["log"])]
        assert not any(INTERNAL.search(text) for text in shown), shown
    actions = [a for _g, a in _random_game(2, "archmage", 9) if a is not None]
    replay = Replay(parse_record(make_record(2, "archmage", 9, actions)))
    for k in range(len(replay)):
        assert INTERNAL.search(replay.move(k, seat=0)) is None, replay.move(k, seat=0)
    # Another player's decision reads in words.
    view = Game.new(2, "archmage", seed=9)
    view.apply(view.legal_action_list()[0])
    other = seat_state(view, 0, NAMES[:2], [])
    assert other["prompt"] == "Player 1 (random) decides: pick a card from the pack held"
    assert json.dumps(other["view"]["decision_words"]) == '"pick a card from the pack held"'


def test_the_card_a_decision_looks_at_is_told_to_its_decider_only() -> None:
    seen = 0
    for seed in range(6):
        for game, _action in _random_game(2, "magician", seed):
            if game.pending_decision != "keep_or_discard":
                continue
            seat = game.current_player
            drawn = CARDS[game.pending_task()[2]].name
            mine = seat_state(game, seat, NAMES[:2], [])
            assert mine["decision_cards"] == [drawn] and drawn in mine["cards"]
            assert [option["card"] for option in mine["legal"]] == [drawn, drawn]  # keep it, discard it
            assert all(drawn in option["label"] for option in mine["legal"])
            theirs = seat_state(game, 1 - seat, NAMES[:2], [])
            assert theirs["decision_cards"] == [] and theirs["legal"] == []
            seen += 1
    assert seen > 5
