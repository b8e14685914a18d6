"""The action table's encode/decode pairs: each range's constructor and reader are inverses, and no module
outside ``actions.py`` does range arithmetic of its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from seasons_env.engine import actions as A
from seasons_env.engine.data import ACTIVATION_CARDS, NUM_CARDS, NUM_INSTANCES, instance_of

ROOT = Path(__file__).resolve().parents[1]

# (range name, constructor, reader, the parameters the range covers)
PAIRS = [
    ("TAKE_DIE", A.take_die_action, A.die_of_action, range(5)),
    ("SUMMON", A.summon_action, A.card_of_summon, range(1, NUM_CARDS + 1)),
    (
        "ACTIVATE",
        A.activate_action,
        A.instance_of_activation,
        [instance_of(c, k) for c in ACTIVATION_CARDS for k in (0, 1)],
    ),
    (
        "TRANSMUTE",
        lambda st: A.transmute_action(*st),
        A.transmute_of_action,
        [(s, t) for s in range(3) for t in range(4)],
    ),
    ("PAY", lambda st: A.pay_action(*st), A.payment_of_action, [(s, t) for s in range(3) for t in range(4)]),
    ("CHOOSE_ENERGY", A.choose_energy_action, A.energy_of_choice, range(4)),
    ("CHOOSE_CARD", A.choose_card_action, A.card_of_choice, range(1, NUM_CARDS + 1)),
    ("CHOOSE_IN_PLAY", A.choose_in_play_action, A.instance_of_choice, range(NUM_INSTANCES)),
    ("CHOOSE_OPPONENT", A.choose_opponent_action, A.opponent_offset_of_choice, range(1, 4)),
    ("MOVE_SEASON", A.move_season_action, A.season_move_of_action, A.SEASON_MOVES),
    ("CHOOSE_NUMBER", A.choose_number_action, A.number_of_choice, range(1, A.MAX_NUMBER + 1)),
    ("ELEMENTAL_SET", A.elemental_set_action, A.mask_of_elemental_set, range(1, 16)),
]


@pytest.mark.parametrize("name, encode, read, params", PAIRS, ids=[p[0] for p in PAIRS])
def test_each_range_encodes_and_reads_back_every_parameter(name, encode, read, params):
    ids = [encode(p) for p in params]
    assert [read(a) for a in ids] == [tuple(p) if isinstance(p, tuple) else p for p in params]
    assert {A.decode(a)[0] for a in ids} == {name}
    assert len(set(ids)) == len(ids)


def test_the_ranges_tile_the_table_after_the_single_actions():
    covered = sorted(encode(p) for _, encode, _, params in PAIRS for p in params)
    assert covered == list(range(A.CROWN_DISCARD + 1, A.NUM_ACTIONS))


@pytest.mark.parametrize(
    "predicate, name",
    [
        (A.is_summon, "SUMMON"),
        (A.is_activation, "ACTIVATE"),
        (A.is_transmute, "TRANSMUTE"),
        (A.is_in_play_choice, "CHOOSE_IN_PLAY"),
    ],
)
def test_range_predicates_match_the_table(predicate, name):
    assert [a for a in range(A.NUM_ACTIONS) if predicate(a)] == [
        a for a in range(A.NUM_ACTIONS) if A.decode(a)[0] == name
    ]


def test_cards_without_an_activation_have_no_activate_action():
    with_one = {instance_of(c, k) for c in ACTIVATION_CARDS for k in (0, 1)}
    for instance in range(NUM_INSTANCES):
        assert A.has_activate_action(instance) == (instance in with_one)


RANGE_ARITHMETIC = re.compile(r"\b(?:A\.)?[A-Z_]+0\b\s*[-+]|[-+]\s*(?:A\.)?[A-Z_]+0\b")


def test_no_range_arithmetic_outside_the_action_table():
    """Action ids are built and read only through actions.py's pairs (issue 10: the ~30 'A.X0 + ...' sites)."""
    offenders = []
    for folder in ("seasons_env", "agents", "training", "benchmarks", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name in ("actions.py", "test_actions.py"):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if RANGE_ARITHMETIC.search(line) and re.search(
                    r"\b(TAKE_DIE|SUMMON|ACTIVATE|TRANSMUTE|PAY|CHOOSE_\w+|MOVE_SEASON|ELEMENTAL_SET)0\b", line
                ):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_the_check_finds_range_arithmetic():
    assert RANGE_ARITHMETIC.search("x = A.SUMMON0 + card - 1")
    assert RANGE_ARITHMETIC.search("card = action - A.CHOOSE_CARD0 + 1")
