"""seasons_env.vector.mask_kernel: the batched legal-action mask against the reference engine.

Positions of seeded random games (every level, 2/3/4 players, every other decision and at the end), every
decision kind placed on real positions with varied arguments, and turn menus with randomised cards in play,
tapped cards, tokens, crystals, gauge and hand are packed into an array state; the kernel writes every row's mask
at once and each must equal ``legal_action_list()`` of the original ``Game``. A failure names the row's decision
kind and the actions missing or extra (``describe_action``).
"""

from __future__ import annotations

import numpy as np
import pytest

from seasons_env import Game, describe_action
from seasons_env.encoding import DECISION_KINDS
from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.data import ACTIVATION_CARDS, CARD_OF, LEVELS, NUM_CARDS, NUM_INSTANCES, Card, instance_of
from seasons_env.vector import mask_kernel
from seasons_env.vector.arrays import ArrayState, pack
from seasons_env.vector.mask_kernel import KERNEL_KINDS, NUM_ACTIONS, kernel_rows, write_legal_masks
from seasons_env.vector.step_codes import ARG_COLUMNS

SEEDS_PER_CASE = 4
EVERY = 2


def _positions(n: int) -> list[Game]:
    """Copies of random games' positions every ``EVERY`` decisions and at their ends, every level."""
    kept = []
    for level in LEVELS:
        for seed in range(SEEDS_PER_CASE):
            game = Game.new(n, level, seed=2000 * n + seed)
            rng = np.random.default_rng([n, seed, 43])
            decisions = 0
            while True:
                if decisions % EVERY == 0 or game.is_over:
                    kept.append(game.clone())
                if game.is_over:
                    break
                legal = game.legal_action_list()
                game.apply(legal[int(rng.integers(len(legal)))])
                decisions += 1
    return kept


@pytest.fixture(scope="module")
def positions() -> dict[int, list[Game]]:
    return {n: _positions(n) for n in (2, 3, 4)}


def _expected(game: Game) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    mask[game.legal_action_list()] = True
    return mask


def _assert_rows_match(out: np.ndarray, games: list[Game], rows=None, what: str = "") -> None:
    for i in range(len(games)) if rows is None else rows:
        expected = _expected(games[i])
        if not np.array_equal(expected, out[i]):
            kind = "game over" if games[i].is_over else steps.KINDS[games[i].pending_task()[0]]
            missing = [describe_action(a) for a in np.flatnonzero(expected & ~out[i])]
            extra = [describe_action(a) for a in np.flatnonzero(out[i] & ~expected)]
            pytest.fail(f"{what}row {i} ({kind}): missing {missing}, extra {extra}")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_row_matches_the_reference_mask(positions: dict[int, list[Game]], n: int) -> None:
    games = positions[n]
    state = pack(games)
    out = np.ones((len(games), NUM_ACTIONS), dtype=np.bool_)  # stale values must all be cleared
    assert write_legal_masks(state, out) is out
    _assert_rows_match(out, games, what=f"{n} players: ")
    finished = [i for i, g in enumerate(games) if g.is_over]
    assert len(finished) == len(LEVELS) * SEEDS_PER_CASE and not out[finished].any()


def test_the_kernels_answer_the_kinds_they_claim(positions: dict[int, list[Game]], monkeypatch) -> None:
    """Rows of the kinds in ``KERNEL_KINDS`` are answered by the kernels, not the reference: with the fallback
    disabled, and with ``unpack`` made to fail, they still match; a row of another kind is refused by name."""
    games = [g for games in positions.values() for g in games]
    kinds = {steps.KINDS[g.pending_task()[0]] for g in games if not g.is_over}
    assert {"turn", "choose_die", "draft_pick", "library_split", "overflow", "gain_energy"} <= kinds & KERNEL_KINDS
    for n, group in positions.items():
        state = pack(group)
        claimed = np.array([g.is_over or steps.KINDS[g.pending_task()[0]] in KERNEL_KINDS for g in group])
        assert np.array_equal(kernel_rows(state), claimed), f"{n} players: kernel_rows differs from KERNEL_KINDS"
        rows = np.flatnonzero(claimed)
        out = np.zeros((len(group), NUM_ACTIONS), dtype=np.bool_)
        with monkeypatch.context() as patch:
            patch.setattr(mask_kernel, "unpack", _no_reference)
            write_legal_masks(state, out, rows=rows, fallback=False)
            write_legal_masks(state, out, rows=rows)
        _assert_rows_match(out, group, rows=rows, what=f"{n} players, kernels only: ")
        other = np.flatnonzero(~claimed)
        if other.size:
            kind = steps.KINDS[group[other[0]].pending_task()[0]]
            with pytest.raises(ValueError, match=rf"row {other[0]}: no mask kernel answers its decision '{kind}'"):
                write_legal_masks(state, out, fallback=False)
    asked = [steps.KINDS[g.pending_task()[0]] for g in games if not g.is_over]
    assert sum(kind in KERNEL_KINDS for kind in asked) / len(asked) > 0.95


def _no_reference(state: ArrayState, i: int, check: bool = False) -> Game:
    raise AssertionError(f"row {i} was sent to the reference engine")


def _synthetic(games: list[Game], n: int, seed: int) -> list[Game]:
    """Every decision kind on top of real positions, with varied arguments (some out of what play would give)."""
    rng = np.random.default_rng([n, seed])
    made = []
    for k, spec in enumerate(DECISION_KINDS * 3):
        kind = steps.kind(spec.name)
        game = games[int(rng.integers(len(games)))].clone()
        while game.is_over or not game.stack:
            game = games[int(rng.integers(len(games)))].clone()
        args = []
        for col in ARG_COLUMNS[kind]:
            if col.name == "cards":
                args.append(
                    tuple(int(c) for c in rng.integers(1, NUM_CARDS + 1, size=int(rng.integers(1, col.width + 1))))
                )
            elif col.name == "recipients":
                args.append(tuple(int(s) for s in rng.integers(0, n, size=int(rng.integers(1, col.width + 1)))))
            elif col.name == "need":
                args.append(tuple(int(e) for e in rng.integers(0, 5, size=4)))
            elif col.name == "card":
                args.append(int(rng.integers(1, NUM_CARDS + 1)))
            elif col.name == "instance":
                held = [i for p in range(n) for i in game.in_play[p]]
                args.append(int(rng.choice(held)) if held and k % 2 else int(rng.integers(0, NUM_INSTANCES)))
            elif col.name in ("energy", "from_type"):
                args.append(int(rng.integers(0, 4)))
            elif col.name == "from_action":
                args.append(A.pay_action(0, 0) + int(rng.integers(0, 12)))
            else:
                args.append(int(rng.integers(1, 6)))
        game.stack = [*game.stack[:-1], (kind, int(rng.integers(0, n)), *args)]
        game.reserve = [tuple(int(t) for t in rng.integers(0, 4, size=4)) for _ in range(n)]
        if k % 5 == 0:  # piles nearly empty: no bonus draw, no Crystal Orb look
            game.draw_pile, game.discard_pile = [], game.discard_pile[: k % 2]
        game.crystals = [int(c) for c in rng.integers(0, 12, size=n)]
        made.append(game)
    return made


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_decision_kind_with_varied_arguments(positions: dict[int, list[Game]], n: int) -> None:
    games = _synthetic(positions[n], n, seed=7)
    for g in games:
        g._refresh_options()
    state = pack(games)
    out = np.ones((len(games), NUM_ACTIONS), dtype=np.bool_)
    write_legal_masks(state, out)
    _assert_rows_match(out, games, what=f"synthetic, {n} players: ")


def _both(card: int) -> list[int]:
    return [instance_of(card, 0), instance_of(card, 1)]


_ACTIVATABLE = [i for c in ACTIVATION_CARDS for i in _both(c)]
_STORING = _both(Card.AMULET_OF_WATER) + _both(Card.GLUTTON_CAULDRON)
_LEECHES = _both(Card.ARCANO_LEECH)


def _turn_menus(games: list[Game], n: int, count: int, seed: int) -> list[Game]:
    """Turn menus of real positions with the decider's cards in play (activatable cards, Hands of Fortune,
    Amulets of Water and Glutton Cauldrons often), tapped cards, tokens, crystals, gauge, hand and flags drawn at
    random: the summon costs, waivers, Leech tolls and every activation condition at many values."""
    rng = np.random.default_rng([n, seed, 11])
    special = [*_ACTIVATABLE, *_STORING, *_both(Card.HAND_OF_FORTUNE), *_LEECHES, *_both(Card.BESPELLED_GRIMOIRE)]
    made = []
    while len(made) < count:
        game = games[int(rng.integers(len(games)))].clone()
        if game.is_over or game.year < 1:
            continue
        p = int(rng.integers(n))
        game.stack = [*game.stack[:-1], (steps.kind("turn"), p)]
        others = {i for q in range(n) if q != p for i in game.in_play[q]}
        pool = [i for i in special if i not in others] + [i for i in range(NUM_INSTANCES) if i not in others]
        size = int(rng.integers(0, 10))
        mine = sorted({int(pool[int(k)]) for k in rng.integers(0, len(special), size=size)})
        if rng.random() < 0.3:
            mine = sorted(set(mine) | {int(i) for i in rng.choice([i for i in pool if i not in mine], size=2)})
        pair = _both(CARD_OF[special[int(rng.integers(len(special)))]])
        if rng.random() < 0.4 and not others & set(pair):  # both copies: told apart by tapped state and tokens
            mine = sorted(set(mine) | set(pair))
        game.in_play[p] = tuple(mine)
        free_leeches = [i for i in _LEECHES if i not in others and i not in mine]
        if free_leeches and rng.random() < 0.3:  # an opponent's Arcano Leech: a toll on every summon from hand
            q = (p + int(rng.integers(1, n))) % n
            game.in_play[q] = tuple(sorted({*game.in_play[q], free_leeches[0]}))[:15]
            others = {i for q in range(n) if q != p for i in game.in_play[q]}
        game.stored = {i: v for i, v in game.stored.items() if i in others}
        for inst in mine:
            if inst in _STORING:
                tokens = rng.integers(0, 3, size=4) * (rng.random() < 0.7)
                game.stored[inst] = tuple(int(t) for t in tokens)
        if rng.random() < 0.3:  # both copies with the same tokens: one option
            for pair in (_STORING[:2], _STORING[2:]):
                if pair[0] in game.stored and pair[1] in game.stored:
                    game.stored[pair[1]] = game.stored[pair[0]]
        game.tapped = int(sum(1 << i for i in mine if rng.random() < 0.3))
        game.reserve[p] = tuple(int(t) for t in rng.integers(0, 5, size=4) * (rng.random(4) < 0.6))
        game.crystals[p] = int(rng.integers(0, 25))
        game.gauge[p] = int(rng.integers(len(mine), 16)) if rng.random() < 0.8 else len(mine)
        game.bonuses_used[p] = int(rng.integers(0, 4))
        game.turn_flags = int(rng.integers(0, 4))
        hand = [int(c) for c in rng.integers(1, NUM_CARDS + 1, size=int(rng.integers(0, 6)))]
        if rng.random() < 0.3:  # Elemental Amulet: any one token type held pays for it
            hand.append(int(Card.ELEMENTAL_AMULET))
        game.hand[p] = tuple(sorted(hand))
        if rng.random() < 0.15:  # only the Amulets' tokens to spend
            game.reserve[p] = (0, 0, 0, 0)
        if rng.random() < 0.15:  # no card, or one, left to draw
            game.draw_pile, game.discard_pile = [], game.discard_pile[: int(rng.integers(0, 2))]
        game._refresh_options()
        made.append(game)
    return made


@pytest.mark.parametrize("n", [2, 3, 4])
def test_turn_menus_with_random_cards_tokens_and_hands(positions: dict[int, list[Game]], n: int) -> None:
    games = _turn_menus(positions[n], n, count=400, seed=3)
    state = pack(games)
    out = np.ones((len(games), NUM_ACTIONS), dtype=np.bool_)
    write_legal_masks(state, out, fallback=False)
    _assert_rows_match(out, games, what=f"turn menus, {n} players: ")
    offered = out[:, A.ACTIVATE0 : A.TRANSMUTE0]
    assert offered.any(axis=0).sum() >= len(_ACTIVATABLE) - 2  # nearly every activation offered somewhere


KINDS_ON_TURN_POSITIONS = (
    "necrotic_kriss",
    "tree_of_light",
    "crystal_orb_seen",
    "balance_of_ishtar",
    "discard_tokens",
    "draw_symbol",
    "crystal_orb",
)


@pytest.mark.parametrize("n", [2, 4])
def test_card_and_token_decisions_on_the_random_turn_positions(positions: dict[int, list[Game]], n: int) -> None:
    """The decisions reading the decider's cards in play and tokens, on the randomised turn positions: Necrotic
    Kriss (familiars in hand and in play, copies told apart by tapped state), Tree of Light, the Orb's look,
    Balance of Ishtar, the tokens discarded from the reserve and the Amulets of Water, the die's draw with the
    piles nearly empty."""
    rng = np.random.default_rng(n)
    games = []
    for k, game in enumerate(_turn_menus(positions[n], n, count=300, seed=5)):
        p = game.current_player
        name = KINDS_ON_TURN_POSITIONS[k % len(KINDS_ON_TURN_POSITIONS)]
        args = (
            (int(rng.integers(1, 6)), A.pay_action(0, 0) + int(rng.integers(0, 12))) if name == "discard_tokens" else ()
        )
        args = (int(rng.integers(1, NUM_CARDS + 1)),) if name == "crystal_orb_seen" else args
        game.stack = [*game.stack[:-1], (steps.kind(name), p, *args)]
        game._refresh_options()
        games.append(game)
    state = pack(games)
    out = np.ones((len(games), NUM_ACTIONS), dtype=np.bool_)
    write_legal_masks(state, out, fallback=False)
    _assert_rows_match(out, games, what=f"card and token decisions, {n} players: ")


def test_rows_write_only_the_rows_selected(positions: dict[int, list[Game]]) -> None:
    games = positions[3][::3]
    state = pack(games)
    out = np.ones((len(games), NUM_ACTIONS), dtype=np.bool_)
    rows = np.arange(1, len(games), 3)
    write_legal_masks(state, out, rows=rows)
    _assert_rows_match(out, games, rows=rows, what="rows=: ")
    untouched = np.setdiff1d(np.arange(len(games)), rows)
    assert out[untouched].all()
    write_legal_masks(state, out, rows=np.array([], dtype=np.int64))
    assert out[untouched].all()
    write_legal_masks(state, out, rows=np.concatenate([untouched, untouched[:3]]))  # repeated rows are fine
    _assert_rows_match(out, games, what="rows= then the rest: ")
    assert np.array_equal(kernel_rows(state, rows), kernel_rows(state)[rows])


def test_bad_arguments_are_refused_by_name(positions: dict[int, list[Game]]) -> None:
    state = pack(positions[2][:4])
    out = np.zeros((4, NUM_ACTIONS), dtype=np.bool_)
    with pytest.raises(ValueError, match=rf"out must be a bool array of shape \(4, {NUM_ACTIONS}\); got float64"):
        write_legal_masks(state, np.zeros((4, NUM_ACTIONS)))
    with pytest.raises(ValueError, match=r"out must be a bool array.*got bool \(3, "):
        write_legal_masks(state, np.zeros((3, NUM_ACTIONS), dtype=np.bool_))
    with pytest.raises(ValueError, match=r"out must be a bool array.*got list"):
        write_legal_masks(state, [[False] * NUM_ACTIONS] * 4)
    with pytest.raises(ValueError, match=r"rows must be in 0\.\.3; got 0\.\.4"):
        write_legal_masks(state, out, rows=np.array([0, 4]))
    with pytest.raises(ValueError, match="rows must be a 1-d array of row indices; got float64"):
        write_legal_masks(state, out, rows=np.array([1.0]))
    with pytest.raises(ValueError, match="rows must be a 1-d array of row indices"):
        kernel_rows(state, np.zeros((2, 2), dtype=np.int64))


def test_an_empty_batch_writes_nothing() -> None:
    state = ArrayState.empty(0, 4)
    out = np.zeros((0, NUM_ACTIONS), dtype=np.bool_)
    assert write_legal_masks(state, out, fallback=False).shape == (0, NUM_ACTIONS)
