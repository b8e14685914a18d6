"""A person at the terminal: the board from their seat, the decision in plain words, a numbered list to pick from.

``run_terminal_game`` plays one game against agents (``seasons_agents.base.play_game`` runs it), telling the person
what the other players do (without the cards they may not see) and printing the scores at the end.
"""

from __future__ import annotations

import inspect
import re
import secrets
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from seasons_env import Game, describe_action
from seasons_env.engine import steps
from seasons_env.engine.actions import SEASON_MOVES, decode, instance_of_activation
from seasons_env.engine.data import CARD_BY_NAME, CARD_NAMES, CARDS, ENERGIES, SEASONS, TRANSMUTE_RATE, card_of
from seasons_env.files import OutputPathError, check_output_file
from seasons_env.interrupts import held_signals
from seasons_env.rendering import card_choice_is_public, counted, face_label, render_text
from seasons_env.replay import MAX_SEED, make_record, write_record

from .base import Agent, GameRecord, play_game

#: What each decision asks, as a short line above the options (formatted with the step's arguments).
DECISION_PROMPTS: dict[str, str] = {
    "draft_pick": "Draft: pick a card from the pack you hold; the rest is passed to the next player.",
    "library_split": "Build your library: choose a card from your hand to set aside for year {year}.",
    "choose_die": "Take one of the rolled season dice.",
    "die_of_malice_window": "Use your die as rolled, or first activate Die of Malice to reroll it.",
    "draw_symbol": "Your die shows a card: draw it, or use the draw bonus (draw 2, keep 1).",
    "keep_or_discard": "You drew {card}: keep it in your hand or discard it.",
    "keep_one": "Keep one of the drawn cards ({cards}); the others are discarded.",
    "turn": "Your turn: choose an action, or end the turn.",
    "gain_energy": "Choose the type of energy token you gain ({count} to choose{onto}).",
    "overflow": "Your reserve holds more than {limit} tokens: choose a token to discard.",
    "exchange_discard": "Exchange bonus: choose a reserve token to give back ({count} to go).",
    "elemental_amulet_set": "Elemental Amulet: choose the set of different energy types you pay.",
    "hand_of_fortune": "Hand of Fortune: choose the token it saves from the cost ({need}).",
    "pay_source": "Paying {need}: choose where the next token comes from.",
    "discard_tokens": "Discard {count} energy token(s) to pay the cost: choose the next one.",
    "balance_of_ishtar": "Balance of Ishtar: choose the type of the 3 identical tokens to discard (9 crystals).",
    "temporal_boots": "Temporal Boots: move the season marker 1 to 3 spaces forward or backward.",
    "divine_chalice": "Divine Chalice: choose the drawn card to put into play for free ({cards}).",
    "syllas_sacrifice": "Syllas the Faithful: sacrifice one of your cards in play.",
    "naria_keep": "Naria the Prophetess: keep one of the drawn cards ({cards}).",
    "naria_give": "Naria the Prophetess: choose the card given to player {recipient}.",
    "amsug_return": "Amsug Longneck: return one of your magic items in play to your hand.",
    "lewis_greyface": "Lewis Greyface: choose the opponent whose reserve you copy.",
    "potion_of_dreams": "Potion of Dreams: choose a card from your hand to put into play for free.",
    "tree_of_light": "Tree of Light: pay 3 crystals for 1 energy, or discard 1 energy to be able to transmute.",
    "crystal_orb": "Crystal Orb: look at the top card of the draw pile, or pay 3 crystals to discard it.",
    "crystal_orb_seen": "Crystal Orb: the top card is {card}: leave it, or discard 4 energy to put it into play.",
    "glutton_cauldron": "Glutton Cauldron: choose the reserve token moved onto it.",
    "vampiric_crown": "Vampiric Crown: draw a card, or discard one from your hand.",
    "vampiric_crown_discard": "Vampiric Crown: choose the card from your hand to discard.",
    "dragon_skull": "Dragon Skull: choose a card of yours in play to sacrifice ({remaining} to go).",
    "necrotic_kriss": "Necrotic Kriss: discard a familiar from your hand or sacrifice one in play.",
    "mirror_from": "Mirror of the Seasons: choose the type of the tokens you give up.",
    "mirror_count": "Mirror of the Seasons: how many {energy} tokens do you change (1 crystal each)?",
    "mirror_to": "Mirror of the Seasons: choose the type of the {count} tokens you receive.",
    "damned_soul_water": "Damned Soul of Onys: choose the water token paid to pass it to the player on your left.",
}

#: One or two sentences per decision, for the ``help`` command.
DECISION_HELP: dict[str, str] = {
    "draft_pick": "Each player keeps one card of the pack they hold and passes the rest on, until everyone has "
    "9 cards; these 9 are all the cards you start the game with.",
    "library_split": "Your 9 drafted cards are split into 3 for year 1 (your hand), 3 set aside for year 2 and 3 "
    "for year 3; a set joins your hand when its year begins.",
    "choose_die": "Every round the season's dice are rolled and each player takes one: its energy, crystals, "
    "gauge star, card symbol and transmute symbol are yours this turn; the die nobody takes moves the season "
    "marker by its pips.",
    "die_of_malice_window": "Die of Malice lets you reroll the die you took, use the new face and gain 2 crystals; "
    "choosing the die as rolled goes on to its actions.",
    "draw_symbol": "The card symbol on your die draws 1 card (keep or discard it); the draw bonus draws 2 instead "
    "and keeps 1, but uses one of your 3 bonuses (they cost 5, 12 and 20 prestige at the end).",
    "keep_or_discard": "A kept card goes to your hand (5 prestige lost for each card still in hand at the end); "
    "a discarded card goes face down to the discard pile.",
    "keep_one": "You drew several cards: the one you choose goes to your hand, the rest are discarded.",
    "turn": "Summon cards from your hand (gauge must exceed your cards in play), activate untapped cards, transmute "
    "tokens into crystals if your die or a bonus allows it, use a bonus (exchange, transmute +1, gauge +1; "
    "each costs prestige at the end), or end the turn.",
    "gain_energy": "Pick the type of each token you gain. Several tokens are chosen one at a time in the order "
    "water, earth, fire, air, so types before your last choice are not offered again.",
    "overflow": "Your reserve may hold only 7 tokens (10 with Bespelled Grimoire): discard down to the limit, "
    "choosing in the order water, earth, fire, air.",
    "exchange_discard": "The exchange bonus gives back 2 tokens of your reserve (chosen in type order) and then "
    "lets you pick 2 tokens of any types.",
    "elemental_amulet_set": "Elemental Amulet costs any set of different energy types; for each type paid: water "
    "gives 2 energy, earth 5 crystals, fire draws a card, air adds 1 to your gauge.",
    "hand_of_fortune": "Each Hand of Fortune you have lowers a summoning cost by one energy token of your choice "
    "(never below 1 token).",
    "pay_source": "You hold tokens of this type both in your reserve and on an Amulet of Water: choose which to spend.",
    "discard_tokens": "The card's effect costs energy tokens of any types: choose them one at a time (in a fixed "
    "order, so earlier kinds are not offered again).",
    "balance_of_ishtar": "Balance of Ishtar discards 3 identical tokens from your reserve to gain 9 crystals.",
    "temporal_boots": "Temporal Boots moves the season marker; moving it past the end of year 3 ends the game "
    "this round.",
    "divine_chalice": "Divine Chalice drew 4 cards: the one you choose enters play for free (if you have gauge "
    "room), the others are discarded.",
    "syllas_sacrifice": "An opponent summoned Syllas the Faithful: each of their opponents, you among them, "
    "sacrifices one of their own cards in play.",
    "naria_keep": "Naria drew one card per player: keep one, then give one to each opponent.",
    "naria_give": "Give one of the remaining drawn cards to the named opponent.",
    "amsug_return": "Amsug Longneck makes every player return one of their magic items in play to their hand.",
    "lewis_greyface": "Lewis Greyface gives you the same number and kinds of energy tokens as the chosen "
    "opponent's reserve holds.",
    "potion_of_dreams": "Potion of Dreams is sacrificed with your whole reserve; the chosen card of your hand "
    "enters play for free.",
    "tree_of_light": "Tree of Light: either pay 3 crystals for 1 energy of your choice, or discard 1 energy to be "
    "able to transmute for the rest of the round.",
    "crystal_orb": "Crystal Orb: look at the top card of the draw pile (then leave it or play it), or pay 3 "
    "crystals to send it to the discard pile.",
    "crystal_orb_seen": "You may discard 4 energy to put the card you saw into play for free, or leave it on "
    "the draw pile.",
    "glutton_cauldron": "Move one token of your reserve onto Glutton Cauldron; at 7 it is sacrificed, the 7 go to "
    "your reserve and you gain 15 crystals.",
    "vampiric_crown": "Vampiric Crown: draw a card (you keep it) or discard a card from your hand; you gain energy "
    "equal to that card's prestige.",
    "vampiric_crown_discard": "The discarded card's prestige is the number of energy tokens you gain.",
    "dragon_skull": "Dragon Skull sacrifices 3 of your cards in play for 15 crystals; they are chosen one at a "
    "time in a fixed order.",
    "necrotic_kriss": "Necrotic Kriss: discard a familiar from your hand or sacrifice one of yours in play to "
    "gain 4 energy tokens.",
    "mirror_from": "Mirror of the Seasons turns X identical tokens of your reserve into X tokens of another type "
    "for X crystals: first the type you give up.",
    "mirror_count": "How many tokens to change; each costs 1 crystal.",
    "mirror_to": "The type of the tokens you receive in exchange.",
    "damned_soul_water": "Passing Damned Soul of Onys to your left costs a water token: choose where it comes from.",
}

COMMANDS_HELP = (
    "Commands: type the number of an option to choose it; h or help: this help; b or board: show the board and "
    "the options again; c or cards: the text of the cards you hold and those in the options (c NAME: any card "
    "whose name contains NAME); q or quit: stop the game."
)

ELEMENTAL_AMULET = CARD_BY_NAME["Elemental Amulet"]


#: An option number: ASCII digits only (``str.isdigit`` also accepts "²" and "①", which ``int`` rejects).
ASCII_NUMBER = re.compile(r"[0-9]+")


class QuitGame(Exception):
    """The person asked to stop the game (``q``, ``quit`` or the end of the input)."""


def _energy(tokens: Sequence[int]) -> str:
    parts = [f"{n} {e}" for e, n in zip(ENERGIES, tokens, strict=True) if n]
    return " + ".join(parts) if parts else "nothing"


def _cost(cost: Sequence[int]) -> str:
    parts = [f"{n} {e}" for e, n in zip(ENERGIES, cost[:4], strict=True) if n]
    if cost[4]:
        parts.append(counted(cost[4], "crystal"))
    return " + ".join(parts) if parts else "free"


def card_text(card: int, num_players: int = 2) -> str:
    """One line about a card: type, cost, prestige and effect."""
    facts = CARDS[card]
    kind = "magic item" if facts.is_item else "familiar"
    return f"{facts.name} ({kind}, cost {_cost(facts.cost[num_players])}, prestige {facts.prestige}): {facts.effect}"


def decision_name(view: Game) -> str:
    return view.pending_decision or "game over"


def describe_decision(view: Game, seat: int) -> str:
    """The pending decision of ``view`` in plain words, for the player at ``seat``."""
    task = view.pending_task()
    if task is None:
        return "The game is over."
    spec = steps.spec(task[0])
    args = dict(zip(spec.args, task[2:], strict=True))
    fields: dict[str, object] = {}
    if "card" in args:
        fields["card"] = CARD_NAMES.get(args["card"], "a card")
    if "cards" in args:
        fields["cards"] = ", ".join(CARD_NAMES[c] for c in args["cards"])
    if "need" in args:
        fields["need"] = _energy(args["need"])
    if "energy" in args:
        fields["energy"] = ENERGIES[args["energy"]]
    if "recipients" in args:
        fields["recipient"] = args["recipients"][0]
    if "onto" in args:
        onto = args["onto"]
        fields["onto"] = "" if onto < 0 else f", onto {CARD_NAMES[card_of(onto)]}"
    for key in ("count", "year", "remaining"):
        if key in args:
            fields[key] = args[key]
    if spec.name == "overflow":
        fields["limit"] = view.reserve_limit(seat)
    template = DECISION_PROMPTS.get(spec.name)
    if template is None:
        return spec.doc or spec.name
    try:
        return template.format(**fields)
    except (KeyError, IndexError):
        return spec.doc or spec.name


def option_label(view: Game, seat: int, action: int) -> str:
    """The action's label, with what the person needs to weigh it (die faces, costs, gains, who is who)."""
    label = describe_action(action)
    group, k = decode(action)
    if group == "TAKE_DIE":
        for die, face, _owner in view.rolled:
            if die == k:
                return f"{label}: {face_label(view.dice_season, die, face)}"
    elif group == "SUMMON":
        card = k + 1
        cost = "a set of different energy types" if card == ELEMENTAL_AMULET else _cost(view.summon_cost(seat, card))
        toll = view.leech_toll(seat)
        leech = f", and {counted(toll, 'crystal')} to Arcano Leech" if toll else ""
        return f"{label} (cost {cost}{leech})"
    elif group == "TRANSMUTE":
        gain = TRANSMUTE_RATE[view.season][k % 4] + view.transmute_bonus(seat)
        return f"{label} (+{counted(gain, 'crystal')})"
    elif group == "CHOOSE_OPPONENT":
        return f"{label} (player {(seat + k + 1) % view.num_players})"
    elif group == "MOVE_SEASON":
        position = (view.position - 1 + SEASON_MOVES[k]) % 12 + 1
        return f"{label} (to space {position}, {SEASONS[(position - 1) // 3]})"
    return label


class HumanAgent:
    """A person choosing at the terminal (or any text streams). ``act`` raises ``QuitGame`` on ``q`` or EOF."""

    name = "human"

    def __init__(self, input_stream: TextIO | None = None, output_stream: TextIO | None = None) -> None:
        self._input = input_stream
        self._output = output_stream
        self.last_view: Game | None = None  # the position at the person's latest decision

    @property
    def input_stream(self) -> TextIO:
        return self._input if self._input is not None else sys.stdin

    @property
    def output_stream(self) -> TextIO:
        return self._output if self._output is not None else sys.stdout

    def reset(self, seed: int | None = None) -> None:
        self.last_view = None

    def __repr__(self) -> str:
        return "HumanAgent()"

    def say(self, text: str = "") -> None:
        self.output_stream.write(text + "\n")
        self.output_stream.flush()

    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        self.last_view = view
        legal = [int(a) for a in legal]
        self._show(view, seat, legal)
        while True:
            line = self._read(f"Your choice (1-{len(legal)}, h for help): ")
            command = line.strip().lower()
            if not command:
                self.say(f"Please type a number from 1 to {len(legal)} (h for help).")
            elif command in ("q", "quit", "exit"):
                raise QuitGame
            elif command in ("h", "help", "?"):
                self._help(view)
            elif command in ("b", "board"):
                self._show(view, seat, legal)
            elif command in ("c", "cards") or command.startswith(("c ", "cards ")):
                self._cards(view, seat, legal, line.strip().partition(" ")[2].strip())
            elif ASCII_NUMBER.fullmatch(command) and 1 <= int(command) <= len(legal):
                action = legal[int(command) - 1]
                self.say(f"You chose: {option_label(view, seat, action)}")
                return action
            elif ASCII_NUMBER.fullmatch(command.lstrip("+-")):
                self.say(f"{line.strip()} is not an option: type a number from 1 to {len(legal)}.")
            else:
                self.say(
                    f"{line.strip()!r} is not a number or a command: type a number from 1 to {len(legal)}, h for help."
                )

    def _read(self, prompt: str) -> str:
        self.output_stream.write(prompt)
        self.output_stream.flush()
        try:
            line = self.input_stream.readline()
        except KeyboardInterrupt:  # Ctrl-C (or a stop signal) at the prompt stops the game as during an agent's turn
            self.say()
            raise
        if not line:  # end of input
            self.say()
            raise QuitGame
        return line

    def _show(self, view: Game, seat: int, legal: Sequence[int]) -> None:
        board = render_text(view, viewer=seat).splitlines()
        if board and board[-1].startswith(f"Player {seat} decides:"):
            board.pop()  # the numbered options below say it in full
        self.say()
        self.say("\n".join(board))
        self.say()
        self.say(f"Player {seat} (you), {decision_name(view)}: {describe_decision(view, seat)}")
        for k, action in enumerate(legal, start=1):
            self.say(f"  {k:>2}. {option_label(view, seat, action)}")

    def _help(self, view: Game) -> None:
        self.say(COMMANDS_HELP)
        name = decision_name(view)
        task = view.pending_task()
        doc = steps.spec(task[0]).doc if task is not None else ""
        self.say(f"This decision ({name}): {DECISION_HELP.get(name, doc)}")

    def _cards(self, view: Game, seat: int, legal: Sequence[int], query: str) -> None:
        if query:
            cards = [c for c, name in CARD_NAMES.items() if query.lower() in name.lower()]
            if not cards:
                self.say(f"No card's name contains {query!r}.")
        else:
            named = []
            for action in legal:
                group, k = decode(action)
                if group in ("SUMMON", "CHOOSE_CARD"):
                    named.append(k + 1)
                elif group in ("ACTIVATE", "CHOOSE_IN_PLAY"):
                    named.append(card_of(_instance_of(action)))
            year2, year3 = view.library[seat]
            own = [*view.hand[seat], *year2, *year3, *(card_of(i) for i in view.in_play[seat])]
            cards = list(dict.fromkeys([*named, *sorted(own)]))
            if not cards:
                self.say("No cards in your hand, library, play area or options yet.")
        for card in cards:
            self.say("  " + card_text(card, view.num_players))


def _instance_of(action: int) -> int:
    group, k = decode(action)
    return instance_of_activation(action) if group == "ACTIVATE" else k


class _Seat:
    """One seat of a terminal game: logs every action taken (so the real position can be replayed) and, for
    another player, tells the person what it did, withholding the cards they may not see."""

    def __init__(self, agent: Agent, log: list[int], say: Callable[[str], None] | None) -> None:
        self.agent = agent
        self.name = agent.name
        self._log = log
        self._say = say

    def reset(self, seed: int | None = None) -> None:
        reset = getattr(self.agent, "reset", None)
        if reset is not None:
            reset(seed=seed)

    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        action = int(self.agent.act(view, seat, legal))
        self._log.append(action)
        if self._say is not None:
            self._say(f"player {seat} ({self.name}): {public_label(view, seat, action)}")
        return action


def public_label(view: Game, seat: int, action: int) -> str:
    """What everyone at the table learns of ``seat`` taking ``action`` in ``view`` (a view of the position before
    it): a card chosen is named only when it enters play (``card_choice_is_public``: a Divine Chalice's card
    without room is discarded face down; a draft pick, a library card or a kept card is not named)."""
    if not card_choice_is_public(view, action):
        decision = view.pending_decision or ""
        spec = steps.STEP_BY_NAME.get(decision)
        return f"{spec.doc if spec is not None and spec.doc else decision} (a card you do not see)"
    return option_label(view, seat, action)


def _replay(num_players: int, level: str, seed: int, actions: Sequence[int]) -> Game:
    """The real position after ``actions`` (``play_game`` starts from ``Game.new`` with the same seed)."""
    game = Game.new(num_players, level, seed=seed)
    for action in actions:
        game.apply(action)
    return game


def _make_opponent(factory: Callable[..., Agent], seat: int) -> Agent:
    """``factory(seat)`` when the factory takes an argument, else ``factory()``."""
    try:
        inspect.signature(factory).bind(seat)
    except TypeError:
        return factory()
    except ValueError:  # no signature available
        return factory()
    return factory(seat)


def _score_line(scores: Sequence[int], seats: Sequence[str], human_seat: int) -> str:
    return ", ".join(f"player {p} ({'you' if p == human_seat else seats[p]}) {score}" for p, score in enumerate(scores))


def run_terminal_game(
    opponent_factory: Callable[..., Agent],
    num_players: int = 2,
    level: str = "archmage",
    seed: int | None = None,
    human_seat: int = 0,
    input_stream: TextIO | None = None,
    output_stream: TextIO | None = None,
    record_path: Path | None = None,
    agent_seed: int | None = None,
) -> GameRecord | None:
    """Play one game: the person at ``human_seat``, ``opponent_factory(seat)`` (or ``opponent_factory()``) at the
    other seats. Prints the final scores and the winner and returns the ``GameRecord``; returns ``None`` if
    the person quit, after a goodbye line with the scores so far. Ctrl-C (``KeyboardInterrupt``; SIGTERM too inside
    ``seasons_env.interrupts.sigterm_stops``) stops the game the same way, at a prompt or while an agent thinks, and
    is raised again. With ``record_path``, the game's record (every action, for ``seasons replay``) is written there
    atomically, also for a game left unfinished. The seed is told only once the game is over; ``agent_seed`` seeds
    the other seats (``play_game``; ``None``: at random)."""
    if not 0 <= human_seat < num_players:
        raise ValueError(f"human_seat must be a seat 0..{num_players - 1}; got {human_seat!r}")
    if record_path is not None:
        try:
            check_output_file(record_path)
        except OutputPathError as error:
            raise ValueError(f"record_path: {error}") from None
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < MAX_SEED):
        raise ValueError(f"seed must be an integer 0..{MAX_SEED - 1} (a record holds 64 bits); got {seed!r}")
    human = HumanAgent(input_stream, output_stream)
    say = human.say
    if seed is None:
        seed = secrets.randbelow(2**31)
    log: list[int] = []
    agents: list[Agent] = [
        _Seat(human, log, None) if seat == human_seat else _Seat(_make_opponent(opponent_factory, seat), log, say)
        for seat in range(num_players)
    ]
    names = [a.name for a in agents]
    # The seed deals every pack, the draw pile and the dice: it is told only once the game is over.
    say(
        f"Seasons, {num_players} players, level {level}. You are player {human_seat}; "
        + ", ".join(f"player {s} is {names[s]}" for s in range(num_players) if s != human_seat)
        + ". Type h for help, q to quit."
    )
    try:
        record = play_game(agents, level=level, seed=seed, agent_seed=agent_seed)
    except QuitGame:
        _leave("Goodbye: you left the game.", num_players, level, seed, log, names, human_seat, record_path, say)
        return None
    except KeyboardInterrupt as stop:  # Ctrl-C or SIGTERM (``interrupts.Stopped``), at a prompt or in an agent's turn
        name = signal.Signals(getattr(stop, "signum", signal.SIGINT)).name
        _leave(f"Game stopped by {name}.", num_players, level, seed, log, names, human_seat, record_path, say)
        raise
    game = _replay(num_players, level, seed, log)
    if record_path is not None:
        saved = make_record(num_players, level, seed, log, seats=names, scores=record.scores, winners=record.winners)
        write_record(record_path, {**record.to_dict(), **saved})
    say()
    say(render_text(game, viewer=human_seat, outcome=False))
    say()
    say(f"Game over after {record.decisions} decisions.")
    say(f"Final scores: {_score_line(record.scores, names, human_seat)}")
    winners = [f"player {p} ({'you' if p == human_seat else names[p]})" for p in record.winners]
    if len(winners) > 1:
        say(f"Shared win: {', '.join(winners)}.")
    elif human_seat in record.winners:
        say("You win!")
    else:
        say(f"Winner: {winners[0]}.")
    say(_seed_line(seed))
    if record_path is not None:
        say(f"Game record written to {record_path} (seasons replay {record_path}).")
    return record


def _leave(
    why: str,
    num_players: int,
    level: str,
    seed: int,
    log: list[int],
    names: Sequence[str],
    human_seat: int,
    record_path: Path | None,
    say: Callable[[str], None],
) -> None:
    """The goodbye of a game left unfinished: the scores so far, the seed, and the record written (with Ctrl-C and
    SIGTERM held meanwhile, so that a second one does not cut the record short; acted on once it is written)."""
    with held_signals():
        game = _replay(num_players, level, seed, log)
        say(f"{why} Scores so far: {_score_line(game.scores(), names, human_seat)}.")
        say(_seed_line(seed))
        if record_path is not None:
            write_record(record_path, make_record(num_players, level, seed, log, seats=names))
            say(f"Record of the unfinished game written to {record_path} (seasons replay {record_path}).")


def _seed_line(seed: int) -> str:
    return f"The deal's seed was {seed} (seasons play --seed {seed} deals this game again)."
