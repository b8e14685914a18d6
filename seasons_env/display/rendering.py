"""A readable text board (the ``ansi`` render mode, the terminal game and replays at the terminal).

``render_text(game, viewer=seat)`` shows exactly what ``seat`` knows: every public fact its observation carries
(``encoding.py``) and its own private facts (hand, library, draft pack, what it saw in the draft and through a
Crystal Orb, the cards and costs of its pending decision), and of other seats' hidden cards only their counts.
``docs/human_channels.md`` lists what each channel shows.
"""

from __future__ import annotations

import numbers

from ..engine import Game, steps
from ..engine.actions import decode, describe_action
from ..engine.data import CARD_NAMES, CARD_OF, DICE, ENERGIES, MAX_BONUSES, NUM_CARDS, SEASONS, TRANSMUTE_RATE

_ENERGY_SHORT = {"water": "W", "earth": "E", "fire": "F", "air": "A"}

#: The card choices that are public when the chosen card enters play: everyone sees it arrive (without room, a
#: Divine Chalice's card is discarded face down instead, RULES.md section 9).
_CHOICES_INTO_PLAY = frozenset({"divine_chalice", "potion_of_dreams"})


def counted(number: int, noun: str) -> str:
    """``number`` and ``noun``, plural unless it is one: ``1 crystal``, ``0 cards``, ``-2 crystals``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def outcome_text(game: Game) -> str:
    """The end of a finished game in words: each player's score and the winner(s)."""
    scores = ", ".join(f"player {p} {score}" for p, score in enumerate(game.scores()))
    winners = game.winners()
    who = ", ".join(f"player {p}" for p in winners)
    return f"Game over. Scores: {scores}; {'winners' if len(winners) > 1 else 'winner'}: {who}"


def _tokens(tokens) -> str:
    parts = [f"{n}{_ENERGY_SHORT[e]}" for e, n in zip(ENERGIES, tokens, strict=True) if n]
    return " ".join(parts) if parts else "-"


def _names(cards) -> str:
    return ", ".join(CARD_NAMES[c] for c in cards) or "-"


def _energy_words(tokens) -> str:
    parts = [f"{n} {e}" for e, n in zip(ENERGIES, tokens, strict=True) if n]
    return " + ".join(parts) if parts else "nothing"


def face_label(season: int, die: int, face_index: int) -> str:
    """A die face in words (its energy, crystals, gauge, card draw and transmutation symbols)."""
    face = DICE[season][die][face_index]
    parts = []
    if any(face.energy):
        parts.append(_tokens(face.energy))
    if face.crystals:
        parts.append(f"+{face.crystals}c")
    if face.transmute:
        parts.append("transmute")
    if face.gauge:
        parts.append("gauge+1")
    if face.draw:
        parts.append("draw")
    return f"[{face.pips}] " + ", ".join(parts)


def check_viewer(game: Game, viewer: object, name: str = "viewer") -> None:
    """``viewer`` must be ``None`` (the god view) or a seat of ``game``: a ``ValueError`` naming ``name`` if not."""
    if viewer is not None and (
        isinstance(viewer, bool) or not isinstance(viewer, numbers.Integral) or not 0 <= viewer < game.num_players
    ):
        raise ValueError(f"{name} must be None (god view) or a seat 0..{game.num_players - 1}; got {viewer!r}")


def decision_context(game: Game, viewer: int | None) -> list[str]:
    """What the pending decision is about, as its decider knows it (the observation's context slices): the card or
    cards it looks at, the energy still to pay, how many tokens or cards are left, who receives, the year. Only the
    decider (and the god view, ``None``) is shown it: for another seat it is empty."""
    task = game.pending_task()
    if task is None or (viewer is not None and viewer != task[1]):
        return []
    spec = steps.spec(task[0])
    parts = []
    for arg, value in zip(spec.args, task[2:], strict=True):
        if arg == "card" and spec.name == "crystal_orb_seen":
            parts.append(f"the draw pile's top card: {CARD_NAMES[value]}")
        elif arg in _CONTEXT_WORDS:
            parts.append(_CONTEXT_WORDS[arg](value))
    return parts


#: How a pending step's argument reads in the seat's view (``decision_context``), by the argument's name.
_CONTEXT_WORDS = {
    "card": lambda value: f"the card: {CARD_NAMES[value]}",
    "cards": lambda value: f"the cards: {_names(value)}",
    "instance": lambda value: f"the card in play: {CARD_NAMES[CARD_OF[value]]}",
    "need": lambda value: f"still to pay: {_energy_words(value)}",
    "energy": lambda value: f"energy: {ENERGIES[value]}",
    "count": lambda value: f"tokens still to choose: {value}",
    "remaining": lambda value: f"cards still to choose: {value}",
    "waivers": lambda value: f"tokens Hand of Fortune may save: {value}",
    "recipients": lambda value: f"given to player {value[0]}",
    "year": lambda value: f"for the library of year {value}",
}


def decision_words(decision: str | None) -> str:
    """A pending decision's kind in words (its step's description), for pages that show whose decision it is:
    never the step's internal name. ``None`` (no decision pending) reads "the game is over"."""
    if decision is None:
        return "the game is over"
    spec = steps.STEP_BY_NAME.get(decision)
    return spec.doc if spec is not None and spec.doc else "a decision"


def card_choice_is_public(game: Game, action: int) -> bool:
    """Whether the other seats learn which card the decider of ``game`` chooses with ``action``: only when the card
    enters play (Divine Chalice with room, Potion of Dreams). A card chosen from a hand, a pack or drawn cards that
    goes to a hand, a library or the discard pile stays hidden. Actions other than a card choice are public."""
    if decode(action)[0] != "CHOOSE_CARD":
        return True
    task = game.pending_task()
    return task is not None and steps.spec(task[0]).name in _CHOICES_INTO_PLAY and game.has_room(task[1])


def game_dice_text(game: Game) -> str:
    """The game's dice of every season (public from the start: which of the five dice each season uses)."""
    return "; ".join(
        f"{season} {', '.join(str(d + 1) for d in sorted(dice))}"
        for season, dice in zip(SEASONS, game.game_dice, strict=True)
    )


def deferred_text(game: Game) -> str | None:
    """The Hourglass of Time tokens owed at the end of the turn (after a Temporal Boots season change), or None."""
    if not game.deferred_tokens:
        return None
    owed = ", ".join(f"player {p} {n} token{'s' * (n != 1)}" for p, n in game.deferred_tokens)
    return f"Hourglass of Time tokens owed at the end of this turn: {owed}"


def turn_text(game: Game, player: int) -> str | None:
    """The turn facts of ``player`` while its turn is under way (its transmute ability and bonus), or None."""
    if game.turn_player != player:
        return None
    ability = "may transmute" if game.can_transmute(player) else "may not transmute"
    bonus = "; transmute bonus used" if game.used_transmute_bonus(player) else ""
    return f"its turn: {ability}{bonus}"


def draft_seen_cards(game: Game, player: int) -> list[int]:
    """The cards ``player`` saw in a pack and passed on during the draft (its memory of the draft)."""
    seen = game.draft_seen[player]
    return [c for c in range(1, NUM_CARDS + 1) if seen >> c & 1]


def orb_card(game: Game, player: int) -> int | None:
    """The draw pile's top card as ``player``'s Crystal Orb showed it (while it is still the top card), or None."""
    return game.orb_seen[1] if game.orb_seen and game.orb_seen[0] == player else None


def render_text(game: Game, viewer: int | None = None, outcome: bool = True) -> str:
    """The board as text. With ``viewer`` set, only what that seat may know is shown of other seats (their
    hidden cards as counts, the name of their pending decision without its options); ``None`` is the god view
    (every hand, draft pack and library, and the options of whoever decides), labelled as such. ``outcome=False``
    leaves out the last line of a finished game (the scores and winners), for a caller that tells them itself."""
    check_viewer(game, viewer)
    lines = [
        f"Seasons - {game.num_players} players, {game.level} - year {min(game.year, 3)}"
        f"{' (past the end)' if game.year > 3 else ''}, {SEASONS[game.season]} (space {game.position}/12),"
        f" first player {game.first_player}"
        + (" - god view: every hand, pack and library shown" if viewer is None else f" - as seen by player {viewer}"),
        "Crystals for transmuting a token now: "
        + ", ".join(f"{e} {r}" for e, r in zip(ENERGIES, TRANSMUTE_RATE[game.season], strict=True))
        + " (tokens: W water, E earth, F fire, A air)",
        f"Game dice: {game_dice_text(game)}",
    ]
    if game.rolled:
        dice = []
        for die, face_index, owner in game.rolled:
            taker = f" -> player {owner}" if owner >= 0 else ""
            dice.append(f"die {die + 1} {face_label(game.dice_season, die, face_index)}{taker}")
        lines.append(f"Dice ({SEASONS[game.dice_season]}): " + " | ".join(dice))
    owed = deferred_text(game)
    if owed is not None:
        lines.append(owed)
    for p in range(game.num_players):
        marker = ">" if game.current_player == p else " "
        in_play = []
        for inst in game.in_play[p]:
            name = CARD_NAMES[CARD_OF[inst]]
            if game.tapped >> inst & 1:
                name += " (tapped)"
            if inst in game.stored:
                name += f" [{_tokens(game.stored[inst])}]"
            in_play.append(name)
        you = " (you)" if viewer == p else ""
        lines.append(
            f"{marker} player {p}{you}: {counted(game.crystals[p], 'crystal')}, reserve {_tokens(game.reserve[p])} "
            f"({sum(game.reserve[p])}/{game.reserve_limit(p)}), summoning gauge {game.gauge[p]} "
            f"({len(game.in_play[p])} in play), bonuses used {game.bonuses_used[p]}/{MAX_BONUSES}"
        )
        turn = turn_text(game, p)
        if turn is not None:
            lines.append(f"    {turn}")
        lines.append(f"    in play: {', '.join(in_play) if in_play else '-'}")
        year2, year3 = game.library[p]
        if viewer is None or viewer == p:
            lines.append(f"    hand: {_names(game.hand[p])}")
            if game.draft_pack[p]:
                lines.append(f"    draft pack: {_names(game.draft_pack[p])}")
            if year2 or year3:
                lines.append(f"    library: year 2: {_names(year2)}; year 3: {_names(year3)}")
            seen = draft_seen_cards(game, p)
            if seen:
                lines.append(f"    seen in the draft and passed on: {_names(seen)}")
            orb = orb_card(game, p)
            if orb is not None:
                lines.append(f"    Crystal Orb showed the draw pile's top card: {CARD_NAMES[orb]}")
        else:
            pack = f", draft pack {counted(len(game.draft_pack[p]), 'card')}" if game.draft_pack[p] else ""
            library = f"library {len(year2)} + {counted(len(year3), 'card')} (years 2 and 3)"
            lines.append(f"    hand: {counted(len(game.hand[p]), 'card')}, {library}{pack}")
    lines.append(f"Draw pile {len(game.draw_pile)}, discard pile {len(game.discard_pile)}")
    if game.is_over:
        if outcome:
            lines.append(outcome_text(game))
    elif viewer is None or viewer == game.current_player:
        legal = game.legal_action_list()
        shown = ", ".join(describe_action(a) for a in legal[:8])
        more = f" (+{len(legal) - 8} more)" if len(legal) > 8 else ""
        context = decision_context(game, viewer)
        about = f" ({'; '.join(context)})" if context else ""
        lines.append(f"Player {game.current_player} decides: {game.pending_decision}{about}: {shown}{more}")
    else:  # another seat's options may name its hidden cards (its draft pack, its hand): only the decision
        lines.append(f"Player {game.current_player} decides: {game.pending_decision}")
    return "\n".join(lines)
