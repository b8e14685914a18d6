"""Exactly what a seat may know (issue 15).

Paired states: a position and the same position with every card a seat cannot see dealt differently (an
implementation of its own, through ``to_dict``, not ``Game.determinize``: the two are tested against each
other). Nothing the seat is shown may tell them apart: its observation, its mask, the board as text for it,
which decision is pending and who decides, and, after the same action of the seat, who is asked next, unless
the action showed the seat something that differs (a card it drew).
"""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np
import pytest

from seasons_env import Game
from seasons_env.encoding import LAYOUT, action_mask, encode_observation
from seasons_env.engine import serialization, steps
from seasons_env.engine.data import LEVEL_CARDS
from seasons_env.rendering import render_text
from seasons_env.simulate import random_play

#: Decision steps holding cards that only their decider has seen (drawn into limbo).
PRIVATE_CARD_STEPS = {"keep_or_discard", "keep_one", "divine_chalice", "naria_keep", "naria_give"}
#: What says where the game's flow stands: after the seat's action it may differ only if the seat was shown
#: something else that differs (the card it drew, in its hand or in the decision's context).
FLOW = {"pending", "current_player", "decision_kind", "decider", "turn_player"}


def redeal(game: Game, observer: int, rng: np.random.Generator) -> Game | None:
    """The redealt position (below), or None where it contradicts what everyone saw: the pending decision of
    another seat has no option left (a Necrotic Kriss activated, so its player holds a familiar, but the
    redeal took it away): no real history leads there."""
    d = redealt_dict(game, observer, rng)
    task = game.pending_task()
    if task is not None and task[1] != observer:
        unrun = serialization.from_dict(Game, d)  # the position before its pending steps run
        if not steps.OPTIONS[task[0]](unrun, unrun.stack[-1]):
            return None
    return Game.from_dict(d)


def redealt_dict(game: Game, observer: int, rng: np.random.Generator) -> dict:
    """``game`` with every card ``observer`` cannot see pooled and dealt back at random into the same places
    (same sizes, so the position stays consistent), and the other seats' draft memories redrawn."""
    d = copy.deepcopy(game.to_dict())
    pool: list[int] = []
    places: list[tuple[object, object, int]] = []  # (container, key, size)

    def hide(container: object, key: object) -> None:
        cards = container[key]
        pool.extend(cards)
        places.append((container, key, len(cards)))

    for q, seat in enumerate(d["players"]):
        if q == observer:
            continue
        hide(seat, "hand")
        hide(seat["library"], "year2")
        hide(seat["library"], "year3")
        hide(seat, "draft_pack")
        level_cards = sorted(LEVEL_CARDS[d["level"]])
        seen = rng.choice(level_cards, size=int(rng.integers(0, len(level_cards))), replace=False)
        seat["draft_seen"] = sorted(int(c) for c in seen)
    orb = d["orb_seen"]
    keep_top = orb is not None and orb["player"] == observer and d["draw_pile"]
    top = d["draw_pile"].pop() if keep_top else None
    hide(d, "draw_pile")
    hide(d, "discard_pile")
    held = []  # pending steps of other deciders holding private cards
    for task in d["pending"]:
        if task["step"] in PRIVATE_CARD_STEPS and task["player"] != observer:
            for key in ("card", "cards"):
                if key in task:
                    cards = task[key] if key == "cards" else [task[key]]
                    for c in cards:
                        d["limbo"].remove(c)
                    pool.extend(cards)
                    held.append((task, key, len(cards)))
    order = rng.permutation(len(pool))
    shuffled = [pool[i] for i in order]
    at = 0
    for container, key, size in places:
        container[key] = shuffled[at : at + size]
        at += size
    for task, key, size in held:
        cards = shuffled[at : at + size]
        at += size
        task[key] = cards if key == "cards" else cards[0]
        d["limbo"].extend(cards)
    if keep_top:
        d["draw_pile"].append(top)
    if orb is not None and orb["player"] != observer:
        orb["card"] = d["draw_pile"][-1]
    for task in d["pending"]:
        if task["step"] == "crystal_orb_seen" and task["player"] != observer and d["draw_pile"]:
            task["card"] = d["draw_pile"][-1]
    for player in d["players"]:
        for zone in ("hand", "draft_pack"):
            player[zone] = sorted(player[zone])
        for year in ("year2", "year3"):
            player["library"][year] = sorted(player["library"][year])
    return d


def shown(game: Game, seat: int) -> dict:
    """Everything ``seat`` is shown, by slice, plus the flow facts an environment exposes."""
    observation = encode_observation(game, seat)
    task = game.pending_task()
    return {
        **{s.name: observation[s.start : s.stop].tobytes() for s in LAYOUT.slices},
        "mask": action_mask(game, seat).tobytes(),
        "text": render_text(game, viewer=seat),
        "pending": None if task is None else (task[0], task[1]),
        "current_player": game.current_player if not game.is_over else None,
    }


def differences(a: dict, b: dict) -> list[str]:
    return [key for key in a if a[key] != b[key]]


def compare_pair(game: Game, observer: int, rng: np.random.Generator) -> str:
    """Compare a position with a redeal for ``observer``; returns which comparison was made."""
    other = redeal(game, observer, rng)
    if other is None:
        return "contradicts history"
    before, after = shown(game, observer), shown(other, observer)
    assert not differences(before, after), (
        f"{game.num_players}p {game.level}: seat {observer} tells the redeal apart by {differences(before, after)} "
        f"at decision {game.pending_decision} of player {game.current_player}"
    )
    if game.is_over or game.current_player != observer:
        return "position"
    # The seat acts the same in both worlds; then who is asked next must not differ unless the seat was shown
    # something that differs (its own new cards).
    action = int(rng.choice(game.legal_action_list()))
    mine, theirs = game.clone(), other.clone()
    mine.apply(action)
    theirs.apply(action)
    next_mine, next_theirs = shown(mine, observer), shown(theirs, observer)
    changed = differences(next_mine, next_theirs)
    flow = [k for k in changed if k in FLOW]
    if flow:
        seen = [k for k in changed if k not in FLOW and k != "text"]
        assert seen, (
            f"{game.num_players}p {game.level}: after seat {observer}'s {action}, the flow differs ({flow}: "
            f"{next_mine['pending']} vs {next_theirs['pending']}) with nothing else the seat sees differing"
        )
    return "action"


CAP_PER_KIND = 10


def audit(num_players: int, level: str) -> tuple[Counter, set[str]]:
    """Paired states over seeded random games, at most CAP_PER_KIND positions per decision kind and seat role
    (so rare decisions get compared as often as common ones): the counts by ``(kind, role)`` and by ``(kind,
    role, what was compared)``, and the decision kinds met. Also run at full size by
    ``benchmarks/hidden_information_audit.py``."""
    rng = np.random.default_rng([num_players, len(level)])
    compared: Counter = Counter()
    kinds_seen: set[str] = set()
    for seed in range(40):
        game = Game.new(num_players, level, seed=seed)
        for _ in random_play(game, np.random.default_rng(seed + 99)):
            kind = game.pending_decision
            kinds_seen.add(kind)
            for observer in range(num_players):
                role = "decider" if observer == game.current_player else "other"
                if compared[kind, role] >= CAP_PER_KIND:
                    continue
                compared[kind, role, compare_pair(game, observer, rng)] += 1
                compared[kind, role] += 1
        if all(compared[k, r] >= CAP_PER_KIND for k in kinds_seen for r in ("decider", "other")) and seed >= 8:
            break
    return compared, kinds_seen


@pytest.mark.parametrize("level", ["apprentice", "magician", "archmage"])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_no_seat_tells_paired_states_apart(num_players: int, level: str) -> None:
    compared, kinds_seen = audit(num_players, level)
    # the decisions whose asking used to leak are among those compared
    private = {"turn", "draft_pick", "library_split"} if level != "apprentice" else {"turn"}
    assert private <= kinds_seen
    total = sum(v for k, v in compared.items() if len(k) == 2)
    contradictions = sum(v for k, v in compared.items() if len(k) == 3 and k[2] == "contradicts history")
    assert total > 150 and contradictions < total // 20, compared


def test_a_turn_with_one_option_is_asked_while_the_hand_could_matter() -> None:
    """The issue's example: seat 1 in its turn, 3 bonuses used, gauge 1 and nothing in play; whether it can
    summon hangs on its hand, so its turn is asked whatever the hand holds (Temporal Boots is affordable with
    the tokens held, Olaf's Statue is not)."""
    from scenario import scenario

    asked = []
    for hand in ([3], [9]):  # Temporal Boots, Olaf's Statue
        game = scenario(
            num_players=2,
            level="magician",
            turn_player=1,
            players=[
                {},
                {
                    "hand": hand,
                    "summoning_gauge": 1,
                    "bonuses_used": 3,
                    "reserve": {"water": 1, "earth": 1, "fire": 1, "air": 1},
                },
            ],
        )
        asked.append((game.current_player, game.pending_decision, len(game.legal_action_list())))
    assert asked[0][:2] == asked[1][:2] == (1, "turn")
    assert {n for *_, n in asked} == {1, 2}  # one world can summon, the other can only end the turn


def test_a_turn_whose_options_are_public_still_ends_by_itself() -> None:
    """Without a hand card that could matter (no room in play), a turn with only 'end turn' is not asked."""
    from scenario import scenario

    game = scenario(
        num_players=2,
        level="magician",
        turn_player=1,
        players=[{}, {"hand": [3], "summoning_gauge": 0, "bonuses_used": 3}],
    )
    assert not (game.current_player == 1 and game.pending_decision == "turn")


def test_the_paired_test_can_fail() -> None:
    """A redeal the seat can see through is caught: an opponent's hand shown in the text would differ."""
    game = Game.new(2, "magician", seed=3)
    other = redeal(game, 0, np.random.default_rng(1))
    assert other is not None
    assert render_text(game, viewer=None) != render_text(other, viewer=None)  # the god view shows the packs
    assert differences(shown(game, 0), shown(other, 0)) == []


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_determinize_keeps_nothing_a_seat_cannot_know(num_players: int) -> None:
    """A seat's determinization is a function of what it knows: paired states give the same sample from the
    same generator, other seats' draft memories included."""
    rng = np.random.default_rng(num_players)
    checked = 0
    for seed in range(4):
        for k, game in enumerate(_positions(num_players, "archmage", seed, every=11)):
            for seat in range(num_players):
                other = redeal(game, seat, rng)
                if other is None:
                    continue
                a = game.determinize(seat, np.random.default_rng(k)).to_dict()
                b = other.determinize(seat, np.random.default_rng(k)).to_dict()
                assert a == b, f"seat {seat}'s determinization differs between paired states"
                assert all(not a["players"][q]["draft_seen"] for q in range(num_players) if q != seat)
                checked += 1
    assert checked > 100


def test_determinize_dropped_the_draft_memory_that_named_cards_in_opponents_hands() -> None:
    """The issue's case: 3-player Archmage, seed 0, after the draft: seat 0's view named cards seat 1 saw."""
    game = Game.new(3, "archmage", seed=0)
    rng = np.random.default_rng(0)
    while game.pending_decision in ("draft_pick",):
        game.apply(int(rng.choice(game.legal_action_list())))
    assert game.draft_seen[1]  # seat 1 remembers what it saw
    view = game.determinize(0, np.random.default_rng(5))
    assert view.draft_seen[1] == 0 and view.draft_seen[2] == 0 and view.draft_seen[0] == game.draft_seen[0]


def _positions(num_players: int, level: str, seed: int, every: int):
    game = Game.new(num_players, level, seed=seed)
    for k, _ in enumerate(random_play(game, np.random.default_rng(seed + 7))):
        if k % every == 0:
            yield game


def test_every_private_decision_kind_declares_when_it_is_asked() -> None:
    """The decisions whose options come from a hand, a pack or drawn cards carry a ``private`` predicate."""
    private = {s.name for s in steps.decision_kinds() if s.private is not None}
    assert private == {
        "draft_pick",
        "library_split",
        "keep_one",
        "turn",
        "divine_chalice",
        "naria_keep",
        "naria_give",
        "vampiric_crown_discard",
        "potion_of_dreams",
        "necrotic_kriss",
    }


# ---------------------------------------------------------------------------- the converse: no blind spot


def _turn_position(num_players: int) -> Game:
    """A position in year 1 or 2, at a turn, every seat with a card in play and cards left in the draw pile."""
    for seed in range(200):
        game = Game.new(num_players, "archmage", seed=seed)
        for _ in random_play(game, np.random.default_rng(seed)):
            if game.year > 2:
                break
            if (
                game.pending_decision == "turn"
                and all(game.in_play[q] for q in range(num_players))
                and len(game.draw_pile) > 3
                and not game.deferred_tokens
            ):
                return game.clone()
    raise AssertionError("no such position")


def _move_top_card(d: dict, to: list, item=None) -> None:
    card = d["draw_pile"].pop()
    to.append(card if item is None else item(card))


def _change_library_size(d: dict, q: int) -> None:
    """A card more in one of seat ``q``'s library sets with room (3 cards each), else one moved from year 3 to the
    hand: either way the library sizes change, which every seat sees."""
    player = d["players"][q]
    for year in ("year2", "year3"):
        if len(player["library"][year]) < 3:
            _move_top_card(d, player["library"][year])
            return
    player["hand"].append(player["library"]["year3"].pop())


def _public_changes(d: dict, q: int) -> dict:
    """Changes of one public fact each (of seat ``q`` where it is per seat), keeping the position consistent."""
    player = d["players"][q]
    n = d["num_players"]
    season = ("winter", "spring", "summer", "autumn")
    other_season = next(s for s in season if s != d["dice_season"])
    unused = sorted(set(range(5)) - set(d["game_dice"][other_season]))

    def change(path: str, edit) -> tuple[str, object]:
        return path, edit

    changes = [
        change(f"players[{q}].crystals", lambda d: d["players"][q].update(crystals=player["crystals"] + 3)),
        change(
            f"players[{q}].summoning_gauge",
            lambda d: d["players"][q].update(
                summoning_gauge=min(15, player["summoning_gauge"] + 1) if player["summoning_gauge"] < 15 else 14
            ),
        ),
        change(
            f"players[{q}].bonuses_used",
            lambda d: d["players"][q].update(bonuses_used=(player["bonuses_used"] + 1) % 4),
        ),
        change(f"players[{q}].hand (size)", lambda d: _move_top_card(d, d["players"][q]["hand"])),
        change(f"players[{q}].library (sizes)", lambda d: _change_library_size(d, q)),
        change(f"players[{q}].in_play", lambda d: _move_top_card(d, d["players"][q]["in_play"], lambda c: {"card": c})),
        change(
            f"players[{q}].in_play[0].tapped",
            lambda d: d["players"][q]["in_play"][0].update(tapped=not d["players"][q]["in_play"][0]["tapped"]),
        ),
        change("draw/discard split", lambda d: _move_top_card(d, d["discard_pile"])),
        change("deferred_tokens", lambda d: d.update(deferred_tokens=[[q, 1]])),
        change("first_player", lambda d: d.update(first_player=(d["first_player"] + 1) % n)),
        change("position", lambda d: d.update(position=d["position"] % 12 + 1)),
        change("rolled[0].face", lambda d: d["rolled"][0].update(face=(d["rolled"][0]["face"] + 1) % 6)),
    ]
    for energy in ("water", "earth", "fire", "air"):
        changes.append(
            change(
                f"players[{q}].reserve.{energy}",
                lambda d, e=energy: d["players"][q]["reserve"].update(
                    {e: d["players"][q]["reserve"][e] + 1 if sum(d["players"][q]["reserve"].values()) < 7 else 0}
                ),
            )
        )
    if unused:  # with 4 players every die is in the game
        changes.append(
            change(
                f"game_dice.{other_season}",
                lambda d: d["game_dice"].update({other_season: sorted([*d["game_dice"][other_season][1:], unused[0]])}),
            )
        )
    if d["turn_player"] == q:
        changes.append(
            change(
                "turn.transmute_ability",
                lambda d: d["turn"].update(transmute_ability=not d["turn"]["transmute_ability"]),
            )
        )
        changes.append(
            change(
                "turn.transmute_bonus_used",
                lambda d: d["turn"].update(transmute_bonus_used=not d["turn"]["transmute_bonus_used"]),
            )
        )
    return dict(changes)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_every_public_fact_reaches_every_seat(num_players: int) -> None:
    """The converse of the paired states: a change of any public fact changes every seat's observation."""
    game = _turn_position(num_players)
    state = game.to_dict()
    blind = []
    checked = 0
    for q in range(num_players):
        for path, edit in _public_changes(state, q).items():
            d = copy.deepcopy(state)
            edit(d)
            changed = Game.from_dict(d)
            for seat in range(num_players):
                if encode_observation(changed, seat).tobytes() == encode_observation(game, seat).tobytes():
                    blind.append(f"seat {seat} does not see {path}")
                checked += 1
    assert not blind, blind
    assert checked >= num_players * num_players * 16
