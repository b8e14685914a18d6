"""What the page of ``seasons play --web`` is told in words: the cards' printed facts, the options and moves as a
seat may know them, and what a score is made of.

Every function here reads a seat's *view* of the game (``web_game.seat_view``) and names a card only where that
seat may know it: a card in play is public, a card chosen from a hand, a pack or a draw only if
``seasons_env.rendering.card_choice_is_public`` says so (or the seat chose it), and the card a pending decision
looks at only for its decider.
"""

from __future__ import annotations

from collections.abc import Sequence

from seasons_env import Game
from seasons_env.engine import steps
from seasons_env.engine.actions import decode, instance_of_activation
from seasons_env.engine.data import (
    BONUS_PENALTIES,
    CARD_NAMES,
    CARD_OF,
    CARDS,
    DICE,
    ENERGIES,
    HAND_PENALTY,
    PRESTIGE,
)
from seasons_env.rendering import card_choice_is_public, decision_words

from .human import option_label

#: What choosing an energy type does, by decision: whether the token is gained, discarded, returned or paid.
ENERGY_CHOICES: dict[str, str] = {
    "gain_energy": "gain 1 {energy} token",
    "overflow": "discard 1 {energy} token (the reserve is over its limit)",
    "exchange_discard": "return 1 {energy} token (exchange bonus)",
    "glutton_cauldron": "move 1 {energy} token onto Glutton Cauldron",
    "hand_of_fortune": "Hand of Fortune saves 1 {energy} token of the cost",
    "balance_of_ishtar": "discard 3 {energy} tokens (Balance of Ishtar: 9 crystals)",
    "mirror_from": "Mirror of the Seasons: give up {energy} tokens",
    "mirror_to": "Mirror of the Seasons: receive {energy} tokens",
}
#: What paying a token does, by decision (``{source}``: the reserve or an Amulet of Water).
PAY_CHOICES: dict[str, str] = {
    "pay_source": "pay 1 {energy} token from {source}",
    "discard_tokens": "discard 1 {energy} token from {source} (the effect's cost)",
    "damned_soul_water": "pay 1 {energy} token from {source} to pass Damned Soul of Onys on",
}
SOURCE_WORDS = ("the reserve", "Amulet of Water", "Amulet of Water")
#: The single actions that act on the card the decision is about (named for its decider).
ACTS_ON_THE_DECISIONS_CARD = frozenset({"KEEP_CARD", "DISCARD_CARD", "ORB_LEAVE", "ORB_PLAY"})


def energy_words(tokens: Sequence[int]) -> str:
    """Energy tokens in words, in the page's notation: ``2 water, 1 fire`` (``no energy`` when none)."""
    parts = [f"{n} {energy}" for energy, n in zip(ENERGIES, tokens, strict=True) if n]
    return ", ".join(parts) if parts else "no energy"


def cost_words(cost: Sequence[int]) -> str:
    """A card's cost ``(water, earth, fire, air, crystals)`` in words (``free`` when nothing)."""
    parts = [f"{n} {energy}" for energy, n in zip(ENERGIES, cost[:4], strict=True) if n]
    if cost[4]:
        parts.append(f"{cost[4]} crystals")
    return " + ".join(parts) if parts else "free"  # as the summon options write a cost


def card_facts(card: int, num_players: int) -> dict:
    """A card's printed facts from the package's card data: name, type, cost (for ``num_players``), prestige
    points and effect text."""
    facts = CARDS[card]
    return {
        "name": facts.name,
        "type": "magic item" if facts.is_item else "familiar",
        "cost": cost_words(facts.cost[num_players]),
        "prestige": facts.prestige,
        "effect": facts.effect,
    }


def face_words(season: int, die: int, face_index: int) -> str:
    """A die face in the page's notation (the order and words the drawn die uses): pips, energy, crystals, gauge,
    transmutation, card."""
    face = DICE[season][die][face_index]
    parts = []
    if any(face.energy):
        parts.append(energy_words(face.energy))
    if face.crystals:
        parts.append(f"+{face.crystals} crystals")
    if face.gauge:
        parts.append("gauge +1")
    if face.transmute:
        parts.append("transmute")
    if face.draw:
        parts.append("draw a card")
    return "●" * face.pips + " " + ", ".join(parts)


def _task_args(view: Game) -> dict:
    task = view.pending_task()
    if task is None:
        return {}
    return dict(zip(steps.spec(task[0]).args, task[2:], strict=True))


def move_label(view: Game, actor: int, action: int, own: bool) -> str:
    """``actor`` taking ``action`` in ``view`` (a seat's view of the position before it) in words: whether an
    energy token is gained, discarded, returned or paid, the die's face, and the card the move concerns. ``own``:
    the seat that reads it is ``actor`` (it knows the cards of its own decision); else a card chosen in secret is
    not named."""
    group, k = decode(action)
    decision = view.pending_decision or ""
    if group == "CHOOSE_CARD" and not own and not card_choice_is_public(view, action):
        return f"{decision_words(decision)} (a card you do not see)"
    args = _task_args(view)
    if group == "TAKE_DIE":
        for die, face, _owner in view.rolled:
            if die == k:
                return f"take season die {k + 1}: {face_words(view.dice_season, die, face)}"
    if group == "CHOOSE_ENERGY" and decision in ENERGY_CHOICES:
        label = ENERGY_CHOICES[decision].format(energy=ENERGIES[k])
        onto = args.get("onto", -1)
        return label + (f" onto {CARD_NAMES[CARD_OF[onto]]}" if onto >= 0 else "")
    if group == "PAY" and decision in PAY_CHOICES:
        return PAY_CHOICES[decision].format(energy=ENERGIES[k % 4], source=SOURCE_WORDS[k // 4])
    label = option_label(view, actor, action)
    if own and group in ACTS_ON_THE_DECISIONS_CARD and "card" in args:
        label += f" ({CARD_NAMES[args['card']]})"
    return label


def move_card(view: Game, actor: int, action: int, own: bool) -> str | None:
    """The card ``move_label`` names (for its text on the page), or None: a card in play, a card chosen where
    the reader may know it, or the card its own decision looks at."""
    group, k = decode(action)
    if group == "SUMMON":
        return CARD_NAMES[k + 1]
    if group == "CHOOSE_CARD":
        return CARD_NAMES[k + 1] if own or card_choice_is_public(view, action) else None
    if group in ("ACTIVATE", "CHOOSE_IN_PLAY"):
        return CARD_NAMES[CARD_OF[instance_of_activation(action) if group == "ACTIVATE" else k]]
    args = _task_args(view)
    if own and group in ACTS_ON_THE_DECISIONS_CARD and "card" in args:
        return CARD_NAMES[args["card"]]
    for key in ("instance", "onto"):  # a card in play that the decision concerns (public)
        if args.get(key, -1) >= 0:
            return CARD_NAMES[CARD_OF[args[key]]]
    return None


def score_parts(game: Game, player: int) -> dict:
    """What ``player``'s score counts (public facts): crystals, plus the prestige of the cards in play, minus the
    bonus penalty and 5 per card left in hand; ``score`` is their sum (the final score once the game is over:
    the end-of-game cards' crystals are then among the crystals)."""
    crystals = int(game.crystals[player])
    prestige = sum(PRESTIGE[CARD_OF[i]] for i in game.in_play[player])
    bonus = BONUS_PENALTIES[game.bonuses_used[player]]
    hand = HAND_PENALTY * len(game.hand[player])
    return {
        "crystals": crystals,
        "prestige": int(prestige),
        "bonus_penalty": int(bonus),
        "hand_penalty": int(hand),
        "cards_in_hand": len(game.hand[player]),
        "score": int(game.scores()[player]),
    }
