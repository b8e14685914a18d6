"""A readable text board (the ``ansi`` render mode and the terminal game)."""

from __future__ import annotations

import numbers

from .engine import Game
from .engine.actions import describe_action
from .engine.data import CARD_NAMES, CARD_OF, DICE, ENERGIES, MAX_BONUSES, SEASONS, TRANSMUTE_RATE

_ENERGY_SHORT = {"water": "W", "earth": "E", "fire": "F", "air": "A"}


def _tokens(tokens) -> str:
    parts = [f"{n}{_ENERGY_SHORT[e]}" for e, n in zip(ENERGIES, tokens, strict=True) if n]
    return " ".join(parts) if parts else "-"


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


def render_text(game: Game, viewer: int | None = None) -> str:
    """The board as text. With ``viewer`` set, only what that seat may know is shown of other seats (their
    hidden cards as counts, the name of their pending decision without its options); ``None`` is the god view
    (every hand, draft pack and library, and the options of whoever decides), labelled as such."""
    if viewer is not None and (
        isinstance(viewer, bool) or not isinstance(viewer, numbers.Integral) or not 0 <= viewer < game.num_players
    ):
        raise ValueError(f"viewer must be None (god view) or a seat 0..{game.num_players - 1}; got {viewer!r}")
    lines = [
        f"Seasons - {game.num_players} players, {game.level} - year {min(game.year, 3)}"
        f"{' (past the end)' if game.year > 3 else ''}, {SEASONS[game.season]} (space {game.position}/12),"
        f" first player {game.first_player}"
        + (" - god view: every hand, pack and library shown" if viewer is None else f" - as seen by player {viewer}"),
        "Transmuting a token now gives "
        + ", ".join(f"{e} {r}" for e, r in zip(ENERGIES, TRANSMUTE_RATE[game.season], strict=True))
        + " crystals (tokens: W water, E earth, F fire, A air)",
    ]
    if game.rolled:
        dice = []
        for die, face_index, owner in game.rolled:
            taker = f" -> player {owner}" if owner >= 0 else ""
            dice.append(f"die {die + 1} {face_label(game.dice_season, die, face_index)}{taker}")
        lines.append("Dice: " + " | ".join(dice))
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
            f"{marker} player {p}{you}: {game.crystals[p]} crystals, reserve {_tokens(game.reserve[p])}, "
            f"summoning gauge {game.gauge[p]} ({len(game.in_play[p])} in play), "
            f"bonuses used {game.bonuses_used[p]}/{MAX_BONUSES}"
        )
        lines.append(f"    in play: {', '.join(in_play) if in_play else '-'}")
        if viewer is None or viewer == p:
            hand = ", ".join(CARD_NAMES[c] for c in game.hand[p]) or "-"
            lines.append(f"    hand: {hand}")
            if game.draft_pack[p]:
                lines.append(f"    draft pack: {', '.join(CARD_NAMES[c] for c in game.draft_pack[p])}")
            year2, year3 = game.library[p]
            if year2 or year3:
                lines.append(
                    "    library: year 2: "
                    + (", ".join(CARD_NAMES[c] for c in year2) or "-")
                    + "; year 3: "
                    + (", ".join(CARD_NAMES[c] for c in year3) or "-")
                )
        else:
            pack = f", draft pack {len(game.draft_pack[p])} cards" if game.draft_pack[p] else ""
            lines.append(
                f"    hand: {len(game.hand[p])} cards, library {sum(len(s) for s in game.library[p])} cards{pack}"
            )
    lines.append(f"Draw pile {len(game.draw_pile)}, discard pile {len(game.discard_pile)}")
    if game.is_over:
        lines.append(f"Game over. Scores {game.scores()}, winners {game.winners()}")
    elif viewer is None or viewer == game.current_player:
        legal = game.legal_action_list()
        shown = ", ".join(describe_action(a) for a in legal[:8])
        more = f" (+{len(legal) - 8} more)" if len(legal) > 8 else ""
        lines.append(f"Player {game.current_player} decides: {game.pending_decision}: {shown}{more}")
    else:  # another seat's options may name its hidden cards (its draft pack, its hand): only the decision
        lines.append(f"Player {game.current_player} decides: {game.pending_decision}")
    return "\n".join(lines)
