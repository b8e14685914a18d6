"""Property test of the position format under misuse (issue 9 item 11): a valid ``to_dict()`` output mutated at
random — keys deleted or misspelled, values of another type, numbers changed (huge and negative included), list
entries duplicated or removed, cards swapped between zones, pending steps of any kind inserted — is either
refused by ``Game.from_dict`` with a ``ValueError`` that says what is wrong, or is a position that random play
then finishes without error."""

from __future__ import annotations

import copy
import functools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_play import random_positions

from seasons_env import Game
from seasons_env.engine import steps
from seasons_env.engine.validate import invariant_violations

MAX_DECISIONS = 5_000  # a whole random game takes a few hundred
CARD_LISTS = {"hand", "year2", "year3", "draft_pack", "draw_pile", "discard_pile", "limbo", "out_of_game", "cards"}
#: An example value for each step argument name (the mutations then change them).
EXAMPLE_ARGS = {
    "year": 2,
    "card": 5,
    "cards": [5, 12],
    "count": 2,
    "onto": -1,
    "from_type": 0,
    "need": [1, 0, 1, 0],
    "waivers": 1,
    "from_source": 0,
    "from_action": 0,
    "from_hand": 1,
    "effects": 15,
    "instance": 68,
    "by_boots": 1,
    "recipients": [1],
    "remaining": 3,
    "after": -1,
    "energy": 0,
}
ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 60),
    st.integers(),
    st.floats(),
    st.text(max_size=4),
    st.lists(st.integers(-1, 60), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(-1, 5), max_size=2),
)


@functools.cache
def sources() -> tuple[str, ...]:
    """Positions from random games at every level and player count (as JSON-like data, copied per example)."""
    found = []
    for level in ("apprentice", "magician", "archmage"):
        for players in (2, 3, 4):
            for game in random_positions(players, level, seed=players, every=23):
                found.append(game.to_dict())
            found.append(game_over(players, level))
    return tuple(found)


def game_over(players: int, level: str) -> dict:
    game = Game.new(players, level, seed=0)
    rng = random.Random(0)
    while not game.is_over:
        game.apply(rng.choice(game.legal_action_list()))
    return game.to_dict()


def locations(node: object, out: list) -> list:
    """Every (container, key) below ``node``, depth first."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in list(items):
        out.append((node, key))
        locations(value, out)
    return out


def card_slots(state: dict) -> list:
    """Every (container, key) holding a card id: the card lists, and ``card`` fields (in play, steps, orb)."""
    slots = []
    for container, key in locations(state, []):
        value = container[key]
        if key in CARD_LISTS and isinstance(value, list):
            slots.extend((value, k) for k in range(len(value)))
        elif key == "card":
            slots.append((container, key))
    return slots


def mutate(state: dict, data: st.DataObject) -> None:
    op = data.draw(st.sampled_from(["delete", "misspell", "retype", "number", "duplicate", "swap", "step"]))
    if op == "step" and isinstance(state.get("pending"), list):
        name = data.draw(st.sampled_from(steps.KINDS))
        step = {"step": name, "player": data.draw(st.integers(0, 3))}
        step.update({arg: copy.deepcopy(EXAMPLE_ARGS[arg]) for arg in steps.STEP_BY_NAME[name].args})
        state["pending"].insert(data.draw(st.integers(0, len(state["pending"]))), step)
        return
    if op == "swap":
        slots = card_slots(state)
        if len(slots) >= 2:
            (a, i), (b, j) = data.draw(st.permutations(slots))[:2]
            a[i], b[j] = b[j], a[i]
        return
    where = locations(state, [])
    if not where:
        return
    container, key = data.draw(st.sampled_from(where))
    value = container[key]
    if op == "delete":
        del container[key]
    elif op == "misspell" and isinstance(container, dict):
        container[key.rstrip("s") if key.endswith("s") else key + "s"] = container.pop(key)
    elif op == "retype":
        container[key] = data.draw(ANY_VALUE)
    elif op == "number" and isinstance(value, int) and not isinstance(value, bool):
        change = data.draw(st.sampled_from(["+1", "-1", "negative", "huge", "zero", "any"]))
        container[key] = {
            "+1": value + 1,
            "-1": value - 1,
            "negative": -value - 1,
            "huge": 10**18,
            "zero": 0,
            "any": data.draw(st.integers(-5, 60)),
        }[change]
    elif op == "duplicate" and isinstance(container, list):
        container.insert(key, copy.deepcopy(value))


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_mutated_position_is_refused_or_plays_to_its_end(data: st.DataObject) -> None:
    state = copy.deepcopy(data.draw(st.sampled_from(sources())))
    for _ in range(data.draw(st.integers(1, 3))):
        mutate(state, data)
    try:
        game = Game.from_dict(state)
    except ValueError as error:
        assert str(error).startswith("state"), f"not a position error: {error!r}"  # an engine crash is a bug
        return
    assert not invariant_violations(game, check_cards=False)
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1)))
    for _ in range(MAX_DECISIONS):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_action_list()))
    assert game.is_over, f"the game did not end in {MAX_DECISIONS} decisions"
    assert not invariant_violations(game, check_cards=False)


def test_every_source_position_reads_back_unchanged() -> None:
    """The property starts from valid positions: unmutated, each is read back as it was written."""
    for state in sources():
        assert Game.from_dict(copy.deepcopy(state)).to_dict() == state
