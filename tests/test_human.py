"""The human player at the terminal, driven by scripted input."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

import pytest

from seasons_agents import HumanAgent, RandomAgent, play_game
from seasons_agents.human import DECISION_HELP, DECISION_PROMPTS, QuitGame, run_terminal_game
from seasons_env import Game
from seasons_env.engine import steps

SEED = 7
AGENT_SEED = 70
JUNK = ["abc", "", "0", "-1", "99", "1.5"]  # each must re-prompt


class FirstAgent:
    """Always the first legal action: what the scripted person answering "1" does."""

    name = "first"

    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        return legal[0]


def _play(lines: Sequence[str], **kwargs) -> tuple[object, str]:
    out = io.StringIO()
    record = run_terminal_game(
        RandomAgent,
        seed=SEED,
        agent_seed=AGENT_SEED,
        input_stream=io.StringIO("".join(f"{line}\n" for line in lines)),
        output_stream=out,
        **kwargs,
    )
    return record, out.getvalue()


def test_a_full_game_with_junk_help_and_board_in_between() -> None:
    lines = ["1", *JUNK, "help", "1", "board", "b", "h", "c", "c amulet", "1", *JUNK, *["1"] * 3000]
    record, text = _play(lines)
    assert record is not None
    assert record.seats == ["human", "random"] and record.winners
    assert "Final scores: player 0 (you) " in text and f"player 1 (random) {record.scores[1]}" in text
    assert f"player 0 (you) {record.scores[0]}" in text
    assert "You win!" in text or "Winner: player 1 (random)." in text or "Shared win" in text
    # The board, the decision in words and the numbered options were shown.
    assert "Seasons - 2 players, archmage" in text and "player 0 (you):" in text
    assert "Player 0 (you), draft_pick: Draft: pick a card" in text and "   1. choose card: " in text
    assert "hand: 1 card," in text  # the opponent's hand is shown only as a count
    assert not re.search(r"\b1 (cards|crystals)\b", text)  # one is singular
    # Each junk line was answered with a message, and the help with the commands and this decision.
    assert text.count("is not a number or a command") == 2 * 2  # "abc" and "1.5", twice
    assert text.count("Please type a number from 1 to") == 2
    assert text.count("is not an option") == 3 * 2
    assert "Commands: type the number of an option" in text and "This decision (draft_pick):" in text
    assert "Amulet of Earth (magic item, cost 2 earth, prestige 6): Gain 9 crystals." in text
    # The other player's draft picks are told without naming the card.
    assert "player 1 (random): pick a card from the pack held (a card you do not see)" in text
    # The scripted person always chose option 1: the same game as an agent that always takes the first action.
    same = play_game([FirstAgent(), RandomAgent()], level="archmage", seed=SEED, agent_seed=AGENT_SEED)
    assert (record.scores, record.winners, record.decisions) == (same.scores, same.winners, same.decisions)
    # the final board, then one summary of the outcome in words (no raw line of lists before it)
    assert "Game over. Scores" not in text and str(record.scores) not in text
    assert text.count("Game over") == 1 and text.index("Final scores") > text.rindex("Seasons - 2 players")


def test_the_human_can_sit_at_any_seat_of_a_bigger_game() -> None:
    record, text = _play(["1"] * 5000, num_players=3, human_seat=2, level="magician")
    assert record is not None and record.seats == ["random", "random", "human"]
    assert "You are player 2" in text and "Final scores:" in text and "player 2 (you)" in text


def test_q_quits_cleanly() -> None:
    record, text = _play(["1", "1", "1", "q", "1"])
    assert record is None
    assert "Goodbye" in text and "Scores so far: player 0 (you) " in text and "player 1 (random) " in text
    assert "Final scores" not in text


def test_end_of_input_quits_cleanly() -> None:
    record, text = _play(["1", "1"])
    assert record is None
    assert "Goodbye" in text and "Scores so far:" in text


@pytest.mark.parametrize("command", ["q", "quit", "QUIT"])
def test_quit_raises_quit_game(command: str) -> None:
    game = Game.new(2, "archmage", seed=0)
    agent = HumanAgent(io.StringIO(f"{command}\n"), io.StringIO())
    with pytest.raises(QuitGame):
        agent.act(game, 0, game.legal_action_list())


def test_bad_input_reprompts_and_does_not_change_the_game() -> None:
    game = Game.new(2, "archmage", seed=1)
    before = game.to_dict()
    legal = list(game.legal_action_list())
    out = io.StringIO()
    agent = HumanAgent(io.StringIO("".join(f"{line}\n" for line in [*JUNK, "h", "b", "2"])), out)
    assert agent.act(game, 0, legal) == legal[1]
    assert game.to_dict() == before
    text = out.getvalue()
    assert text.count("Your choice (1-") == len(JUNK) + 3
    assert text.count("   1. choose card: ") == 2  # the options, then again for "b"
    assert f"0 is not an option: type a number from 1 to {len(legal)}." in text
    assert "'abc' is not a number or a command" in text
    assert "You chose: choose card: " in text


def test_default_streams_are_stdin_and_stdout(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    game = Game.new(2, "archmage", seed=2)
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    agent = HumanAgent()
    assert agent.act(game, 0, game.legal_action_list()) == game.legal_action_list()[0]
    assert "Player 0 (you), draft_pick" in capsys.readouterr().out


def test_every_decision_has_a_prompt_and_a_help_text() -> None:
    names = {kind.name for kind in steps.decision_kinds()}
    assert set(DECISION_PROMPTS) == names
    assert set(DECISION_HELP) == names
    assert all(text.strip() for text in DECISION_HELP.values())


def test_play_command_runs_a_scripted_game_to_the_end() -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    result = CliRunner().invoke(
        main, ["play", "--vs", "random", "--seed", "5", "--level", "apprentice"], input="1\n" * 400
    )
    assert result.exit_code == 0, result.output
    assert "Final scores: player 0 (you)" in result.output


def test_play_command_rejects_a_bad_opponent_and_seat() -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    result = CliRunner().invoke(main, ["play", "--vs", "wizard"])
    assert result.exit_code != 0 and "unknown agent 'wizard'" in result.output
    result = CliRunner().invoke(main, ["play", "--vs", "random", "--players", "2", "--seat", "3"])
    assert result.exit_code != 0 and "seat must be 0..1" in result.output


@pytest.mark.parametrize("junk", ["²", "①", "١", "１", "1²", "+²"])
def test_digits_other_than_ascii_are_refused_with_a_message(junk: str) -> None:
    """ "²", "①", Arabic-Indic and full-width digits pass ``str.isdigit``; only 0-9 number an option."""
    game = Game.new(2, "archmage", seed=3)
    legal = list(game.legal_action_list())
    out = io.StringIO()
    agent = HumanAgent(io.StringIO(f"{junk}\n1\n"), out)
    assert agent.act(game, 0, legal) == legal[0]
    assert f"{junk!r} is not a number or a command: type a number from 1 to {len(legal)}" in out.getvalue()


def test_the_board_counts_in_words_and_ends_with_the_outcome_in_words() -> None:
    from random_play import random_game

    from seasons_env.rendering import counted, render_text

    assert [counted(n, "crystal") for n in (0, 1, 2, -1)] == ["0 crystals", "1 crystal", "2 crystals", "-1 crystals"]
    game, _ = random_game(2, "archmage", seed=4)
    assert game.is_over
    board = render_text(game)
    scores = ", ".join(f"player {p} {s}" for p, s in enumerate(game.scores()))
    assert board.splitlines()[-1].startswith(f"Game over. Scores: {scores}; winner")
    assert str(game.scores()) not in board and not re.search(r"\b1 (cards|crystals)\b", board)
    assert "Game over" not in render_text(game, outcome=False)
