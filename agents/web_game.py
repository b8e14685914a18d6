"""One game in the browser: the real position, the agents in the other seats, the record, and what the page is told.

``WebGame`` holds the one game of a ``seasons play --web`` run. The person's actions arrive through
``play`` (from the HTTP server, ``agents/web_server.py``); the agents answer in a thread of their own, so that the
page can show who is thinking. After every action the record (the format ``seasons replay`` reads) is written
atomically, so a closed tab or a killed server loses nothing, and ``WebGame.resume`` continues from it.

What the page is told is built by ``seat_state`` from the seat's *view*: ``Game.determinize`` for the person's
seat (everything the seat cannot see redrawn with a fixed generator), read through the library's seat-view
functions (``board_view``, ``render_text(viewer=seat)``). Two positions that differ only in what the seat cannot
see give the same bytes (``tests/test_web_api.py``).
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from seasons_env import Game
from seasons_env.engine import steps
from seasons_env.engine.actions import decode, instance_of_activation
from seasons_env.engine.data import CARD_NAMES, card_of
from seasons_env.picture import board_view
from seasons_env.registry import make_agent
from seasons_env.rendering import decision_words, render_text
from seasons_env.replay import Replay, make_record, parse_record, read_game_file, write_record

from .base import agent_streams
from .human import DECISION_HELP, describe_decision
from .web_words import ACTS_ON_THE_DECISIONS_CARD, card_facts, move_card, move_label, score_parts

#: The name of the person's seat in records (as the terminal game writes it).
HUMAN = "human"
#: The seed of the generator that redraws what the seat cannot see when its view is built: fixed, so that the
#: view depends only on what the seat knows.
VIEW_SEED = 0x5EA7
CARD_OF_NAME = {name: card for card, name in CARD_NAMES.items()}


class WebGameError(ValueError):
    """A request the game refuses (the API answers 400 with this message); the game is unchanged."""


class StaleMoveError(WebGameError):
    """An action sent for another move than the game's (a repeated request, another tab that played first): the
    API answers 409 with this message; the game is unchanged."""


def seat_view(game: Game, seat: int) -> Game:
    """What ``seat`` may know of ``game``: a copy with everything it cannot see redrawn (fixed generator)."""
    return game.determinize(seat, np.random.default_rng(VIEW_SEED))


def _option(view: Game, seat: int, action: int) -> dict:
    """One legal option for the page: id, label, and what it names (a card, an instance in play, a die, energy)."""
    group, k = decode(action)
    option: dict[str, Any] = {"action": int(action), "label": move_label(view, seat, action, own=True), "group": group}
    if group in ("SUMMON", "CHOOSE_CARD"):
        option["card"] = CARD_NAMES[k + 1]
    elif group in ("ACTIVATE", "CHOOSE_IN_PLAY"):
        instance = instance_of_activation(action) if group == "ACTIVATE" else k
        option["instance"] = int(instance)
        option["card"] = CARD_NAMES[card_of(instance)]
    elif group == "TAKE_DIE":
        option["die"] = k
    elif group in ("CHOOSE_ENERGY", "TRANSMUTE", "PAY"):
        option["energy"] = k % 4
    elif group in ACTS_ON_THE_DECISIONS_CARD:  # keep or discard the drawn card, play or leave the orb's card
        card = move_card(view, seat, action, own=True)
        if card is not None:
            option["card"] = card
    return option


def public_label(view: Game, actor: int, action: int) -> str:
    """What everyone at the table learns of ``actor`` taking ``action`` in ``view`` (a seat's view of the
    position before it): a card chosen in secret (a draft pick, a library, a kept card) is not named."""
    return move_label(view, actor, action, own=False)


def seat_state(
    game: Game,
    seat: int,
    names: Sequence[str],
    log: Sequence[dict],
    thinking: int | None = None,
    error: str | None = None,
    pass_to: int | None = None,
) -> dict:
    """The API's state for ``seat`` (``docs/web.md``), built only from what the seat may know. ``pass_to``: the
    person at another seat of a hot-seat game who decides now (the screen is to be passed to them)."""
    view = seat_view(game, seat)
    over = view.is_over
    deciding = None if over else int(view.current_player)
    mine = deciding == seat
    legal = [_option(view, seat, a) for a in view.legal_action_list()] if mine else []
    board = board_view(view, seat)
    for p, player in enumerate(board["players"]):
        for card, instance in zip(player["in_play"], view.in_play[p], strict=True):
            card["instance"] = int(instance)
    shown = {*board["players"][seat]["hand"], *board["players"][seat]["pack"]}
    shown.update(name for year in board["players"][seat]["library"] for name in year)
    shown.update(card["name"] for player in board["players"] for card in player["in_play"])
    shown.update(option["card"] for option in legal if "card" in option)
    shown.update(entry["card"] for entry in log if "card" in entry)
    shown.update(board["players"][seat]["draft_seen"] or ())
    if board["players"][seat]["orb_seen"] is not None:
        shown.add(board["players"][seat]["orb_seen"])
    task = view.pending_task()
    decision_cards: list[str] = []
    if mine and task is not None:  # the cards the seat's own decision looks at (a drawn card, Naria's cards)
        args = dict(zip(steps.spec(task[0]).args, task[2:], strict=True))
        cards = ([args["card"]] if "card" in args else []) + list(args.get("cards", ()))
        decision_cards = [CARD_NAMES[c] for c in cards]
        shown.update(decision_cards)
    if over:
        prompt = "The game is over."
    elif pass_to is not None:
        prompt = f"Pass the screen to player {pass_to}: it is their decision."
    elif mine:
        prompt = describe_decision(view, seat)
    else:
        prompt = f"Player {deciding} ({names[deciding]}) decides: {decision_words(view.pending_decision)}"
    return {
        "seat": seat,
        "current_player": deciding,
        "decision": None if over else view.pending_decision,
        "prompt": prompt,
        "help": DECISION_HELP.get(view.pending_decision or "", "") if mine else "",
        "decision_cards": decision_cards,
        "legal": legal,
        "over": over,
        "scores": [int(s) for s in view.scores()] if over else None,
        "winners": [int(p) for p in view.winners()] if over else None,
        "players": list(names),
        "thinking": thinking,
        "pass_to": pass_to,
        "error": error,
        "moves": len(log),
        "log": list(log),
        "cards": {name: card_facts(CARD_OF_NAME[name], view.num_players) for name in sorted(shown)},
        "score_parts": [score_parts(view, p) for p in range(view.num_players)],
        "view": {**board, "text": render_text(view, viewer=seat)},
    }


def encode_state(state: dict) -> bytes:
    """The bytes the API sends for a state (sorted keys: the same state gives the same bytes)."""
    return json.dumps(state, sort_keys=True, separators=(",", ":")).encode("utf-8")


def _log_entry(game: Game, seat: int, action: int) -> dict:
    """The move as ``seat`` may know it."""
    actor = int(game.current_player)
    view = seat_view(game, seat)
    own = actor == seat
    entry: dict[str, Any] = {
        "player": actor,
        "decision": view.pending_decision,
        "label": move_label(view, actor, action, own),
    }
    card = move_card(view, actor, action, own)
    if card is not None:
        entry["card"] = card
    return entry


class WebGame:
    """The one game of a web run. Thread-safe: the server's threads call ``state``, ``play`` and ``wait``.

    People sit at ``human_seats`` (several: hot-seat at one screen), agents made from the spec ``opponent`` at the
    others. The screen shows one person's seat (``screen``); when another person decides, the state says so
    (``pass_to``) and shows nothing more until ``pass_screen``."""

    def __init__(
        self,
        opponent: str,
        num_players: int,
        level: str,
        seed: int,
        human_seats: int | Sequence[int],
        record_path: Path,
        actions: Sequence[int] = (),
        agent_factory: Callable[[str, int], Any] | None = None,
        agent_seed: int | None = None,
    ) -> None:
        seats = (human_seats,) if isinstance(human_seats, int) else tuple(human_seats)
        if not seats or len(set(seats)) != len(seats) or not all(0 <= s < num_players for s in seats):
            raise ValueError(f"the people's seats must be different seats 0..{num_players - 1}; got {list(seats)}")
        self.opponent = opponent
        self.num_players = num_players
        self.level = level
        self.seed = int(seed)
        self.human_seats = seats
        self.screen = seats[0]  # the seat whose view the page shows
        self.record_path = Path(record_path)
        make = agent_factory or (lambda spec, agent_seed: make_agent(spec, agent_seed, "--vs"))
        # Seeded as seasons_agents.base.play_game seeds them (a stream apart from the deal's seed, so an agent learns
        # nothing of the deal from it): given the same agent_seed, a game against agents replays as it does there.
        seat_seeds, self._view_rng = agent_streams(
            secrets.randbits(63) if agent_seed is None else agent_seed, num_players
        )
        self.agents: dict[int, Any] = {}
        for seat in range(num_players):
            if seat not in seats:
                agent = make(opponent, seat_seeds[seat])
                reset = getattr(agent, "reset", None)
                if reset is not None:
                    reset(seed=seat_seeds[seat])
                self.agents[seat] = agent
        self.names = [HUMAN if seat in seats else str(self.agents[seat].name) for seat in range(num_players)]
        self.game = Game.new(num_players, level, seed=self.seed)
        self.actions: list[int] = []
        self.logs: dict[int, list[dict]] = {seat: [] for seat in seats}  # each person's own account of the moves
        for action in actions:
            self._apply(int(action))
        if not self.game.is_over and self.game.current_player in seats:
            self.screen = self.game.current_player
        self._condition = threading.Condition()
        self.thinking: int | None = None
        self.error: str | None = None
        self._stopped = False
        self.write_record()
        self._runner = threading.Thread(target=self._run_agents, name="seasons-agents", daemon=True)
        self._runner.start()

    @classmethod
    def resume(cls, path: Path, opponent: str | None = None, record_path: Path | None = None, **kwargs: Any) -> WebGame:
        """Continue the unfinished game of a record file (``--resume``): a regular file of one record, written back
        unless ``record_path`` names another; ``ValueError`` says what is wrong."""
        where, data = read_game_file(path)
        replay = Replay(parse_record(data, where))  # every action checked legal; RecordError is a ValueError
        if replay.finished:
            raise ValueError(f"{path}: the game is finished; there is nothing to resume (seasons replay {path})")
        seats = data.get("seats")
        human_seats = [k for k, name in enumerate(seats or []) if name == HUMAN]
        if not human_seats:
            raise ValueError(f"{path}: the record names no seat {HUMAN!r} (a person's seat)")
        saved = data.get("opponent")
        if opponent is None:
            if not isinstance(saved, str):
                raise ValueError(f"{path}: the record does not say which agent played; name it with --vs")
            opponent = saved
        record = replay.record
        return cls(
            opponent,
            record.num_players,
            record.level,
            record.seed,
            human_seats,
            record_path if record_path is not None else Path(path),
            actions=record.actions,
            **kwargs,
        )

    # ------------------------------------------------------------------ the game

    def _apply(self, action: int) -> None:
        entries = {seat: _log_entry(self.game, seat, action) for seat in self.human_seats}
        self.game.apply(action)
        self.actions.append(action)
        for seat, entry in entries.items():
            self.logs[seat].append(entry)

    def _pass_to(self) -> int | None:
        """The person who decides now, if the screen shows another person's seat."""
        if self.game.is_over or self.error is not None:
            return None
        seat = self.game.current_player
        return seat if seat in self.human_seats and seat != self.screen else None

    def record(self) -> dict:
        """The game's record (``seasons replay`` reads it), with the agent spec so that it can be resumed."""
        over = self.game.is_over
        record = make_record(
            self.num_players,
            self.level,
            self.seed,
            self.actions,
            seats=self.names,
            scores=self.game.scores() if over else None,
            winners=self.game.winners() if over else None,
        )
        record["opponent"] = self.opponent
        return record

    def write_record(self) -> None:
        write_record(self.record_path, self.record())

    def state(self) -> dict:
        """The API's state for the seat on the screen, with ``move``: the number of actions played so far (an
        action is sent with it, so that a repeated request cannot play twice)."""
        with self._condition:
            state = seat_state(
                self.game, self.screen, self.names, self.logs[self.screen], self.thinking, self.error, self._pass_to()
            )
            state["move"] = len(self.actions)
            return state

    def play(self, action: object, move: object) -> None:
        """Apply the person's ``action`` at move number ``move`` (the state's ``move`` the person answered);
        ``StaleMoveError`` if the game is at another move, ``WebGameError`` if the action is not theirs to play; in
        both cases the game is unchanged."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise WebGameError(f"action must be an integer action id; got {_shown(action)}")
        if isinstance(move, bool) or not isinstance(move, int):
            raise WebGameError(f"move must be an integer (the field move of GET /api/state); got {_shown(move)}")
        with self._condition:
            if move != len(self.actions):
                raise StaleMoveError(
                    f"the game is at move {len(self.actions)}, not {move}: this action was sent for another position "
                    "(a repeated request, or another tab played first); GET /api/state shows the game as it is"
                )
            if self.game.is_over:
                raise WebGameError("the game is over: no action is legal")
            if self.error is not None:
                raise WebGameError(f"the game is stopped: {self.error}")
            if self._pass_to() is not None:
                raise WebGameError(
                    f"player {self.game.current_player} decides: pass the screen to them first (POST /api/pass)"
                )
            if self.game.current_player != self.screen:
                raise WebGameError(
                    f"it is not your turn: player {self.game.current_player} ({self.names[self.game.current_player]})"
                    " decides"
                )
            legal = self.game.legal_action_list()
            if action not in legal:
                raise WebGameError(
                    f"action {action} is not one of your {len(legal)} legal actions for decision "
                    f"{self.game.pending_decision} (GET /api/state lists them)"
                )
            # seasons_agents.base.play_game draws a view for every decision, the person's too: the agents' views (and so
            # their choices) then follow the same random stream as in a terminal or arena game of the same seed.
            self.game.determinize(self.screen, self._view_rng)
            self._apply(action)
            self._save()
            self._condition.notify_all()

    def pass_screen(self) -> None:
        """Show the seat of the person who decides now (hot-seat); ``WebGameError`` if nobody is waiting for it."""
        with self._condition:
            seat = self._pass_to()
            if seat is None:
                raise WebGameError("no other person decides now: there is nobody to pass the screen to")
            self.screen = seat
            self._condition.notify_all()

    def _save(self) -> None:
        """Write the record; if it cannot be written, the game stops (with the reason) rather than play on unsaved."""
        try:
            self.write_record()
        except OSError as failure:
            self.error = f"cannot write the record {self.record_path}: {failure.strerror or failure}"

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the person decides again, the game ends or an agent fails; False on timeout."""
        with self._condition:
            return self._condition.wait_for(self._settled, timeout)

    def _settled(self) -> bool:
        return self.game.is_over or self.error is not None or self._stopped or self._agent_to_move() is None

    def _agent_to_move(self) -> int | None:
        if self.game.is_over or self.error is not None:
            return None
        seat = self.game.current_player
        return seat if seat not in self.human_seats else None

    def stop(self) -> None:
        with self._condition:
            self._stopped = True
            self._condition.notify_all()

    def _run_agents(self) -> None:
        while True:
            with self._condition:
                self._condition.wait_for(lambda: self._stopped or self._agent_to_move() is not None)
                if self._stopped:
                    return
                seat = self._agent_to_move()
                legal = self.game.legal_action_list()
                view = self.game.determinize(seat, self._view_rng)
                self.thinking = seat
                self._condition.notify_all()
            try:  # the agent thinks without the lock, so that the page can ask who is thinking
                action = int(self.agents[seat].act(view, seat, list(legal)))
                if action not in legal:
                    raise ValueError(f"it chose action {action}, which is not legal")
            except Exception as failure:  # an agent's bug stops the game with a message, not a dead server
                with self._condition:
                    self.thinking = None
                    self.error = f"player {seat} ({self.names[seat]}) failed: {type(failure).__name__}: {failure}"
                    self._condition.notify_all()
                return
            with self._condition:
                if self._stopped:
                    return
                self.thinking = None
                self._apply(action)
                self._save()
                self._condition.notify_all()


def _shown(value: object, limit: int = 60) -> str:
    """A value from a request, in JSON and at most ``limit`` characters (the request is bounded, but not its
    nesting)."""
    try:
        text = json.dumps(value)
    except (RecursionError, ValueError):
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def default_record_path(folder: Path, seed: int) -> Path:
    """A new file in ``folder`` for a game's record: ``web-DATE-TIME-seedSEED.json`` (never an existing one)."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"web-{stamp}-seed{seed}.json"
    k = 2
    while path.exists():
        path = folder / f"web-{stamp}-seed{seed}-{k}.json"
        k += 1
    return path
