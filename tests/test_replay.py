"""Replays: records checked as untrusted input, every position rebuilt, the terminal stepper, animations, the page,
notable games, ``seasons replay`` and ``seasons play --record``."""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from seasons_agents import HeuristicAgent, RandomAgent, play_game
from seasons_agents.human import run_terminal_game
from seasons_env import ACTION_TABLE_VERSION, Game, describe_action
from seasons_env.cli import main
from seasons_env.picture import board_view, picture_size, render_rgb
from seasons_env.replay import (
    RecordError,
    Replay,
    current_versions,
    html_page,
    load_replay,
    make_record,
    notable_games,
    parse_record,
    read_record_lines,
    select_game,
    step_through,
    write_gif,
    write_mp4,
    write_record,
)


def random_record(num_players: int = 2, level: str = "magician", seed: int = 1, policy: bool = False) -> dict:
    """A finished game of random play as a record (the fields an arena record has, plus the actions)."""
    game = Game.new(num_players, level, seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    while not game.is_over:
        legal = game.legal_action_list()
        action = legal[int(rng.integers(len(legal)))]
        actions.append(action)
        game.apply(action)
    record = make_record(
        num_players, level, seed, actions, seats=["random"] * num_players, scores=game.scores(), winners=game.winners()
    )
    if policy:
        record["policy"] = [[[a, 0.75], [0, 0.25]] if k % 3 == 0 else None for k, a in enumerate(actions)]
    return record


def test_replay_rebuilds_every_position_and_ends_at_the_recorded_scores() -> None:
    record = random_record(3, "archmage", 4)
    replay = Replay(parse_record(record))
    game = Game.new(3, "archmage", seed=4)
    for k, action in enumerate(record["actions"]):
        assert replay.positions[k].to_dict() == game.to_dict()
        assert replay.move(k).endswith(describe_action(action))
        game.apply(action)
    assert replay.positions[-1].to_dict() == game.to_dict()
    assert replay.finished and replay.positions[-1].scores() == record["scores"]
    assert replay.score_history()[-1] == record["scores"] and len(replay.score_history()) == len(replay)


class Logged:
    """An agent whose actions are written down (what the arena's records will hold)."""

    def __init__(self, agent, log: list[int]) -> None:
        self.agent, self.log, self.name = agent, log, agent.name

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed=seed)

    def act(self, view: Game, seat: int, legal: Sequence[int]) -> int:
        action = self.agent.act(view, seat, legal)
        self.log.append(int(action))
        return action


def test_a_game_of_play_game_replays_to_its_final_scores() -> None:
    log: list[int] = []
    result = play_game(
        [Logged(RandomAgent(), log), Logged(HeuristicAgent(), log)], level="archmage", seed=11, agent_seed=11
    )
    record = {**result.to_dict(), "actions": log, **current_versions(), "game_index": 3}
    replay = Replay(parse_record(json.loads(json.dumps(record)), "games.jsonl line 4"))
    assert replay.positions[-1].scores() == result.scores and replay.record.seats == ("random", "heuristic")


def _broken(change) -> dict:
    record = random_record()
    change(record)
    return record


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.pop("seed"), "field 'seed' is missing"),
        (lambda r: r.update(num_players=True), "num_players must be an int 2..4; got True"),
        (lambda r: r.update(num_players=5), "num_players must be an int 2..4; got 5"),
        (lambda r: r.update(level="wizard"), "level must be one of"),
        (lambda r: r.update(seed="7"), "seed must be an int"),
        (lambda r: r.update(seed=2**70), "seed must be an int 0..18446744073709551615"),
        (lambda r: r.update(actions="1,2"), "actions must be a list; got str"),
        (lambda r: r["actions"].__setitem__(5, 2.0), r"actions\[5\] must be an int 0..313; got 2.0"),
        (lambda r: r["actions"].__setitem__(7, 999), r"actions\[7\] must be an int 0..313; got 999"),
        (lambda r: r.update(action_table_version=ACTION_TABLE_VERSION + 1), "action_table_version is"),
        (lambda r: r.update(state_version=99), "state_version is 99 but this engine's is"),
        (lambda r: r.update(config={"state_version": 99}), "config.state_version is 99 but this engine's is"),
        (lambda r: r.update(config={"action_table_version": 0}), "config.action_table_version is 0"),
        (lambda r: r.update(config=[1]), "config must be a JSON object"),
        (lambda r: r.update(seats=["a"]), "seats must hold 2 entries"),
        (lambda r: r.update(seats=["a", 3]), r"seats\[1\] must be a name"),
        (lambda r: r.update(scores=[1, "2"]), r"scores\[1\] must be an int"),
        (lambda r: r.update(winners=[2]), r"winners\[0\] must be an int 0..1"),
        (lambda r: r.update(policy=[]), "policy must hold"),
        (lambda r: r.update(policy=[[[1, 1.5]]] + [None] * (len(r["actions"]) - 1)), r"policy\[0\]\[0\]\[1\]"),
        (lambda r: r.update(policy=[[[1]]] + [None] * (len(r["actions"]) - 1)), r"policy\[0\]\[0\] must be a pair"),
    ],
)
def test_a_malformed_record_is_refused_naming_the_field(change, message: str) -> None:
    with pytest.raises(RecordError, match=message) as caught:
        Replay(parse_record(_broken(change), "games.jsonl line 9"))
    assert str(caught.value).startswith("games.jsonl line 9: ")


def test_an_illegal_action_is_refused_naming_the_step() -> None:
    record = random_record()
    game = Game.new(2, "magician", seed=1)
    for action in record["actions"][:20]:
        game.apply(action)
    illegal = next(a for a in range(314) if a not in game.legal_action_list())
    record["actions"][20] = illegal
    with pytest.raises(RecordError, match=rf"step 20: action {illegal} \(.*\) is not legal for player \d's decision"):
        Replay(parse_record(record))


def test_the_replay_must_end_where_the_record_says() -> None:
    record = random_record()
    with pytest.raises(RecordError, match=r"ends with scores .*, the record says \[1, 2\]"):
        Replay(parse_record({**record, "scores": [1, 2]}))
    with pytest.raises(RecordError, match="the record says"):
        Replay(parse_record({**record, "winners": [1 - record["winners"][0]]}))
    with pytest.raises(RecordError, match="end before the game does"):
        Replay(parse_record({**record, "actions": record["actions"][:-1]}))
    with pytest.raises(RecordError, match=rf"step {len(record['actions'])}: the game is over"):
        Replay(parse_record({**record, "actions": [*record["actions"], 0]}))
    unfinished = {k: v for k, v in record.items() if k not in ("scores", "winners")}
    unfinished["actions"] = record["actions"][:30]
    replay = Replay(parse_record(unfinished))
    assert not replay.finished and len(replay) == 31 and "not finished" in replay.move(30)


def test_records_from_jsonl_files_and_arena_folders(tmp_path: Path) -> None:
    records = [{**random_record(seed=s), "game_index": 10 + s} for s in range(3)]
    folder = tmp_path / "arena"
    folder.mkdir()
    lines = "".join(json.dumps(r) + "\n" for r in records) + '{"torn": '  # a run killed mid-line
    (folder / "games.jsonl").write_text(lines, encoding="utf-8")
    entries = read_record_lines(folder)
    assert [w for w, _ in entries] == [f"{folder / 'games.jsonl'} line {k}" for k in (1, 2, 3)]
    assert select_game(entries, 12)[1]["seed"] == 2 and select_game(entries, None)[1]["seed"] == 0
    with pytest.raises(RecordError, match="no record has game_index 5; the records hold 10, 11, 12"):
        select_game(entries, 5)
    assert load_replay(folder, 11).record.seed == 1
    # A malformed line in the middle is an error naming the file and the line.
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(json.dumps(records[0]).encode() + b"\n[1, 2]\n" + json.dumps(records[1]).encode() + b"\n")
    with pytest.raises(RecordError, match=r"bad.jsonl line 2: a record must be a JSON object; got list"):
        read_record_lines(bad)
    bad.write_bytes(json.dumps(records[0]).encode() + b"\n\xff\xfe\n" + json.dumps(records[1]).encode() + b"\n")
    with pytest.raises(RecordError, match=r"bad.jsonl line 2: not UTF-8"):
        read_record_lines(bad)
    without_index = tmp_path / "plain.jsonl"
    without_index.write_text("".join(json.dumps(random_record(seed=s)) + "\n" for s in (5, 6)), encoding="utf-8")
    assert select_game(read_record_lines(without_index), 1)[1]["seed"] == 6
    with pytest.raises(RecordError, match=r"game 2 does not exist: the file holds 2 records \(0..1\)"):
        select_game(read_record_lines(without_index), 2)
    with pytest.raises(RecordError, match=r"is a folder without games\.jsonl"):
        read_record_lines(tmp_path)


def test_json_lines_named_json_are_read_as_json_lines(tmp_path: Path) -> None:
    """A games.jsonl saved as .json (it failed with "Extra data: line 2") is read line by line; several records
    that are not one per line get an error saying how several records are written."""
    records = [{**random_record(seed=s), "game_index": s} for s in range(2)]
    renamed = tmp_path / "games.json"
    renamed.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    entries = read_record_lines(renamed)
    assert [w for w, _ in entries] == [f"{renamed} line 1", f"{renamed} line 2"]
    assert [data for _, data in entries] == records
    result = CliRunner().invoke(main, ["replay", str(renamed), "--game", "1", "--png", str(tmp_path / "g1.png")])
    assert result.exit_code == 0, result.output
    pretty = tmp_path / "pretty.json"
    pretty.write_text("".join(json.dumps(r, indent=1) + "\n" for r in records), encoding="utf-8")
    with pytest.raises(RecordError, match=r"pretty.json: not a JSON record \(Extra data: .*one JSON object per line"):
        read_record_lines(pretty)
    result = CliRunner().invoke(main, ["replay", str(pretty)])
    assert result.exit_code == 1 and "one JSON object per line" in result.output and "Traceback" not in result.output


def test_write_record_is_atomic_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    record = random_record()
    write_record(path, record)
    assert json.loads(path.read_text(encoding="utf-8")) == record
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # the mode of any new file, not mkstemp's 0600
    with pytest.raises(RecordError, match="actions"):
        write_record(path, {**record, "actions": ["x"]})
    assert json.loads(path.read_text(encoding="utf-8")) == record  # the old file is intact
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]  # no temporary file left behind


def test_terminal_stepper_moves_next_previous_and_jumps() -> None:
    replay = Replay(parse_record(random_record()))
    last = len(replay) - 1
    out = io.StringIO()
    step_through(replay, seat=1, input_stream=io.StringIO("\nn\np\n7\nzz\n99999\ne\nn\ns\np\nq\n"), output=out)
    shown = [int(k) for k in re.findall(r"^Position (\d+) of", out.getvalue(), flags=re.M)]
    assert shown == [0, 1, 2, 1, 7, 7, 7, last, last, 0, 0]
    text = out.getvalue()
    assert "'zz' is not a command" in text and f"There is no position 99999: the positions are 0..{last}" in text
    assert "This is the last position" in text and "This is the first position" in text
    assert "Game over. Final scores" in text and "as seen by player 1" in text


def test_another_seats_card_choice_is_not_named_in_a_seat_view() -> None:
    replay = Replay(parse_record(random_record()))
    assert replay.positions[0].current_player == 0 and replay.positions[0].pending_decision == "draft_pick"
    assert replay.label(0, seat=1) == "chooses a card (not shown to player 1)"
    assert replay.label(0, seat=0) == replay.label(0) == describe_action(replay.record.actions[0])


def _partial(actions: int = 12) -> Replay:
    record = random_record()
    unfinished = {k: v for k, v in record.items() if k not in ("scores", "winners")}
    return Replay(parse_record({**unfinished, "actions": record["actions"][:actions]}))


def test_gif_has_one_frame_per_position(tmp_path: Path) -> None:
    path = tmp_path / "game.gif"
    write_gif(_partial(12), path, seat=0, fps=4)
    with Image.open(path) as gif:
        assert gif.n_frames == 13 and gif.size == picture_size(2)
    assert [p.name for p in tmp_path.iterdir()] == ["game.gif"]


def test_mp4_has_one_frame_per_position(tmp_path: Path) -> None:
    imageio = pytest.importorskip("imageio", reason="the video extra (imageio, imageio-ffmpeg) writes MP4")
    path = tmp_path / "game.mp4"
    write_mp4(_partial(12), path, fps=4)
    reader = imageio.get_reader(path)
    try:
        assert reader.count_frames() == 13 and reader.get_meta_data()["size"] == picture_size(2)
    finally:
        reader.close()


def _page_data(page: str) -> dict:
    match = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page, flags=re.S)
    return json.loads(match.group(1))


def test_page_is_self_contained_and_holds_only_the_seats_view() -> None:
    record = random_record(policy=True)
    record["seats"] = ["</script><script>alert(1)</script>", "random"]
    replay = Replay(parse_record(record))
    page = html_page(replay, seat=1)
    assert "</script><script>alert(1)" not in page  # a record's text cannot end the data element
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)  # nothing fetched
    # The board drawing the play page shares, inlined before the page's own script.
    web = Path(__file__).resolve().parents[1] / "seasons_env" / "web"
    scripts = re.findall(r"<script>(.*?)</script>", page, flags=re.S)
    assert scripts == [(web / "board.js").read_text(encoding="utf-8"), (web / "replay.js").read_text(encoding="utf-8")]
    data = _page_data(page)
    assert len(data["steps"]) == len(replay)
    for k, step in enumerate(data["steps"]):
        assert step["view"] == json.loads(json.dumps(board_view(replay.positions[k], 1)))
        assert step["move"] == replay.move(k, 1)
        seat_decides = k < len(record["actions"]) and replay.positions[k].current_player == 1
        assert (step["policy"] is not None) == (seat_decides and k % 3 == 0)
    god = _page_data(html_page(replay))
    assert god["steps"][0]["policy"] == [[describe_action(record["actions"][0]), 0.75], ["end turn", 0.25]]


def test_notable_games_highest_score_and_biggest_upset() -> None:
    def game(seats: list[str], scores: list[int], index: int) -> dict:
        best = max(scores)
        return {
            "seats": seats,
            "scores": scores,
            "winners": [p for p, s in enumerate(scores) if s == best],
            "game_index": index,
        }

    records = [
        game(["strong", "weak"], [80, 20], 0),
        game(["weak", "strong"], [30, 90], 1),
        game(["strong", "weak"], [70, 75], 2),  # the weak agent's only win
        game(["weak", "strong"], [10, 120], 3),
        game(["strong", "weak"], [60, 40], 4),
    ]
    result = notable_games(records)
    assert result["highest_score"]["index"] == 3 and result["highest_score"]["score"] == 120
    upset = result["biggest_upset"]
    assert upset["index"] == 2 and upset["game_index"] == 2 and upset["seat"] == 1
    assert "weak, 20% wins overall) beat player 0 (strong, 80% wins overall), 75 to 70" in upset["reason"]
    assert notable_games(records[:2])["biggest_upset"] is None  # the stronger agent won every game
    with pytest.raises(RecordError, match=r"record 1: field 'scores' must be a list of ints"):
        notable_games([records[0], {"seats": ["a", "b"]}])
    with pytest.raises(RecordError, match=r"record 0: field 'seats' must list one agent name per seat"):
        notable_games([{**records[0], "seats": ["a"]}])
    with pytest.raises(RecordError, match=r"games.jsonl line 2: winners\[0\] must be an int 0..1"):
        notable_games([records[0], {**records[1], "winners": [7]}], ["games.jsonl line 1", "games.jsonl line 2"])


def test_cli_replay_writes_a_page_and_refuses_a_bad_record(tmp_path: Path) -> None:
    record_file = tmp_path / "game.json"
    write_record(record_file, random_record())
    runner = CliRunner()
    result = runner.invoke(main, ["replay", str(record_file), "--html", str(tmp_path / "game.html"), "--seat", "1"])
    assert result.exit_code == 0, result.output
    assert "html written to" in result.output and (tmp_path / "game.html").stat().st_size > 10_000
    bad = random_record()
    bad["actions"][3] = 313
    (tmp_path / "bad.json").write_text(json.dumps(bad), encoding="utf-8")
    result = runner.invoke(main, ["replay", str(tmp_path / "bad.json")])
    assert result.exit_code == 1 and "step 3: action 313" in result.output
    result = runner.invoke(main, ["replay", str(record_file), "--seat", "3"])
    assert result.exit_code == 2 and "seat must be 0..1" in result.output
    result = runner.invoke(main, ["replay", str(record_file), "--html", str(tmp_path / "nowhere" / "x.html")])
    assert result.exit_code == 2 and "does not exist" in result.output
    result = runner.invoke(main, ["replay", str(record_file), "--png", str(tmp_path / "at5.png"), "--at", "5"])
    assert result.exit_code == 0, result.output
    with Image.open(tmp_path / "at5.png") as picture:
        expected = render_rgb(Replay(parse_record(random_record())).positions[5])
        assert np.array_equal(np.asarray(picture.convert("RGB")), expected)
    result = runner.invoke(main, ["replay", str(record_file), "--png", str(tmp_path / "x.png"), "--at", "100000"])
    assert result.exit_code == 2 and "position must be 0.." in result.output
    result = runner.invoke(main, ["replay", str(record_file)], input="n\nq\n")
    assert result.exit_code == 0 and "Position 1 of" in result.output


def test_cli_replay_notable_games_of_an_arena_folder(tmp_path: Path) -> None:
    records = []
    for index, seed in enumerate(range(4)):
        record = random_record(seed=seed)
        record["seats"] = ["alpha", "beta"] if index % 2 == 0 else ["beta", "alpha"]
        record["game_index"] = index
        records.append(record)
    records.insert(0, records.pop())  # an interrupted run's records are not in game order: line != game_index + 1
    folder = tmp_path / "arena"
    folder.mkdir()
    (folder / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    expected = notable_games(records)
    result = CliRunner().invoke(main, ["replay", str(folder), "--notable", "--html", str(tmp_path / "notable.html")])
    assert result.exit_code == 0, result.output
    best_number = expected["highest_score"]["game_index"]
    line = expected["highest_score"]["index"] + 1
    assert f"highest score: game {best_number} (--game {best_number}; {folder / 'games.jsonl'} line {line})" in (
        result.output
    )
    # the number shown is the one --game takes: it picks the same game
    chosen = CliRunner().invoke(
        main, ["replay", str(folder), "--game", str(best_number), "--png", str(tmp_path / "b.png")]
    )
    assert chosen.exit_code == 0, chosen.output
    page = (tmp_path / "notable-highest-score.html").read_text(encoding="utf-8")
    best = records[expected["highest_score"]["index"]]
    assert _page_data(page)["steps"][-1]["view"]["players"][0]["score"] == best["scores"][0]
    assert (tmp_path / "notable-biggest-upset.html").exists() == (expected["biggest_upset"] is not None)


def test_every_game_of_an_arena_replays_to_its_recorded_scores(tmp_path: Path) -> None:
    from seasons_agents.arena import Arena, ArenaConfig

    config = ArenaConfig(agents=("random", "heuristic"), num_players=2, games=4, level="magician", seed=3)
    Arena(config, tmp_path).run(progress=False)
    entries = read_record_lines(tmp_path)
    assert len(entries) == 4 and all("config" in data for _, data in entries)
    for where, data in entries:
        replay = Replay(parse_record(data, where))  # checks the versions the arena kept in the record's config
        assert replay.finished and replay.positions[-1].scores() == data["scores"]


def test_play_record_option_writes_a_replayable_record(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    out = io.StringIO()
    result = run_terminal_game(
        RandomAgent,
        seed=5,
        agent_seed=6,
        input_stream=io.StringIO("1\n" * 3000),
        output_stream=out,
        record_path=path,
    )
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["action_table_version"] == ACTION_TABLE_VERSION and saved["seats"] == ["human", "random"]
    replay = load_replay(path)
    assert replay.finished and replay.positions[-1].scores() == result.scores == saved["scores"]
    assert f"Game record written to {path}" in out.getvalue()
    # Quitting keeps the unfinished game.
    quit_path = tmp_path / "quit.json"
    run_terminal_game(
        RandomAgent,
        seed=5,
        agent_seed=6,
        input_stream=io.StringIO("1\n1\nq\n"),
        output_stream=io.StringIO(),
        record_path=quit_path,
    )
    unfinished = load_replay(quit_path)
    assert not unfinished.finished and "scores" not in json.loads(quit_path.read_text(encoding="utf-8"))
    assert unfinished.record.actions[:2] == replay.record.actions[:2]
    with pytest.raises(ValueError, match=r"record_path: cannot write .*folder .* does not exist"):
        run_terminal_game(RandomAgent, seed=5, record_path=tmp_path / "missing" / "x.json")


def test_readme_board_picture_is_made_by_the_command_it_shows(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    command = "seasons replay docs/board-game.json --png docs/board.png --at 240"
    assert command in readme and "![The board" in readme and "(docs/board.png)" in readme
    args = command.split()[1:]
    args[args.index("docs/board.png")] = str(tmp_path / "board.png")
    args[args.index("docs/board-game.json")] = str(root / "docs" / "board-game.json")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    with Image.open(tmp_path / "board.png") as made, Image.open(root / "docs" / "board.png") as shown:
        made_pixels, shown_pixels = np.asarray(made.convert("RGB")), np.asarray(shown.convert("RGB"))
    assert made_pixels.shape == shown_pixels.shape
    # Identical here; another Pillow build may rasterise a few glyph edges differently.
    assert (made_pixels != shown_pixels).any(axis=2).mean() < 0.01


def test_an_output_named_for_another_format_is_refused(tmp_path: Path) -> None:
    record_file = tmp_path / "game.json"
    write_record(record_file, random_record())
    for option, name in (("--png", "x.gif"), ("--gif", "x.png"), ("--html", "x.txt"), ("--mp4", "x.gif")):
        result = CliRunner().invoke(main, ["replay", str(record_file), option, str(tmp_path / name)])
        assert result.exit_code == 2 and f"'{option}'" in result.output and "does not end in ." in result.output
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]  # nothing written


def test_a_gif_is_streamed_one_frame_at_a_time(tmp_path: Path, monkeypatch) -> None:
    """No more than a few pictures are alive at once however long the game (a 470-action game held 3.2 GB), and
    the frames (written as the parts that changed) decode to exactly the pictures drawn."""
    import weakref

    from seasons_env import replay as replay_module

    alive: set[int] = set()
    most = [0]
    drawn: list[np.ndarray] = []

    def small_picture(view) -> Image.Image:  # a stand-in for the board picture: a few colours, a moving block
        k = len(drawn) // 2  # pairs of equal pictures: an unchanged frame is written too
        picture = Image.new("RGB", (48, 32), (30, 90, 160))
        picture.paste((200, 60, 40), (k % 40, k % 24, k % 40 + 6, k % 24 + 5))
        drawn.append(np.asarray(picture))
        alive.add(id(picture))
        weakref.finalize(picture, alive.discard, id(picture))
        most[0] = max(most[0], len(alive))
        return picture

    monkeypatch.setattr(replay_module, "draw_view", small_picture)
    replay = _partial(60)
    path = tmp_path / "game.gif"
    write_gif(replay, path)
    assert most[0] <= 12  # the palette's few sample pictures, then one at a time (61 were held at once)
    frames_drawn = drawn[-len(replay) :]  # after the palette's sample
    with Image.open(path) as gif:
        assert gif.n_frames == 61 and gif.info["loop"] == 0 and gif.info["duration"] == 500
        for k in range(gif.n_frames):
            gif.seek(k)
            assert np.array_equal(np.asarray(gif.convert("RGB")), frames_drawn[k]), k


def test_deeply_nested_json_and_an_empty_winners_list_are_refused_naming_the_file(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    result = CliRunner().invoke(main, ["replay", str(deep)])
    assert result.exit_code == 1 and f"{deep}: not a JSON record (nested too deeply)" in result.output
    deep_lines = tmp_path / "deep.jsonl"
    deep_lines.write_text(json.dumps(random_record()) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    result = CliRunner().invoke(main, ["replay", str(deep_lines), "--game", "1"])
    assert result.exit_code == 1 and f"{deep_lines} line 2: not a JSON record (nested too deeply)" in result.output
    games = tmp_path / "games.jsonl"
    records = [random_record(seed=1), {**random_record(seed=2), "winners": []}]
    games.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = CliRunner().invoke(main, ["replay", str(games), "--notable"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{games} line 2: winners must list at least one seat 0..1" in result.output
    with pytest.raises(RecordError, match=r"winners must list at least one seat 0\.\.1, each once; got \[\]"):
        parse_record(records[1])


def test_seeds_beyond_what_a_record_holds_are_refused_where_given(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["play", "--seed", str(2**64), "--record", str(tmp_path / "g.json")], input="q\n")
    assert result.exit_code == 2 and "'--seed'" in result.output and "0<=x<=18446744073709551615" in result.output
    result = runner.invoke(main, ["arena", "--seed", str(2**64), "--out", str(tmp_path / "arena")])
    assert result.exit_code == 2 and "'--seed'" in result.output and "must be an integer 0.." in result.output
    largest = (2**64 - 1 - 10**7) // 1_000_003  # every game's seed, SEED * 1000003 + block, fits in 64 bits
    result = runner.invoke(main, ["arena", "--seed", str(largest + 1), "--out", str(tmp_path / "arena")])
    assert result.exit_code == 2 and f"must be an integer 0..{largest}" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written
    with pytest.raises(ValueError, match=f"seed must be an integer 0..{2**64 - 1}"):
        run_terminal_game(RandomAgent, seed=2**64, input_stream=io.StringIO("q\n"), output_stream=io.StringIO())
    # the ranges records are checked against are named exactly (they were one too high)
    ranges = (("state_version", 2**31, "0..2147483647"), ("game_index", 2**63, "0..9223372036854775807"))
    for field, value, shown in ranges:
        with pytest.raises(RecordError, match=re.escape(f"{field} must be an int {shown}; got {value}")):
            parse_record({**random_record(), field: value})
