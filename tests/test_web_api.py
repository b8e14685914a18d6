"""The JSON API of ``seasons play --web`` (docs/web.md): what it answers, every refusal (403 for a wrong token or
another origin, 400 for a bad body or an illegal action, the game unchanged), only what the seat may see
(paired positions give the same bytes), records written after every move, and a killed server resumed."""

from __future__ import annotations

import json
import re
import threading
import urllib.request
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from test_hidden_information import redeal
from web_play import act, base_url, request, state, web_server

from seasons_agents.human import option_label
from seasons_agents.web_game import WebGame, encode_state, public_label, seat_state, seat_view
from seasons_agents.web_server import PAGE_POLICY
from seasons_agents.web_words import move_card
from seasons_env import Game
from seasons_env.replay import Replay, parse_record
from seasons_env.simulate import random_play

ROOT = Path(__file__).resolve().parents[1]


def _snapshot(server, record: Path) -> tuple[bytes, bytes]:
    status, body = request(server, "GET", "/api/state")
    assert status == 200
    return body, record.read_bytes()


def test_the_state_names_the_seat_its_options_and_the_board(tmp_path: Path) -> None:
    with web_server(tmp_path, "random", 3, "magician", seed=3, seat=2) as server:
        server.table.game.wait(30)
        now = state(server)
        assert {"seat", "current_player", "decision", "legal", "over", "scores", "view"} <= set(now)
        assert now["seat"] == 2 and now["current_player"] == 2 and now["decision"] == "draft_pick"
        assert now["over"] is False and now["scores"] is None and now["players"] == ["random", "random", "human"]
        assert now["moves"] == 2 and [entry["player"] for entry in now["log"]] == [0, 1]
        assert all("(a card you do not see)" in entry["label"] for entry in now["log"])  # their draft picks
        game = server.table.game.game
        assert [option["action"] for option in now["legal"]] == game.legal_action_list()
        assert all(option["label"].startswith("choose card: ") for option in now["legal"])
        view = now["view"]
        assert view["players"][2]["pack"] and view["players"][0]["pack"] is None and view["players"][1]["hand"] is None
        assert "as seen by player 2" in view["text"]
        # An action is answered with the state after the agents have played: the seat decides again.
        status, after = act(server, now["legal"][0]["action"])
        assert status == 200 and after["current_player"] == 2 and after["moves"] == 5
        first = now["legal"][0]
        mine = {"player": 2, "decision": "draft_pick", "label": first["label"], "card": first["card"]}
        assert after["log"][2] == mine  # the seat's own pick names the card (its text is in "cards")
        assert mine["card"] in after["cards"] and not any("card" in entry for entry in now["log"])
        record = json.loads((tmp_path / "game.json").read_text())
        assert record["actions"] == game_actions(server) and record["seats"] == ["random", "random", "human"]
        assert record["opponent"] == "random" and "scores" not in record


def game_actions(server) -> list[int]:
    return list(server.table.game.actions)


def test_a_web_game_is_the_game_the_terminal_and_the_arena_play(tmp_path: Path) -> None:
    """Same seed, same choices of the person: the agents answer as in seasons_agents.base.play_game, move for move."""
    from seasons_agents.base import play_game
    from seasons_agents.heuristic import HeuristicAgent

    class First:
        name = "human"

        def act(self, view, seat, legal):
            return legal[0]

    agents = [HeuristicAgent(), First(), HeuristicAgent()]
    expected = play_game(agents, level="magician", seed=31, agent_seed=7).actions
    game = WebGame("heuristic", 3, "magician", 31, 1, tmp_path / "game.json", agent_seed=7)
    try:
        while game.wait(60) and not game.game.is_over:
            now = game.state()
            game.play(now["legal"][0]["action"], now["move"])
        assert game.actions == expected
    finally:
        game.stop()


def test_a_wrong_or_missing_token_is_refused_with_403(tmp_path: Path) -> None:
    with web_server(tmp_path) as server:
        before = _snapshot(server, tmp_path / "game.json")
        legal = state(server)["legal"][0]["action"]
        body = json.dumps({"action": legal}).encode()
        for token in (None, "wrong", server.table.token[:-1], server.table.token + "x"):
            for method, path, data in (("GET", "/api/state", None), ("POST", "/api/action", body), ("GET", "/", None)):
                status, answer = request(server, method, path, data, token=token)
                assert status == 403, (token, path)
                assert "token" in json.loads(answer)["error"]
        assert _snapshot(server, tmp_path / "game.json") == before
        # The page's script and style carry no secret and are served to anyone on this machine.
        assert request(server, "GET", "/play.js", token=None)[0] == 200


def test_the_board_drawing_is_the_librarys_file_served_before_the_pages_script(tmp_path: Path) -> None:
    # One drawing for both pages: the play page loads the replay page's board.js from seasons_env's package data.
    shared = (ROOT / "seasons_env" / "web" / "board.js").read_bytes()
    with web_server(tmp_path) as server:
        with urllib.request.urlopen(base_url(server) + "/board.js", timeout=10) as response:
            assert response.read() == shared
            assert response.headers["Content-Type"] == "text/javascript; charset=utf-8"
            assert response.headers["Content-Security-Policy"] == PAGE_POLICY
        status, page = request(
            server, "GET", "/", token=None, headers={"Authorization": f"Bearer {server.table.token}"}
        )
    assert status == 200
    scripts = re.findall(r"<script\b[^>]*>", page.decode())
    assert scripts == ['<script src="/board.js">', '<script src="/play.js">']


def test_other_origins_and_hosts_are_refused(tmp_path: Path) -> None:
    with web_server(tmp_path) as server:
        before = _snapshot(server, tmp_path / "game.json")
        port = server.server_address[1]
        legal = state(server)["legal"][0]["action"]
        body = json.dumps({"action": legal}).encode()
        for headers in (
            {"Origin": "http://evil.example"},
            {"Origin": f"http://127.0.0.1:{port + 1}"},
            {"Origin": "null"},
            {"Host": f"evil.example:{port}"},  # DNS rebinding: another name resolving to 127.0.0.1
            {"Sec-Fetch-Site": "cross-site"},
        ):
            for method, path, data in (("GET", "/api/state", None), ("POST", "/api/action", body)):
                status, answer = request(server, method, path, data, headers=headers)
                assert status == 403, headers
                assert "refused" in json.loads(answer)["error"] or "answers only" in json.loads(answer)["error"]
        # The page's own origin is fine; no answer ever allows another origin (no CORS).
        status, _ = request(server, "GET", "/api/state", headers={"Origin": f"http://127.0.0.1:{port}"})
        assert status == 200
        import urllib.request

        preflight = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/action?token={server.table.token}",
            method="OPTIONS",
            headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"},
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(preflight, timeout=10)
        assert refused.value.code == 405
        assert "Access-Control-Allow-Origin" not in refused.value.headers
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/api/state?token={server.table.token}", timeout=10
        ) as response:
            assert "Access-Control-Allow-Origin" not in response.headers
            assert response.headers["Referrer-Policy"] == "no-referrer"
        assert _snapshot(server, tmp_path / "game.json") == before


BAD_BODIES = [
    (b"{", "not JSON"),
    (b"\xff\xfe", "not JSON"),
    (b"[1]", "must be a JSON object"),
    (b'"7"', "must be a JSON object"),
    (b"{}", "must name the action"),
    (b'{"action": 1, "move": 0, "seat": 0}', "unknown field"),
    (b'{"move": 0}', "must name the action"),
    (b'{"action": 132}', "must carry the move number"),
    (b'{"action": "132", "move": 0}', "integer"),
    (b'{"action": 132.0, "move": 0}', "integer"),
    (b'{"action": true, "move": 0}', "integer"),
    (b'{"action": null, "move": 0}', "integer"),
    (b'{"action": [132], "move": 0}', "integer"),
    (b'{"action": 132, "move": "0"}', "move must be an integer"),
    (b'{"action": 132, "move": 0.0}', "move must be an integer"),
    (b'{"action": 132, "move": false}', "move must be an integer"),
    (b'{"action": -1, "move": 0}', "not one of your"),
    (b'{"action": 99999999999999999999, "move": 0}', "not one of your"),
    (b'{"action": 0, "move": 0}', "not one of your"),  # end turn: not legal in the draft
]


@pytest.mark.parametrize(("body", "message"), BAD_BODIES)
def test_a_bad_body_or_an_illegal_action_is_refused_with_400_and_changes_nothing(
    tmp_path: Path, body: bytes, message: str
) -> None:
    with web_server(tmp_path) as server:
        before = _snapshot(server, tmp_path / "game.json")
        status, answer = request(server, "POST", "/api/action", body)
        assert status == 400
        assert message in json.loads(answer)["error"]
        assert _snapshot(server, tmp_path / "game.json") == before


def test_a_repeated_or_stale_action_is_refused_with_409_and_plays_nothing(tmp_path: Path) -> None:
    """The page sends the move number it saw: a repeated POST (a retry, a second tab) cannot play a second move."""
    with web_server(tmp_path, "random", 2, "archmage", seed=4) as server:
        first = state(server)
        assert first["move"] == 0 == len(server.table.game.actions)
        sent = json.dumps({"action": first["legal"][0]["action"], "move": first["move"]}).encode()
        status, body = request(server, "POST", "/api/action", sent)
        after = json.loads(body)
        assert status == 200 and after["move"] == len(server.table.game.actions) >= 2
        assert after["current_player"] == 0 and after["legal"]
        before = _snapshot(server, tmp_path / "game.json")
        for repeated in (sent, json.dumps({"action": after["legal"][0]["action"], "move": 0}).encode()):
            status, body = request(server, "POST", "/api/action", repeated)
            assert status == 409, body
            assert f"the game is at move {after['move']}, not 0" in json.loads(body)["error"]
        ahead = json.dumps({"action": after["legal"][0]["action"], "move": after["move"] + 1}).encode()
        assert request(server, "POST", "/api/action", ahead)[0] == 409
        assert _snapshot(server, tmp_path / "game.json") == before
        status, body = act(server, after["legal"][0]["action"], after["move"])
        assert status == 200 and body["move"] > after["move"]


def test_a_body_without_json_content_type_or_too_big_is_refused(tmp_path: Path) -> None:
    with web_server(tmp_path) as server:
        before = _snapshot(server, tmp_path / "game.json")
        action = state(server)["legal"][0]["action"]
        body = json.dumps({"action": action}).encode()
        status, answer = request(server, "POST", "/api/action", body, headers={"Content-Type": "text/plain"})
        assert status == 400 and "Content-Type" in json.loads(answer)["error"]
        big = json.dumps({"action": action, "pad": " " * 5000}).encode()
        assert request(server, "POST", "/api/action", big)[0] == 400
        assert request(server, "GET", "/api/nothing")[0] == 404
        assert request(server, "POST", "/api/state", body)[0] == 404
        assert _snapshot(server, tmp_path / "game.json") == before


class BlockingAgent:
    """Takes the first legal action once released: the page sees it thinking meanwhile."""

    name = "slow"

    def __init__(self) -> None:
        self.release = threading.Event()

    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        assert self.release.wait(30)
        return legal[0]


def test_acting_out_of_turn_is_refused_while_an_agent_thinks(tmp_path: Path) -> None:
    agent = BlockingAgent()
    game = WebGame("slow", 2, "archmage", 5, 1, tmp_path / "game.json", agent_factory=lambda spec, seed: agent)
    try:
        threading.Event().wait(0.2)
        now = game.state()
        assert now["thinking"] == 0 and now["current_player"] == 0 and now["legal"] == []
        assert now["prompt"] == "Player 0 (slow) decides: pick a card from the pack held"  # in words
        with pytest.raises(ValueError, match="it is not your turn: player 0"):
            game.play(game.game.legal_action_list()[0], len(game.actions))
        agent.release.set()
        assert game.wait(30)
        now = game.state()
        assert now["thinking"] is None and now["current_player"] == 1 and now["legal"]
    finally:
        game.stop()


def test_an_agent_that_fails_stops_the_game_with_a_message(tmp_path: Path) -> None:
    class Broken:
        name = "broken"

        def act(self, view, seat, legal):
            raise RuntimeError("no model")

    game = WebGame("broken", 2, "archmage", 5, 1, tmp_path / "game.json", agent_factory=lambda spec, seed: Broken())
    try:
        assert game.wait(30)
        assert game.state()["error"] == "player 0 (broken) failed: RuntimeError: no model"
        with pytest.raises(ValueError, match="the game is stopped"):
            game.play(0, len(game.actions))
    finally:
        game.stop()


def test_after_the_end_no_action_is_taken_and_a_new_game_starts(tmp_path: Path) -> None:
    with web_server(tmp_path, "random", 2, "apprentice", seed=2) as server:
        status, answer = request(server, "POST", "/api/new", b"{}")
        assert status == 400 and "not over" in json.loads(answer)["error"]
        rng = np.random.default_rng(0)
        now = state(server)
        while not now["over"]:
            status, now = act(server, now["legal"][int(rng.integers(len(now["legal"])))]["action"])
            assert status == 200
        record = json.loads((tmp_path / "game.json").read_text())
        assert now["scores"] == record["scores"] == Replay(parse_record(record)).positions[-1].scores()
        assert now["winners"] == record["winners"] and now["legal"] == [] and now["current_player"] is None
        status, answer = act(server, 0)
        assert status == 400 and "the game is over" in answer["error"]
        status, page = request(server, "GET", "/replay")
        assert status == 200 and b"Seasons replay" in page and b'"seat":0' in page and b'"seat":null' not in page
        status, page = request(server, "GET", "/replay", token=f"{server.table.token}&view=all")
        assert status == 200 and b'"seat":null' in page  # the finished game with every hand shown
        status, answer = request(server, "POST", "/api/new", b"{}")
        fresh = json.loads(answer)
        assert status == 200 and fresh["over"] is False and fresh["moves"] == 0
        assert json.loads((tmp_path / "game.json").read_text()) == record  # the finished game's record is kept
        assert (tmp_path / "next.json").is_file()


def test_hot_seat_people_pass_the_screen_and_each_sees_only_their_own(tmp_path: Path) -> None:
    with web_server(tmp_path, "random", 3, "archmage", seed=6, seat=[0, 1]) as server:
        first = state(server)
        assert first["seat"] == 0 and first["pass_to"] is None and first["legal"]
        assert first["players"] == ["human", "human", "random"]
        status, passing = act(server, first["legal"][0]["action"])
        # Player 1 (the other person) drafts next: the screen shows nothing of seat 0's options, only the hand-over.
        assert status == 200 and passing["seat"] == 0 and passing["pass_to"] == 1 and passing["legal"] == []
        assert passing["prompt"] == "Pass the screen to player 1: it is their decision."
        assert passing["log"][0]["label"] == first["legal"][0]["label"]  # seat 0 knows its own pick
        status, answer = act(server, server.table.game.game.legal_action_list()[0])  # player 1's own option
        assert status == 400 and "pass the screen to them first" in answer["error"]
        status, body = request(server, "POST", "/api/pass", b"{}")
        other = json.loads(body)
        assert status == 200 and other["seat"] == 1 and other["pass_to"] is None and other["legal"]
        assert other["log"][0]["label"].endswith("(a card you do not see)")  # seat 0's pick, as seat 1 knows it
        assert other["view"]["players"][0]["pack"] is None and other["view"]["players"][1]["pack"]
        status, body = request(server, "POST", "/api/pass", b"{}")
        assert status == 400 and "nobody to pass the screen to" in json.loads(body)["error"]
        status, after = act(server, other["legal"][0]["action"])
        # The agent (seat 2) picks, and seat 0 decides again: the screen is to be passed back.
        assert status == 200 and after["seat"] == 1 and after["pass_to"] == 0 and after["moves"] == 3
    record = json.loads((tmp_path / "game.json").read_text())
    assert record["seats"] == ["human", "human", "random"]
    resumed = WebGame.resume(tmp_path / "game.json")
    try:  # both people sit again; the screen shows the seat that decides
        assert resumed.human_seats == (0, 1) and resumed.screen == 0 and resumed.actions == record["actions"]
    finally:
        resumed.stop()


# ---------------------------------------------------------------------------- only what the seat may see


def _positions(num_players: int, level: str, seed: int, every: int) -> list[Game]:
    game = Game.new(num_players, level, seed=seed)
    kept = []
    for k, _ in enumerate(random_play(game, np.random.default_rng(seed))):
        if k % every == 0:
            kept.append(game.clone())
    kept.append(game.clone())
    return kept


@pytest.mark.parametrize(("num_players", "level"), [(2, "archmage"), (3, "magician"), (4, "apprentice")])
def test_paired_positions_give_the_seat_byte_identical_states(num_players: int, level: str) -> None:
    """Two positions that differ only in what the seat cannot see (opponents' hands, libraries, packs, the deck
    order, cards others are choosing among) give the same bytes; the positions themselves do differ."""
    rng = np.random.default_rng(num_players)
    names = ["human" if p == 0 else "heuristic" for p in range(num_players)]
    log = [{"player": 1, "decision": "draft_pick", "label": "x"}]
    compared = differed = 0
    kinds = set()
    for seed in range(3):
        for game in _positions(num_players, level, seed, every=7):
            for seat in range(num_players):
                other = redeal(game, seat, rng)
                if other is None:
                    continue
                mine = encode_state(seat_state(game, seat, names, log))
                assert mine == encode_state(seat_state(other, seat, names, log)), (
                    f"seat {seat} tells the redeal apart at {game.pending_decision} of player {game.current_player}"
                )
                compared += 1
                differed += other.to_dict() != game.to_dict()
                kinds.add(game.pending_decision)
                if not game.is_over and game.current_player == seat:
                    offered = [o["action"] for o in json.loads(mine)["legal"]]
                    assert offered == game.legal_action_list()
    assert compared > 100 and differed > compared // 2
    assert ({"turn"} if level == "apprentice" else {"draft_pick", "library_split", "turn"}) <= kinds


def _chalice_without_room() -> tuple[list[int], Game]:
    """A 2-player Magician game (seed 20, uniform random legal actions from generator 11) up to the first Divine
    Chalice decision of seat 1 with no room in its gauge: the card it chooses is discarded face down."""
    rng = np.random.default_rng(11)
    game = Game.new(2, "magician", seed=20)
    actions: list[int] = []
    while not (game.pending_decision == "divine_chalice" and game.current_player == 1):
        legal = game.legal_action_list()
        actions.append(legal[int(rng.integers(len(legal)))])
        game.apply(actions[-1])
    assert not game.has_room(game.pending_task()[1]) and len(game.legal_action_list()) > 1
    return actions, game


def _told(game: Game, seat: int, names: list[str]) -> dict[bytes, dict[int, str]]:
    """For each of the decider's actions in ``game``, what ``seat`` may know after it (its state's bytes) and what
    the seat's log says of it: {state after: {action: label}}."""
    told: dict[bytes, dict[int, str]] = {}
    view = seat_view(game, seat)
    for action in game.legal_action_list():
        after = game.clone()
        after.apply(action)
        key = json.dumps(seat_view(after, seat).to_dict(), sort_keys=True).encode()
        card = move_card(view, game.current_player, action, own=False)  # the card whose text the log offers
        told.setdefault(key, {})[action] = f"{public_label(view, game.current_player, action)}|{card}"
    return told


def test_the_log_tells_the_seat_the_same_of_moves_it_cannot_tell_apart() -> None:
    """Another player's move is told by what the seat may know: two moves, in positions whose hidden cards differ
    and by actions that differ (a draft pick of another card, a Divine Chalice card discarded face down), after
    which the seat's state is byte-identical, get the same words in its log; a card that enters play is named."""
    rng = np.random.default_rng(7)
    names = ["human", "random", "random"]
    _, chalice = _chalice_without_room()
    positions = [(chalice, ["human", "random"])]
    for seed in range(2):
        positions += [(game, names) for game in _positions(3, "archmage", seed, every=5) if not game.is_over]
    told = set()
    hidden_pairs = 0
    for game, seats in positions:
        actor = game.current_player
        for seat in (q for q in range(len(seats)) if q != actor):
            other = redeal(game, seat, rng)
            if other is None:
                continue
            mine, theirs = _told(game, seat, seats), _told(other, seat, seats)
            for key, labels in mine.items():
                both = {*labels.values(), *theirs.get(key, {}).values()}
                assert len(both) == 1, f"seat {seat} is told {sorted(both)} of {game.pending_decision} moves"
                told.update(label.split(":")[0] for label in both)
                # Moves the seat cannot tell apart by different actions, in the two positions or in one.
                hidden_pairs += key in theirs and set(labels) != set(theirs[key])
    assert hidden_pairs > 10, hidden_pairs
    assert any("a card you do not see" in label for label in told), told
    assert any(label.startswith("summon") for label in told), told


def test_a_divine_chalice_card_discarded_face_down_is_not_named_in_the_log(tmp_path: Path) -> None:
    actions, game = _chalice_without_room()
    chosen = game.legal_action_list()[0]
    named = option_label(game, 1, chosen)  # the card as seat 1 sees it
    assert named.startswith("choose card: ")
    web = WebGame("random", 2, "magician", 20, 0, tmp_path / "game.json", actions=[*actions, chosen])
    try:
        entry = web.state()["log"][len(actions)]
    finally:
        web.stop()
    assert entry["player"] == 1 and entry["decision"] == "divine_chalice"
    assert entry["label"].endswith("(a card you do not see)"), entry
    assert named.removeprefix("choose card: ") not in entry["label"]


def test_a_record_that_cannot_be_written_stops_the_game_with_a_message(tmp_path: Path) -> None:
    folder = tmp_path / "gone"
    folder.mkdir()
    game = WebGame("random", 2, "archmage", 4, 0, folder / "game.json")
    try:
        (folder / "game.json").unlink()
        folder.rmdir()
        game.play(game.game.legal_action_list()[0], len(game.actions))
        assert game.wait(30)
        assert game.state()["error"].startswith(f"cannot write the record {folder / 'game.json'}")
        with pytest.raises(ValueError, match="the game is stopped"):
            game.play(game.game.legal_action_list()[0], len(game.actions))
    finally:
        game.stop()


def test_play_web_options_are_checked(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    runner = CliRunner()
    result = runner.invoke(main, ["play", "--port", "8000"])
    assert result.exit_code == 2 and "is an option of --web" in result.output
    record = tmp_path / "game.json"
    game = WebGame("random", 2, "archmage", 4, 0, record)
    game.stop()
    result = runner.invoke(main, ["play", "--web", "--no-browser", "--resume", str(record), "--players", "3"])
    assert result.exit_code == 2 and "--players come from its record" in result.output
    result = runner.invoke(main, ["play", "--humans", "2"])
    assert result.exit_code == 2 and "is an option of --web" in result.output
    result = runner.invoke(main, ["play", "--web", "--no-browser", "--humans", "3"])
    assert result.exit_code == 2 and "3 people cannot sit at 2 seats" in result.output
    result = runner.invoke(main, ["play", "--web", "--no-browser", "--seat", "2"])
    assert result.exit_code == 2 and "seat must be 0..1" in result.output
    broken = tmp_path / "broken.json"
    broken.write_text('{"num_players": 2, "level": "archmage", "seed": 1, "actions": [0]}')
    result = runner.invoke(main, ["play", "--web", "--no-browser", "--resume", str(broken)])
    assert result.exit_code == 1 and "step 0: action 0" in result.output and "Traceback" not in result.output
    finished = tmp_path / "finished.json"
    with web_server(tmp_path, "random", 2, "apprentice", seed=2, record=finished) as server:
        now = state(server)
        while not now["over"]:
            now = act(server, now["legal"][0]["action"])[1]
    result = runner.invoke(main, ["play", "--web", "--no-browser", "--resume", str(finished)])
    assert result.exit_code == 1 and "the game is finished" in result.output
    result = runner.invoke(main, ["play", "--web", "--no-browser", "--record", str(tmp_path / "no" / "game.json")])
    assert result.exit_code == 2 and "does not exist" in result.output
    # A record that cannot be written there (a folder in its place, a parent that is a file) is refused before the
    # server starts, as the terminal's --record is.
    (tmp_path / "taken").mkdir()
    (tmp_path / "file").write_text("x")
    for unwritable in (tmp_path / "taken", tmp_path / "file" / "game.json"):
        result = runner.invoke(main, ["play", "--web", "--no-browser", "--record", str(unwritable)])
        assert result.exit_code == 2 and "'--record'" in result.output and "Traceback" not in result.output
