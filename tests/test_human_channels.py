"""What a person is shown: exactly the seat's knowledge, no less and no more (issue 36).

The channels a person reads are held to the standard of the reinforcement-learning channels
(``tests/test_hidden_information.py``):

* paired positions (the same position with every card the seat cannot see dealt differently, built by that
  module's ``redeal``) give byte-identical outputs on every human channel: the terminal game's transcript (the
  board, the decision and its options, help and cards as the seat's ``HumanAgent`` prints them, and the line
  telling what another player did), the seat's text view ``render_text(game, viewer=seat)``, its picture
  (``board_view``, which the picture and the replay page draw, and the pixels), and replays drawn with ``--seat``
  (at the terminal, as frames, as an HTML page). After an action, the outputs must agree wherever the seat's
  observation does (what another player chose is told only as far as the seat can know it);
* the converse: every public fact the observation carries, and every private fact of the seat, changes the
  seat's text view and its picture.
"""

from __future__ import annotations

import copy
import io
from collections import Counter

import numpy as np
import pytest
from scenario import act, scenario
from test_hidden_information import _public_changes, _turn_position, redeal

from seasons_agents.human import HumanAgent, _Seat, run_terminal_game
from seasons_agents.random_agent import RandomAgent
from seasons_env import Game
from seasons_env.encoding import action_mask, encode_observation
from seasons_env.engine.actions import card_of_choice as action_card
from seasons_env.engine.data import CARD_NAMES
from seasons_env.picture import board_view, render_rgb
from seasons_env.rendering import render_text
from seasons_env.replay import Record, Replay, frames, html_page, step_through
from seasons_env.simulate import random_play

# ---------------------------------------------------------------------------- the channels


class _Scripted:
    """An agent that plays the action it is given."""

    name = "scripted"

    def __init__(self, action: int) -> None:
        self.action = action

    def act(self, view: Game, seat: int, legal: list[int]) -> int:
        return self.action


def decision_transcript(game: Game, seat: int) -> str:
    """What the terminal prints at the seat's own decision: the board, the decision and its options, then what
    ``b`` (the board again), ``h`` (help) and ``c`` (the cards) print, and the choice of option 1."""
    out = io.StringIO()
    HumanAgent(io.StringIO("b\nh\nc\n1\n"), out).act(game, seat, game.legal_action_list())
    return out.getvalue()


def announced(game: Game, action: int) -> str:
    """The line the terminal prints when the deciding player (an agent) takes ``action``."""
    lines: list[str] = []
    _Seat(_Scripted(action), [], lines.append).act(game, game.current_player, game.legal_action_list())
    return "\n".join(lines)


def replay_of(positions: list[Game], actions: list[int]) -> Replay:
    """A replay of ``positions`` (``positions[k + 1]`` is ``positions[k]`` after ``actions[k]``)."""
    first = positions[0]
    replay = Replay.__new__(Replay)
    replay.record = Record(first.num_players, first.level, 0, tuple(actions), source="paired")
    replay.positions = positions
    return replay


def replay_outputs(replay: Replay, seat: int, pictures: bool) -> dict:
    """What ``seasons replay --seat`` shows of a replay: at the terminal, as a page (which holds every position's
    ``board_view``, all that a frame draws) and (``pictures``) as the frames' pixels."""
    out = io.StringIO()
    step_through(replay, seat, io.StringIO("n\n" * len(replay) + "q\n"), out)
    outputs = {"replay terminal": out.getvalue(), "replay page": html_page(replay, seat)}
    if pictures:
        outputs["replay frames"] = [np.asarray(image).tobytes() for image in frames(replay, seat)][1:]
    return outputs


def channels(game: Game, seat: int, pictures: bool) -> dict:
    """Every human channel's output for ``seat`` at ``game``."""
    outputs = {"text view": render_text(game, viewer=seat), "board view": board_view(game, seat)}
    if pictures:
        outputs["picture"] = render_rgb(game, seat).tobytes()
    if not game.is_over and game.current_player == seat:
        outputs["terminal transcript"] = decision_transcript(game, seat)
    return outputs


def observed(game: Game, seat: int) -> bytes:
    """The seat's observation, mask and flow: what it may know (the RL channels, audited already)."""
    flow = (game.pending_task()[:2] if game.pending_task() else None, None if game.is_over else game.current_player)
    return encode_observation(game, seat).tobytes() + action_mask(game, seat).tobytes() + repr(flow).encode()


def differing(a: dict, b: dict) -> list[str]:
    return [key for key in a if a[key] != b[key]]


# ---------------------------------------------------------------------------- paired positions


def compare_pair(game: Game, seat: int, rng: np.random.Generator, pictures: bool) -> str:
    """Compare every channel between ``game`` and a redeal for ``seat``, then after one action of the decider in
    both worlds (the same action, or for another seat one its observation cannot tell apart)."""
    other = redeal(game, seat, rng)
    if other is None:
        return "contradicts history"
    mine, theirs = channels(game, seat, pictures), channels(other, seat, pictures)
    where = f"{game.num_players}p {game.level}, {game.pending_decision} of player {game.current_player}, seat {seat}"
    assert not differing(mine, theirs), f"{where}: the seat tells the redeal apart by {differing(mine, theirs)}"
    if game.is_over:
        return "position"
    action = int(rng.choice(game.legal_action_list()))
    after = game.clone()
    after.apply(action)
    decider = game.current_player
    candidates = [action] if decider == seat else sorted(other.legal_action_list(), key=lambda a: a != action)
    for answer in candidates:
        if answer not in other.legal_action_list():
            continue
        other_after = other.clone()
        other_after.apply(answer)
        if observed(after, seat) != observed(other_after, seat):
            continue  # the seat sees a difference: nothing to compare
        mine = replay_outputs(replay_of([game, after], [action]), seat, pictures)
        theirs = replay_outputs(replay_of([other, other_after], [answer]), seat, pictures)
        if decider != seat:
            mine["announcement"], theirs["announcement"] = announced(game, action), announced(other, answer)
        assert not differing(mine, theirs), (
            f"{where}: after {action} / {answer}, the seat tells the worlds apart by {differing(mine, theirs)}"
        )
        return "action"
    return "position"


CAP_PER_KIND = 2


def audit(num_players: int, level: str) -> tuple[Counter, set[str]]:
    """Paired positions over seeded random games, at most ``CAP_PER_KIND`` per decision kind and seat role; the
    pixels are compared once per kind and role (``board_view`` is all the picture draws, compared every time)."""
    rng = np.random.default_rng([36, num_players, len(level)])
    compared: Counter = Counter()
    kinds: set[str] = set()
    for seed in range(30):
        game = Game.new(num_players, level, seed=seed)
        for _ in random_play(game, np.random.default_rng(seed + 36)):
            kind = game.pending_decision
            kinds.add(kind)
            for seat in range(num_players):
                role = "decider" if seat == game.current_player else "other"
                if compared[kind, role] >= CAP_PER_KIND:
                    continue
                pictures = not compared[kind, "decider"] + compared[kind, "other"]
                compared[kind, role, compare_pair(game, seat, rng, pictures)] += 1
                compared[kind, role] += 1
        if seed >= 6 and all(compared[k, r] >= CAP_PER_KIND for k in kinds for r in ("decider", "other")):
            break
    return compared, kinds


@pytest.mark.slow
@pytest.mark.parametrize(("num_players", "level"), [(2, "archmage"), (3, "archmage"), (4, "archmage"), (2, "magician")])
def test_no_human_channel_tells_paired_positions_apart(num_players: int, level: str) -> None:
    compared, kinds = audit(num_players, level)
    assert {"draft_pick", "library_split", "turn", "keep_or_discard"} <= kinds
    total = sum(v for k, v in compared.items() if len(k) == 2)
    actions = sum(v for k, v in compared.items() if len(k) == 3 and k[2] == "action")
    contradictions = sum(v for k, v in compared.items() if len(k) == 3 and k[2] == "contradicts history")
    assert total > 60 and actions > total // 3 and contradictions < total // 10, compared


def test_the_paired_test_catches_a_channel_that_leaks() -> None:
    """The god view names the hidden cards: its outputs differ between paired positions."""
    game = Game.new(2, "archmage", seed=3)
    other = redeal(game, 0, np.random.default_rng(1))
    assert render_text(game) != render_text(other) and board_view(game) != board_view(other)
    assert not differing(channels(game, 0, pictures=True), channels(other, 0, pictures=True))


def test_another_players_card_choice_is_told_only_as_far_as_the_seat_sees_it() -> None:
    """Issue 36 item 2: without room, the card Divine Chalice chose is discarded face down, so the terminal does not
    name it (it named it to everyone); with room, everyone sees it enter play."""
    drawn = [1, 3, 5, 6]  # Amulet of Air, Amulet of Earth, Balance of Ishtar, Staff of Spring
    for gauge, named in ((0, False), (1, True)):
        game = scenario(
            turn_player=1,
            players=[{}, {"summoning_gauge": gauge}],
            limbo=drawn,
            pending=[{"step": "divine_chalice", "player": 1, "cards": drawn}, {"step": "turn", "player": 1}],
        )
        for action in game.legal_action_list():
            card = CARD_NAMES[action_card(action)]
            assert (card in announced(game, action)) == named, announced(game, action)
            replay = replay_of([game, game.clone()], [action])
            assert (card in replay.label(0, seat=0)) == named and card in replay.label(0, seat=1)


# ---------------------------------------------------------------------------- the seed


def test_the_terminal_game_tells_the_seed_only_once_the_game_is_over() -> None:
    """Issue 36 item 1: the first line named the seed, from which every pack, the draw pile and the dice follow."""
    seed = 987_654_321
    out = io.StringIO()
    record = run_terminal_game(RandomAgent, seed=seed, input_stream=io.StringIO("1\n" * 3000), output_stream=out)
    text = out.getvalue()
    assert record is not None and str(seed) in text
    before, _, after = text.partition("Game over after")
    assert str(seed) not in before and f"The deal's seed was {seed}" in after
    out = io.StringIO()
    run_terminal_game(RandomAgent, seed=seed, input_stream=io.StringIO("1\nq\n"), output_stream=out)
    before, _, after = out.getvalue().partition("Goodbye")
    assert str(seed) not in before and f"The deal's seed was {seed}" in after


def test_a_replay_drawn_for_a_seat_names_the_seed_only_of_a_finished_game() -> None:
    actions = list(random_play(Game.new(2, "magician", seed=123_456_789), np.random.default_rng(0)))
    game = Game.new(2, "magician", seed=123_456_789)
    positions = [game.clone()]
    for action in actions:
        game.apply(action)
        positions.append(game.clone())
    unfinished = replay_of(positions[:10], actions[:9])
    unfinished.record = Record(2, "magician", 123_456_789, tuple(actions[:9]), source="paired")
    assert "123456789" not in html_page(unfinished, seat=0) and "123456789" in html_page(unfinished)
    finished = replay_of(positions, actions)
    finished.record = Record(2, "magician", 123_456_789, tuple(actions), source="paired")
    assert "seed 123456789" in html_page(finished, seat=0)


# ---------------------------------------------------------------------------- the decision's cards


def _first(num_players: int, level: str, seed: int, kind: str) -> Game:
    game = Game.new(num_players, level, seed=seed)
    for _ in random_play(game, np.random.default_rng(seed)):
        if game.pending_decision == kind:
            return game
    raise AssertionError(f"no {kind} decision")


def test_the_seat_is_shown_the_card_its_decision_is_about() -> None:
    """Issue 36 item 3: at its keep_or_discard, the seat's text view and picture named no card ("keep the drawn
    card, discard the drawn card"); the other seats still see only which decision it is."""
    game = _first(2, "archmage", 0, "keep_or_discard")
    seat, card = game.current_player, game.pending.args["card"]
    name = CARD_NAMES[card]
    assert name in render_text(game, viewer=seat).splitlines()[-1]
    assert any(name in note for note in board_view(game, seat)["notes"])
    assert name not in render_text(game, viewer=1 - seat) and name not in str(board_view(game, 1 - seat))
    # Another drawn card: another text view and another picture for the decider, the same for the other seat.
    state = game.to_dict()
    swap = next(c for c in state["draw_pile"] if c != card)
    state["draw_pile"][state["draw_pile"].index(swap)] = card
    state["limbo"] = [swap]
    state["pending"][0]["card"] = swap
    other = Game.from_dict(state)
    assert render_text(other, viewer=seat) != render_text(game, viewer=seat)
    assert not np.array_equal(render_rgb(other, seat), render_rgb(game, seat))
    assert np.array_equal(render_rgb(other, 1 - seat), render_rgb(game, 1 - seat))


def test_the_crystal_orb_card_is_shown_to_its_seat_only() -> None:
    game = scenario(
        players=[{"in_play": [34], "crystals": 3, "summoning_gauge": 2, "reserve": {"fire": 4}}],
        draw_pile=[1, 2, 3, 22],
        discard_pile=[5, 6],
    )

    act(game, "activate Crystal Orb (copy 1)", "Crystal Orb: look at the top card")
    assert game.pending_decision == "crystal_orb_seen"
    name = CARD_NAMES[22]
    assert name in render_text(game, viewer=0) and any(name in n for n in board_view(game, 0)["notes"])
    assert name not in render_text(game, viewer=1) and name not in str(board_view(game, 1))
    act(game, "Crystal Orb: leave the top card")
    # The seat remembers the card it saw while it is still the top card.
    assert f"Crystal Orb showed the draw pile's top card: {name}" in render_text(game, viewer=0)
    assert name not in render_text(game, viewer=1)


# ---------------------------------------------------------------------------- the converse: no blind spot


def _own_changes(d: dict, seat: int) -> dict:
    """Changes of the seat's own private facts (each keeps the position whole)."""
    player = d["players"][seat]
    top = d["draw_pile"][-1]
    changes = {}
    if player["hand"]:
        changes["own hand (a card swapped)"] = lambda d: _swap(d, d["players"][seat]["hand"])
    if player["library"]["year2"]:
        changes["own library year 2 (a card swapped)"] = lambda d: _swap(d, d["players"][seat]["library"]["year2"])
    changes["own draft memory"] = lambda d: d["players"][seat].update(
        draft_seen=sorted(set(player["draft_seen"]) ^ {top})
    )
    changes["own Crystal Orb look"] = lambda d: d.update(orb_seen={"player": seat, "card": d["draw_pile"][-1]})
    return changes


def _swap(d: dict, zone: list) -> None:
    """Swap a card of ``zone`` with another card of the draw pile."""
    k = next(k for k, c in enumerate(d["draw_pile"][:-1]) if c not in zone)
    zone[0], d["draw_pile"][k] = d["draw_pile"][k], zone[0]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_every_fact_the_seat_knows_changes_its_text_view_and_picture(num_players: int) -> None:
    """Issue 36 item 4: the game's dice of the other seasons, Hourglass tokens owed, opponents' transmute ability and
    bonus, the seat's draft memory and Orb card, and library sizes per year were in the observation but not in the
    text view or the picture. Each change of a fact the observation carries (public facts of every seat; the seat's
    own cards and memories) must change the seat's text view and its picture."""
    game = _turn_position(num_players)
    state = game.to_dict()
    texts = {seat: render_text(game, viewer=seat) for seat in range(num_players)}
    pictures = {seat: render_rgb(game, seat) for seat in range(num_players)}
    blind = []
    checked = 0
    for seat in range(num_players):
        edits = {
            f"{path} of player {q}": edit
            for q in range(num_players)
            for path, edit in _public_changes(state, q).items()
        }
        edits.update(_own_changes(state, seat))
        for path, edit in edits.items():
            d = copy.deepcopy(state)
            edit(d)
            changed = Game.from_dict(d)
            assert encode_observation(changed, seat).tobytes() != encode_observation(game, seat).tobytes(), path
            if render_text(changed, viewer=seat) == texts[seat]:
                blind.append(f"seat {seat}'s text view does not show {path}")
            if np.array_equal(render_rgb(changed, seat), pictures[seat]):
                blind.append(f"seat {seat}'s picture does not show {path}")
            checked += 1
    assert not blind, blind
    assert checked >= num_players * num_players * 16
