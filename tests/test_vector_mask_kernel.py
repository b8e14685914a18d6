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
from random_play import level_positions, random_step_args

from seasons_env import Game, describe_action
from seasons_env.encoding import DECISION_KINDS
from seasons_env.engine import actions as A
from seasons_env.engine import steps
from seasons_env.engine.data import ACTIVATION_CARDS, CARD_OF, LEVELS, NUM_CARDS, NUM_INSTANCES, Card, instance_of
from seasons_env.vector import mask_kernel
from seasons_env.vector.arrays import ArrayState, pack
from seasons_env.vector.mask_kernel import KERNEL_KINDS, NUM_ACTIONS, kernel_rows, write_legal_masks

SEEDS_PER_CASE = 4
EVERY = 2


def _positions(n: int) -> list[Game]:
    return level_positions(n, SEEDS_PER_CASE, EVERY, seed_base=2000, tag=43)


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
    disabled, and with ``unpack`` made to fail, they still match. Every decision kind has a kernel."""
    assert {spec.name for spec in DECISION_KINDS} == KERNEL_KINDS
    for n, group in positions.items():
        state = pack(group)
        assert kernel_rows(state).all(), f"{n} players: a row of random play is not answered by kernel"
        out = np.zeros((len(group), NUM_ACTIONS), dtype=np.bool_)
        with monkeypatch.context() as patch:
            patch.setattr(mask_kernel, "unpack", _no_reference)
            write_legal_masks(state, out, fallback=False)
            out[:] = True
            write_legal_masks(state, out)
        _assert_rows_match(out, group, what=f"{n} players, kernels only: ")


def test_rows_no_kernel_answers_take_the_reference_path(positions: dict[int, list[Game]], monkeypatch) -> None:
    """A top step that is no decision, and a turn whose player has an untapped card of unknown activation, go to
    the reference engine (``fallback=False`` refuses them by row and kind), and the masks stay exact."""
    games = [g.clone() for g in positions[2][:: len(positions[2]) // 40]]
    turns = [i for i, g in enumerate(games) if not g.is_over and steps.KINDS[g.pending_task()[0]] == "turn"]
    broken = next(i for i, g in enumerate(games) if not g.is_over and i not in turns)
    games[broken].stack[-1] = (steps.kind("draft_pass"), 0)
    games[broken]._legal = []  # what unpack gives such a row: no option
    state = pack(games)
    out = np.ones((len(games), NUM_ACTIONS), dtype=np.bool_)
    with pytest.raises(ValueError, match=rf"row {broken}: no mask kernel answers its decision 'draft_pass'"):
        write_legal_masks(state, out, fallback=False)
    write_legal_masks(state, out)
    _assert_rows_match(out, games, what="a step that is no decision: ")
    # a card whose activation the kernel would not know: every turn row with it untapped falls back
    unknown = np.zeros(NUM_INSTANCES, dtype=np.bool_)
    unknown[_both(Card.POTION_OF_POWER)] = True
    menus = _turn_menus(positions[2], 2, count=200, seed=9)
    state = pack(menus)
    patch_rows = [i for i, g in enumerate(menus) if {*g.in_play[g.current_player]} & {*_both(Card.POTION_OF_POWER)}]
    monkeypatch.setattr(mask_kernel, "_UNKNOWN_ACTIVATIONS", unknown)
    answered = kernel_rows(state)
    expected = [
        i
        for i in patch_rows
        if any(not menus[i].tapped >> j & 1 for j in menus[i].in_play[menus[i].current_player] if unknown[j])
    ]
    assert expected and np.array_equal(np.flatnonzero(~answered), expected)
    with pytest.raises(ValueError, match=rf"row {expected[0]}: no mask kernel answers its decision 'turn'"):
        write_legal_masks(state, np.zeros((len(menus), NUM_ACTIONS), dtype=np.bool_), fallback=False)
    out = np.ones((len(menus), NUM_ACTIONS), dtype=np.bool_)
    write_legal_masks(state, out)
    _assert_rows_match(out, menus, what="unknown activation: ")


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
        held = [i for p in range(n) for i in game.in_play[p]]

        def instance(held: list[int] = held, k: int = k) -> int:
            return int(rng.choice(held)) if held and k % 2 else int(rng.integers(0, NUM_INSTANCES))

        args = random_step_args(
            kind, rng, n, instance=instance, special={"from_action": lambda: _pay(rng)}, count_high=5
        )
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
    offered = out[:, [A.activate_action(i) for i in _ACTIVATABLE]]
    assert offered.any(axis=0).sum() >= len(_ACTIVATABLE) - 2  # nearly every activation offered somewhere


def _pay(rng: np.random.Generator) -> int:
    return A.pay_action(int(rng.integers(A.NUM_SOURCES)), int(rng.integers(4)))


def _owed(rng: np.random.Generator, game: Game) -> tuple[int, ...]:
    """Often one token of a type an Amulet of Water of the decider holds (so that two sources can pay it)."""
    p = game.current_player
    on_amulets = [t for i in _STORING[:2] if i in game.in_play[p] for t in range(4) if game.stored.get(i, (0,) * 4)[t]]
    if on_amulets and rng.random() < 0.7:
        owed = on_amulets[int(rng.integers(len(on_amulets)))]
        return tuple(int(t == owed) for t in range(4))
    return _need(rng, single=rng.random() < 0.5)


def _need(rng: np.random.Generator, single: bool = False) -> tuple[int, ...]:
    need = [int(t) for t in rng.integers(0, 3, size=4) * (not single)]
    need[int(rng.integers(4))] += 1  # something is owed
    return tuple(need)


#: Decisions reading the decider's cards in play, tokens, hand or piles, with a generator of their arguments.
KINDS_ON_TURN_POSITIONS = {
    "necrotic_kriss": lambda rng, game: (),
    "tree_of_light": lambda rng, game: (),
    "crystal_orb": lambda rng, game: (),
    "crystal_orb_seen": lambda rng, game: (int(rng.integers(1, NUM_CARDS + 1)),),
    "balance_of_ishtar": lambda rng, game: (),
    "discard_tokens": lambda rng, game: (
        int(rng.integers(1, 6)),
        A.pay_action(int(rng.integers(3)), int(rng.integers(4))),
    ),
    "draw_symbol": lambda rng, game: (),
    "vampiric_crown": lambda rng, game: (),
    "elemental_amulet_set": lambda rng, game: (),
    "hand_of_fortune": lambda rng, game: (_need(rng), int(rng.integers(1, 3)), int(rng.integers(0, 4)) // 2),
    "pay_source": lambda rng, game: (_owed(rng, game), int(rng.integers(0, 3)) // 2),
    "amsug_return": lambda rng, game: (),
    "syllas_sacrifice": lambda rng, game: (),
    "dragon_skull": lambda rng, game: (int(rng.integers(1, 4)), int(rng.integers(-1, NUM_INSTANCES))),
    "damned_soul_water": lambda rng, game: (int(rng.choice([*game.in_play[game.current_player], 99])),),
    "glutton_cauldron": lambda rng, game: (int(rng.choice([*game.in_play[game.current_player], 68])),),
    "overflow": lambda rng, game: (int(rng.integers(0, 4)),),
    "exchange_discard": lambda rng, game: (int(rng.integers(1, 3)), int(rng.integers(0, 4))),
}


@pytest.mark.parametrize("n", [2, 4])
def test_card_and_token_decisions_on_the_random_turn_positions(positions: dict[int, list[Game]], n: int) -> None:
    """The decisions reading the decider's cards in play (copies told apart by tapped state and tokens), its
    tokens in the reserve and on Amulets of Water (with Hands of Fortune and Bespelled Grimoires), its hand and
    the piles, on the randomised turn positions, with varied arguments: payments and Hand of Fortune's waivers,
    Elemental Amulet's sets, the cards to sacrifice or return, the tokens to discard."""
    rng = np.random.default_rng(n)
    names = list(KINDS_ON_TURN_POSITIONS)
    games = []
    for k, game in enumerate(_turn_menus(positions[n], n, count=50 * len(names), seed=5)):
        name = names[k % len(names)]
        args = KINDS_ON_TURN_POSITIONS[name](rng, game)
        game.stack = [*game.stack[:-1], (steps.kind(name), game.current_player, *args)]
        game._refresh_options()
        games.append(game)
    state = pack(games)
    out = np.ones((len(games), NUM_ACTIONS), dtype=np.bool_)
    write_legal_masks(state, out, fallback=False)
    _assert_rows_match(out, games, what=f"card and token decisions, {n} players: ")
    for name in names:  # each kind offers several options somewhere, so that its rules are exercised
        rows = [i for i, g in enumerate(games) if steps.KINDS[g.pending_task()[0]] == name]
        assert out[rows].sum(axis=1).max() >= (1 if name == "damned_soul_water" else 2), name


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
