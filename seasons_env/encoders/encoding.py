"""Observation tensor and action mask: what one seat may know, as one flat float32 vector of named slices.

The layout is fixed (it does not depend on the number of players: opponents have three slots, the absent
ones zeroed), so one network serves 2-, 3- and 4-player games. Seats are relative to the observer: "seat 1"
is the observer's left neighbour. ``docs/observation.md`` is generated from ``LAYOUT``.

Only public facts and the observer's own private facts are read (RULES.md section 9): opponents' hands,
libraries and draft packs, the draw pile's order and the discard pile never enter another seat's vector.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from ..engine import Card, Game, steps
from ..engine import actions as A
from ..engine.consistency import MAX_STORED
from ..engine.data import (
    CARD_OF,
    DICE,
    DICE_PER_SEASON,
    GAUGE_MAX,
    NUM_CARDS,
    NUM_INSTANCES,
    RESERVE_LIMIT_GRIMOIRE,
    DieFace,
    instance_of,
)
from ..engine.serialization import MAX_CRYSTALS, MAX_TOKENS, STEP_ARGS
from ..engine.state import AMULET_INSTANCES

#: Bump when the layout or the meaning of any value changes (trained models depend on it; tests/test_golden.py).
#: New facts are appended as new slices, so a layout is a prefix of the next one: version 2 appended
#: ``piles``, ``game_dice``, ``opponents_turn`` and ``deferred_tokens`` (1,095 values before, 1,127 now).
OBSERVATION_VERSION = 2
#: The size of each version's vector: a model trained on an earlier version reads the first values.
OBSERVATION_SIZES = {1: 1095}
MAX_SEATS = 4
CAULDRON_INSTANCES = (instance_of(Card.GLUTTON_CAULDRON, 0), instance_of(Card.GLUTTON_CAULDRON, 1))
DECISION_KINDS = steps.decision_kinds()
DECISION_INDEX = {spec.kind: k for k, spec in enumerate(DECISION_KINDS)}

# Scales keep values near [0, 1] for typical positions; counts of cards and tokens stay raw.
CRYSTAL_SCALE = 100.0
GAUGE_SCALE = 15.0


@dataclass(frozen=True, slots=True)
class Slice:
    name: str
    start: int
    size: int
    doc: str

    @property
    def stop(self) -> int:
        return self.start + self.size


class Layout:
    """Named slices of the flat observation vector, in order."""

    def __init__(self) -> None:
        self.slices: list[Slice] = []
        self.size = 0

    def add(self, name: str, size: int, doc: str) -> int:
        self.slices.append(Slice(name, self.size, size, doc))
        self.size += size
        return self.size - size

    def __getitem__(self, name: str) -> Slice:
        for s in self.slices:
            if s.name == name:
                return s
        raise KeyError(name)


LAYOUT = Layout()
_L = LAYOUT.add
DECISION = _L("decision_kind", len(DECISION_KINDS), "one-hot: the decision being asked (docs/state_format.md)")
DECIDER = _L("decider", MAX_SEATS, "one-hot: seat that must decide, relative to the observer (0 = self)")
CTX_CARDS = _L("context_cards", NUM_CARDS, "counts: cards offered by the decision (shown to the decider only)")
CTX_CARD = _L("context_card", NUM_CARDS, "one-hot: the single card the decision is about (decider only)")
CTX_ENERGY = _L("context_energy", 4, "energy left to pay, or the type the decision is about (decider only)")
CTX_COUNT = _L("context_count", 1, "tokens/cards still to choose in this decision (decider only)")
CTX_SEAT = _L("context_seat", MAX_SEATS, "one-hot: the opponent a Naria gift goes to (decider only)")
YEAR = _L("year", 4, "one-hot: year 1, 2, 3, or past the end (Temporal Boots crossed 12 in year 3)")
POSITION = _L("season_position", 12, "one-hot: space 1..12 of the season wheel")
SEASON = _L("season", 4, "one-hot: winter, spring, summer, autumn")
DICE_SEASON = _L("dice_season", 4, "one-hot: the season the rolled dice belong to")
FIRST = _L("first_player", MAX_SEATS, "one-hot: first player of the round, relative seat")
TURN = _L("turn_player", MAX_SEATS, "one-hot: whose turn it is, relative seat (all zero between turns)")
#: The features of one die (one row of the ``dice`` slice).
DIE = Layout()
DIE_ROLLED = DIE.add("rolled", 1, "the die was rolled this round")
DIE_PIPS = DIE.add("pips", 3, "one-hot: the face's pips 1-3 (at index pips - 1)")
DIE_ENERGY = DIE.add("energy", 4, "energy tokens on the face, by type")
DIE_CRYSTALS = DIE.add("crystals", 1, "crystals on the face / 10")
DIE_TRANSMUTE = DIE.add("transmute", 1, "the face gives the transmute ability")
DIE_GAUGE = DIE.add("gauge", 1, "the face raises the summoning gauge")
DIE_DRAW = DIE.add("draw", 1, "the face draws a card")
DIE_UNTAKEN = DIE.add("untaken", 1, "nobody has taken the die yet")
DIE_TAKEN_BY = DIE.add("taken_by", MAX_SEATS, "one-hot: the relative seat that took the die")
DIE_FEATURES = DIE.size
DICE_SLICE = _L(
    "dice",
    DICE_PER_SEASON * DIE_FEATURES,
    f"per die of the season (5 x {DIE_FEATURES}): rolled, pips one-hot (1-3), energy (4), crystals/10, "
    "transmute, gauge, draw, untaken, taken by relative seat one-hot (4)",
)
SELF_SCALARS = _L(
    "self_scalars",
    9,
    "crystals/100, gauge/15, cards in play, reserve limit/10, hand size, library sizes (2), "
    "transmute ability, transmute bonus used",
)
SELF_BONUSES = _L("self_bonuses", 4, "one-hot: bonuses used 0..3")
SELF_RESERVE = _L("self_reserve", 4, "reserve tokens by type")
SELF_STORED = _L("self_stored", 16, "tokens on Amulet of Water copies 1, 2 and Glutton Cauldron copies 1, 2")
SELF_HAND = _L("self_hand", NUM_CARDS, "counts per card: hand")
SELF_LIBRARY2 = _L("self_library_year2", NUM_CARDS, "counts per card: library set of year 2")
SELF_LIBRARY3 = _L("self_library_year3", NUM_CARDS, "counts per card: library set of year 3")
SELF_IN_PLAY = _L("self_in_play", NUM_CARDS, "counts per card: cards in play")
SELF_TAPPED = _L("self_tapped", NUM_CARDS, "counts per card: tapped cards in play")
SELF_PACK = _L("self_draft_pack", NUM_CARDS, "counts per card: the draft pack held")
SELF_SEEN = _L("self_draft_seen", NUM_CARDS, "flags per card: seen in a pack and passed on during the draft")
SELF_ORB = _L("self_orb_seen", NUM_CARDS, "one-hot: the draw pile's top card as the observer's Crystal Orb showed it")
#: The features of one opponent (one row of the ``opponents`` slice).
OPPONENT = Layout()
OPP_PRESENT = OPPONENT.add("present", 1, "the seat is in the game")
OPP_SCALARS = OPPONENT.add(
    "scalars", 7, "crystals/100, gauge/15, cards in play, reserve limit/10, hand size, library sizes (2)"
)
OPP_BONUSES = OPPONENT.add("bonuses", 4, "one-hot: bonuses used 0..3")
OPP_RESERVE = OPPONENT.add("reserve", 4, "reserve tokens by type")
OPP_STORED = OPPONENT.add("stored", 16, "tokens on Amulet of Water copies 1, 2 and Glutton Cauldron copies 1, 2")
OPP_IN_PLAY = OPPONENT.add("in_play", NUM_CARDS, "counts per card: cards in play")
OPP_TAPPED = OPPONENT.add("tapped", NUM_CARDS, "counts per card: tapped cards in play")
OPP_FEATURES = OPPONENT.size
OPPONENTS = _L(
    "opponents",
    (MAX_SEATS - 1) * OPP_FEATURES,
    f"per opponent seat 1..3 to the left ({OPP_FEATURES} each): present; crystals/100, gauge/15, cards in play, "
    "reserve limit/10, hand size, library sizes (2); bonuses one-hot (4); reserve (4); stored tokens (16); "
    "cards in play per card (50); tapped per card (50)",
)
# Appended in version 2: public facts that version 1 did not show (what a player at the table sees).
PILE_SCALE = 100.0
PILES = _L("piles", 2, "cards in the draw pile / 100, cards in the discard pile / 100")
GAME_DICE = _L(
    "game_dice",
    4 * DICE_PER_SEASON,
    "per season (winter, spring, summer, autumn) x die (5): the die is one of this game's dice (public from the start)",
)
OPPONENTS_TURN = _L(
    "opponents_turn",
    2 * (MAX_SEATS - 1),
    "per opponent seat 1..3 to the left: in its turn, it may transmute; it used the transmute bonus this turn",
)
DEFERRED = _L(
    "deferred_tokens",
    MAX_SEATS,
    "per relative seat (0 = self): Hourglass of Time tokens owed after a Temporal Boots season change",
)
OBSERVATION_SIZE = LAYOUT.size
OBSERVATION_SIZES[OBSERVATION_VERSION] = OBSERVATION_SIZE

RESERVE_LIMIT_SCALE = 10.0


def _observation_high() -> np.ndarray:
    """The largest value each feature can take (every feature's smallest is 0).

    Each bound follows from the card set or the position format (``engine/serialization.py``), which every
    position obeys: two copies of each card (``NUM_INSTANCES`` cards in all), at most ``MAX_TOKENS`` tokens of a
    type in a reserve or owed, the storing cards' capacities, the dice's faces, the largest count a decision
    carries. Crystals alone are unbounded in principle: the encoder shows at most ``MAX_CRYSTALS`` (100,000, the
    position format's limit, far beyond any game's), so that the Gymnasium observation space is a finite box."""
    high = np.ones(OBSERVATION_SIZE, dtype=np.float32)  # one-hots and flags
    copies = NUM_INSTANCES // NUM_CARDS
    counts = [
        (CTX_CARDS, NUM_CARDS, copies),
        (SELF_HAND, NUM_CARDS, copies),
        (SELF_LIBRARY2, NUM_CARDS, copies),
        (SELF_LIBRARY3, NUM_CARDS, copies),
        (SELF_IN_PLAY, NUM_CARDS, copies),
        (SELF_TAPPED, NUM_CARDS, copies),
        (SELF_PACK, NUM_CARDS, copies),
        (CTX_ENERGY, 4, MAX_TOKENS),
        (SELF_RESERVE, 4, MAX_TOKENS),
        (PILES, 2, NUM_INSTANCES / PILE_SCALE),
        (DEFERRED, MAX_SEATS, 2 * NUM_INSTANCES),  # Hourglass of Time owes 1 or 2 tokens an entry
    ]
    for start, size, bound in counts:
        high[start : start + size] = bound
    context_counts = [
        rule.hi
        for args in STEP_ARGS.values()
        for name, rule in args.items()
        if name in ("count", "remaining", "waivers", "year")
    ]
    high[CTX_COUNT] = max(context_counts)
    faces = [face for season in DICE for die in season for face in die]
    for die in range(DICE_PER_SEASON):
        at = DICE_SLICE + die * DIE_FEATURES
        high[at + DIE_ENERGY : at + DIE_ENERGY + 4] = max(max(face.energy) for face in faces)
        high[at + DIE_CRYSTALS] = max(face.crystals for face in faces) / 10.0
    scalars = (
        MAX_CRYSTALS / CRYSTAL_SCALE,
        GAUGE_MAX / GAUGE_SCALE,
        NUM_INSTANCES,
        RESERVE_LIMIT_GRIMOIRE / RESERVE_LIMIT_SCALE,
        NUM_INSTANCES,
        NUM_INSTANCES,
        NUM_INSTANCES,
    )
    stored = [MAX_STORED[Card.AMULET_OF_WATER]] * 8 + [MAX_STORED[Card.GLUTTON_CAULDRON]] * 8
    high[SELF_SCALARS : SELF_SCALARS + 7] = scalars
    high[SELF_STORED : SELF_STORED + 16] = stored
    for k in range(MAX_SEATS - 1):
        at = OPPONENTS + k * OPP_FEATURES
        high[at + OPP_SCALARS : at + OPP_SCALARS + 7] = scalars
        high[at + OPP_RESERVE : at + OPP_RESERVE + 4] = MAX_TOKENS
        high[at + OPP_STORED : at + OPP_STORED + 16] = stored
        high[at + OPP_IN_PLAY : at + OPP_IN_PLAY + 2 * NUM_CARDS] = copies  # in play and tapped, per card
    high.flags.writeable = False
    return high


#: The observation space's bounds: every value the encoder writes lies in ``[OBSERVATION_LOW, OBSERVATION_HIGH]``
#: (``gymnasium.spaces.Box(OBSERVATION_LOW, OBSERVATION_HIGH)``).
OBSERVATION_HIGH = _observation_high()
OBSERVATION_LOW = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
OBSERVATION_LOW.flags.writeable = False


def _face_features(face: DieFace) -> tuple[float, ...]:
    """A rolled die's features from ``rolled`` to ``draw`` (the ``dice`` slice's row up to ``untaken``): the one
    place they are written (the compiled observation writer's table is made from ``FACE_FEATURES``)."""
    row = [0.0] * DIE_UNTAKEN
    row[DIE_ROLLED] = 1.0
    row[DIE_PIPS + face.pips - 1] = 1.0
    row[DIE_ENERGY : DIE_ENERGY + 4] = face.energy
    row[DIE_CRYSTALS] = face.crystals / 10.0
    row[DIE_TRANSMUTE] = face.transmute
    row[DIE_GAUGE] = face.gauge
    row[DIE_DRAW] = face.draw
    return tuple(row)


#: A bit for each card id, 1 to ``NUM_CARDS`` (``draft_seen`` shifted right by one).
_ALL_CARDS = (1 << NUM_CARDS) - 1
#: ``_face_features`` of every face, by season, die and face: one slice written a rolled die.
FACE_FEATURES = tuple(tuple(tuple(_face_features(face) for face in die) for die in season) for season in DICE)


def _rel(seat: int, observer: int, n: int) -> int:
    return (seat - observer) % n


#: The copies of the cards that store tokens, in the order of the ``stored`` slices' slots (4 values a slot).
SHOWN_STORES = AMULET_INSTANCES + CAULDRON_INSTANCES
_STORED_SLOT = {inst: k for k, inst in enumerate(SHOWN_STORES)}


def _player_stored(game: Game, player: int, out: np.ndarray, at: int) -> None:
    for inst in game.in_play[player]:
        k = _STORED_SLOT.get(inst)
        if k is not None:
            out[at + 4 * k : at + 4 * k + 4] = game.stored.get(inst, (0, 0, 0, 0))


def _public_scalars(game: Game, player: int) -> tuple[float, ...]:
    """Crystals/100, gauge/15, cards in play, reserve limit/10, hand size, library set sizes."""
    library = game.library[player]
    return (
        min(game.crystals[player], MAX_CRYSTALS) / CRYSTAL_SCALE,  # the box's bound (see _observation_high)
        game.gauge[player] / GAUGE_SCALE,
        len(game.in_play[player]),
        game.reserve_limit(player) / RESERVE_LIMIT_SCALE,
        len(game.hand[player]),
        len(library[0]),
        len(library[1]),
    )


def encode_observation(game: Game, observer: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of seat ``observer`` (float32, ``OBSERVATION_SIZE``)."""
    if out is None:
        out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    n = game.num_players
    task = game.pending_task()
    if task is not None:
        out[DECISION + DECISION_INDEX[task[0]]] = 1.0
        decider = task[1]
        out[DECIDER + _rel(decider, observer, n)] = 1.0
        if decider == observer:
            _encode_context(game, task, observer, out)
    out[YEAR + min(game.year, 4) - 1] = 1.0
    out[POSITION + game.position - 1] = 1.0
    out[SEASON + game.season] = 1.0
    out[DICE_SEASON + game.dice_season] = 1.0
    out[FIRST + _rel(game.first_player, observer, n)] = 1.0
    if game.turn_player >= 0:
        out[TURN + _rel(game.turn_player, observer, n)] = 1.0
    season_faces = FACE_FEATURES[game.dice_season]
    for die, face_index, owner in game.rolled:
        at = DICE_SLICE + die * DIE_FEATURES
        out[at : at + DIE_UNTAKEN] = season_faces[die][face_index]
        if owner < 0:
            out[at + DIE_UNTAKEN] = 1.0
        else:
            out[at + DIE_TAKEN_BY + _rel(owner, observer, n)] = 1.0
    # the observer's own facts
    p = observer
    library = game.library[p]
    out[SELF_SCALARS : SELF_SCALARS + 7] = _public_scalars(game, p)
    out[SELF_SCALARS + 7] = game.can_transmute(p)
    out[SELF_SCALARS + 8] = game.used_transmute_bonus(p)
    out[SELF_BONUSES + game.bonuses_used[p]] = 1.0
    out[SELF_RESERVE : SELF_RESERVE + 4] = game.reserve[p]
    _player_stored(game, p, out, SELF_STORED)
    for c in game.hand[p]:
        out[SELF_HAND + c - 1] += 1.0
    for c in library[0]:
        out[SELF_LIBRARY2 + c - 1] += 1.0
    for c in library[1]:
        out[SELF_LIBRARY3 + c - 1] += 1.0
    tapped = game.tapped
    for inst in game.in_play[p]:
        c = CARD_OF[inst]
        out[SELF_IN_PLAY + c - 1] += 1.0
        if tapped >> inst & 1:
            out[SELF_TAPPED + c - 1] += 1.0
    for c in game.draft_pack[p]:
        out[SELF_PACK + c - 1] += 1.0
    seen = game.draft_seen[p] >> 1 & _ALL_CARDS  # bit c - 1 for card c
    while seen:  # the set bits only: most of the 50 are clear
        lowest = seen & -seen
        out[SELF_SEEN + lowest.bit_length() - 1] = 1.0
        seen ^= lowest
    if game.orb_seen and game.orb_seen[0] == p:
        out[SELF_ORB + game.orb_seen[1] - 1] = 1.0
    # opponents: public facts only
    for k in range(1, n):
        q = (p + k) % n
        at = OPPONENTS + (k - 1) * OPP_FEATURES
        out[at + OPP_PRESENT] = 1.0
        out[at + OPP_SCALARS : at + OPP_SCALARS + 7] = _public_scalars(game, q)
        out[at + OPP_BONUSES + game.bonuses_used[q]] = 1.0
        out[at + OPP_RESERVE : at + OPP_RESERVE + 4] = game.reserve[q]
        _player_stored(game, q, out, at + OPP_STORED)
        for inst in game.in_play[q]:
            c = CARD_OF[inst]
            out[at + OPP_IN_PLAY + c - 1] += 1.0
            if tapped >> inst & 1:
                out[at + OPP_TAPPED + c - 1] += 1.0
        out[OPPONENTS_TURN + 2 * (k - 1)] = game.can_transmute(q)
        out[OPPONENTS_TURN + 2 * (k - 1) + 1] = game.used_transmute_bonus(q)
    # public facts appended in version 2
    out[PILES] = len(game.draw_pile) / PILE_SCALE
    out[PILES + 1] = len(game.discard_pile) / PILE_SCALE
    for season, dice in enumerate(game.game_dice):
        for die in dice:
            out[GAME_DICE + season * DICE_PER_SEASON + die] = 1.0
    for seat, tokens in game.deferred_tokens:
        out[DEFERRED + _rel(seat, observer, n)] += tokens
    return out


def _encode_context(game: Game, task: tuple, observer: int, out: np.ndarray) -> None:
    spec = steps.spec(task[0])
    n = game.num_players
    for name, value in zip(spec.args, task[2:], strict=True):
        if name == "cards":
            for c in value:
                out[CTX_CARDS + c - 1] += 1.0
        elif name == "card":
            out[CTX_CARD + value - 1] = 1.0
        elif name == "instance":
            out[CTX_CARD + CARD_OF[value] - 1] = 1.0
        elif name == "need":
            out[CTX_ENERGY : CTX_ENERGY + 4] = value
        elif name == "energy":
            out[CTX_ENERGY + value] = 1.0
        elif name in ("count", "remaining", "waivers"):
            out[CTX_COUNT] = value
        elif name == "recipients":
            out[CTX_SEAT + _rel(value[0], observer, n)] = 1.0
        elif name == "year":
            out[CTX_COUNT] = value
    if spec.name == "keep_or_discard":
        out[CTX_COUNT] = 1.0


def action_mask(game: Game, player: int, out: np.ndarray | None = None) -> np.ndarray:
    """int8 mask over the action table: the legal actions if ``player`` must decide now, else all zero."""
    if out is None:
        out = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    else:
        out.fill(0)
    if game.current_player == player:
        out[game.legal_action_list()] = 1
    return out


def observation_views(tensor: np.ndarray) -> dict[str, np.ndarray]:
    """Named views into one flat observation (or a ``[batch, OBSERVATION_SIZE]`` array), as OpenSpiel's
    observers offer them: one entry per slice of ``LAYOUT``, with ``dice`` shaped ``(..., 5, DIE_FEATURES)`` and
    ``opponents`` ``(..., 3, OPP_FEATURES)`` (rows laid out as ``DIE`` and ``OPPONENT`` name them). Writing
    into a view writes into ``tensor``."""
    if tensor.shape[-1] != OBSERVATION_SIZE:
        raise ValueError(f"an observation has {OBSERVATION_SIZE} values in its last axis; got shape {tensor.shape}")
    lead = tensor.shape[:-1]
    views = {}
    for part in LAYOUT.slices:
        view = tensor[..., part.start : part.stop]
        if part.name == "dice":
            view = view.reshape(*lead, DICE_PER_SEASON, DIE_FEATURES)
        elif part.name == "opponents":
            view = view.reshape(*lead, MAX_SEATS - 1, OPP_FEATURES)
        views[part.name] = view
    return views


def observation_layout_table(version: int = OBSERVATION_VERSION) -> str:
    """The layout of observation ``version`` as text, one line per fact a network's inputs depend on: each named
    slice (name, start, size) of the version's vector, each feature of a ``dice`` and an ``opponents`` row, the
    decision kinds in one-hot order and the cards in id order (every per-card slice follows it)."""
    if version not in OBSERVATION_SIZES:
        raise ValueError(f"no observation version {version!r}; the versions are {sorted(OBSERVATION_SIZES)}")
    size = OBSERVATION_SIZES[version]
    lines = [f"observation {version}: {size} values"]
    lines += [f"slice {s.name} {s.start} {s.size}" for s in LAYOUT.slices if s.stop <= size]
    lines += [f"die {s.name} {s.start} {s.size}" for s in DIE.slices]
    lines += [f"opponent {s.name} {s.start} {s.size}" for s in OPPONENT.slices]
    lines += [f"decision {k} {spec.name}" for k, spec in enumerate(DECISION_KINDS)]
    lines += [f"card {card.value} {card.name}" for card in Card]
    return "\n".join(lines) + "\n"


#: The layout digest of each observation version as released (``tests/test_learned_versions.py`` freezes them): what a
#: model saved before models recorded their layout was made for.
RELEASED_OBSERVATION_LAYOUTS = {
    1: "a700f54d6045929ac500fd2fe395a8384fa27d43bb3ccb9262269d00c59e4f5e",
    2: "5c96cc18f3f53dd214787bf97ad7d566ffaad939366a1bab537885a9732ecc8a",
}


def observation_layout_digest(version: int = OBSERVATION_VERSION) -> str:
    """The SHA-256 (hex) of ``observation_layout_table(version)``: saved models record it, and a model whose digest
    is not this code's for its version is refused (its inputs would mean something else)."""
    return hashlib.sha256(observation_layout_table(version).encode("utf-8")).hexdigest()


def observation_markdown() -> str:
    """The observation layout as a Markdown table (``docs/observation.md``)."""
    lines = [
        "| slice | start | size | contents |",
        "|---|---|---|---|",
        *(f"| `{s.name}` | {s.start} | {s.size} | {s.doc} |" for s in LAYOUT.slices),
        "",
        f"Total: {OBSERVATION_SIZE} float32 values (layout version {OBSERVATION_VERSION}). "
        "Decision kinds, in one-hot order: " + ", ".join(f"`{spec.name}`" for spec in DECISION_KINDS) + ".",
        "",
        "Each row of `dice`:",
        "",
        *_sub_layout_rows(DIE),
        "",
        "Each row of `opponents`:",
        "",
        *_sub_layout_rows(OPPONENT),
        "",
        "`seasons_env.encoding.observation_views(obs)` returns these slices as named numpy views.",
        "",
        "Every value is at least 0 and at most `seasons_env.encoding.OBSERVATION_HIGH` (the Gymnasium observation "
        "space is that box): 1 for one-hots and flags, 2 for counts per card (two copies of each), the position "
        f"format's limits for tokens ({MAX_TOKENS}) and cards ({NUM_INSTANCES}), the storing cards' capacities, the "
        "dice's largest faces, and for crystals the position format's limit: a seat's crystals are shown as at "
        f"most {MAX_CRYSTALS:,} (crystals/100 at most {MAX_CRYSTALS / CRYSTAL_SCALE:g}), far beyond any game's.",
    ]
    return "\n".join(lines) + "\n"


def _sub_layout_rows(layout: Layout) -> list[str]:
    return [
        "| feature | offset | size | contents |",
        "|---|---|---|---|",
        *(f"| `{s.name}` | {s.start} | {s.size} | {s.doc} |" for s in layout.slices),
    ]
