"""The page of ``seasons play --web`` in a real headless browser (the system's Chromium, driven by Playwright, as
``tests/test_replay_browser.py`` does): whole games played by clicking a random legal control each time, the
score's parts shown during the game adding up to it, the end screen's breakdown and final scores checked against
the record replayed by the engine; screenshots on a wide and a narrow window; keyboard play."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from test_replay_browser import CHROMIUM_FLAGS, _chromium
from web_play import base_url, web_server

from seasons_agents.web_words import score_parts
from seasons_env.replay import Replay, parse_record

SETTLED = "() => ['ready', 'over', 'error', 'pass'].includes(document.body.dataset.phase)"


@pytest.fixture(scope="module")
def browser():
    executable = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright (test extra) drives the browser")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


class Watched:
    """A page with its errors and requests collected."""

    def __init__(self, browser, server, width: int = 1280, height: int = 900) -> None:
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.origin = base_url(server)
        self.page.goto(f"{self.origin}/?token={server.table.token}&pause=0")
        self.settle()

    def settle(self) -> str:
        self.page.wait_for_function(SETTLED, timeout=60_000)
        return self.page.evaluate("() => document.body.dataset.phase")

    def moves(self) -> int:
        return int(self.page.evaluate("() => document.body.dataset.moves"))

    def click_random(self, rng: np.random.Generator) -> None:
        controls = self.page.locator(".choice[data-action]")
        controls.nth(int(rng.integers(controls.count()))).click()

    def close(self) -> None:
        self.page.close()
        assert not self.errors, self.errors
        assert all(url.startswith(self.origin + "/") for url in self.requests), self.requests  # nothing external


def _play_to_the_end(watched: Watched, rng: np.random.Generator, midway: int | None = None) -> int:
    """Click a random legal control until the game is over; the number of clicks. With ``midway``, the score's
    parts are checked once, at the first decision after that many moves."""
    clicks = 0
    while watched.settle() == "ready":
        if midway is not None and watched.moves() >= midway:
            _check_score_parts(watched.page)
            midway = None
        before = watched.moves()
        watched.click_random(rng)
        clicks += 1
        assert watched.settle() in ("ready", "over"), watched.page.inner_text("#status")
        assert watched.moves() > before
    return clicks


def _check_score_parts(page) -> None:
    """During the game each player's score says what it counts, and the parts add up to it."""
    players = page.locator(".score-parts").count()
    assert players >= 2
    for p in range(players):
        parts = page.inner_text(f"#p{p}-score-parts")
        assert all(word in parts for word in ("crystals", "prestige", "bonuses", "in hand", "if the game ended"))
        crystals, prestige, bonus, hand = (int(n) for n in re.findall(r"\d+", parts.split("(")[0])[:4])
        score = int(page.inner_text(f"#p{p}-score").split()[2])
        assert crystals + prestige - bonus - hand == score


def _check_end_screen(page, final) -> None:
    """The end screen's breakdown of each score: the engine's parts of the final position, adding up to the score."""
    rows = page.locator("#final-scores tr")
    assert rows.count() == final.num_players
    for p in range(final.num_players):
        row = rows.nth(p)
        got = {key: int(row.get_attribute(f"data-{key}")) for key in ("crystals", "prestige", "score")}
        got["bonus"] = int(row.get_attribute("data-bonus-penalty"))
        got["hand"] = int(row.get_attribute("data-hand-penalty"))
        assert got["crystals"] + got["prestige"] - got["bonus"] - got["hand"] == got["score"] == final.scores()[p]
        parts = score_parts(final, p)
        assert (got["crystals"], got["prestige"], got["bonus"], got["hand"]) == (
            parts["crystals"],
            parts["prestige"],
            parts["bonus_penalty"],
            parts["hand_penalty"],
        )
        assert row.locator(".total").inner_text() == str(final.scores()[p])
    # The words say what the wheel says: past the last space, the game's end (not a season of a year 4).
    assert ("(end)" in page.text_content("#year")) == ("is over" in page.inner_text("#where"))


@pytest.mark.parametrize(
    ("num_players", "level", "opponent", "seed"),
    [
        (2, "archmage", "random", 11),
        (2, "magician", "heuristic", 13),
        (3, "magician", "random", 14),
        (3, "apprentice", "heuristic", 12),
    ],
)
def test_a_whole_game_clicked_in_chromium_ends_with_the_records_scores(
    browser, tmp_path: Path, num_players: int, level: str, opponent: str, seed: int
) -> None:
    record_path = tmp_path / "game.json"
    with web_server(tmp_path, opponent, num_players, level, seed, seat=1, record=record_path) as server:
        watched = Watched(browser, server)
        clicks = _play_to_the_end(watched, np.random.default_rng(seed), midway=60)
        page = watched.page
        assert watched.settle() == "over"
        shown = {
            int(item.get_attribute("data-player")): int(item.get_attribute("data-score"))
            for item in page.locator("#final-scores tr").all()
        }
        assert page.is_visible("#winner") and page.is_visible("#replay-link") and page.is_visible("#new-game")
        record = json.loads(record_path.read_text())
        replay = Replay(parse_record(record))
        final = replay.positions[-1]
        assert final.is_over
        assert shown == dict(enumerate(final.scores())) == dict(enumerate(record["scores"]))
        _check_end_screen(page, final)
        assert sorted(record["winners"]) == sorted(final.winners())
        assert record["seats"][1] == "human"
        assert clicks == sum(1 for game in replay.positions[:-1] if game.current_player == 1)
        # The replay page of the record opens from the link.
        with page.context.expect_page() as opened:
            page.click("#replay-link")
        replay_page = opened.value
        replay_page.wait_for_load_state()
        assert replay_page.title().startswith("Seasons replay")
        assert replay_page.inner_text("#view-label") == "As seen by player 1"
        replay_page.close()
        watched.close()


def _screenshot_is_not_blank(path: Path) -> None:
    image = Image.open(path).convert("RGB")
    colors = image.getcolors(maxcolors=1 << 20)
    assert colors is None or len(colors) > 50, f"{path.name} has only {len(colors)} colours"


@pytest.mark.parametrize(("width", "height", "name"), [(1280, 900, "wide"), (390, 844, "narrow")])
def test_a_screenshot_mid_game_shows_the_board_and_the_choices(
    browser, tmp_path: Path, width: int, height: int, name: str
) -> None:
    with web_server(tmp_path, "heuristic", 2, "magician", seed=4) as server:
        watched = Watched(browser, server, width, height)
        rng = np.random.default_rng(4)
        page = watched.page
        while page.evaluate("() => document.querySelector('#dice .die') === null") or watched.moves() < 30:
            watched.click_random(rng)
            assert watched.settle() == "ready"
        for selector in ("#wheel", "#dice .die", "#hand", "#player-0", "#player-1", "#p1-crystals", "#p0-gauge"):
            assert page.locator(selector).first.is_visible(), selector
        assert page.locator("#options button[data-action]").count() >= 1
        assert page.locator("#log li").count() >= 30
        assert page.inner_text("#prompt")
        assert page.inner_text("#p1-hand-size").startswith("Hand ")
        # Nothing wider than the window: no sideways scrolling on a phone.
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        shot = tmp_path / f"web-{name}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 20_000
        _screenshot_is_not_blank(shot)
        watched.close()


def test_keys_choose_options_by_number_and_with_the_arrows(browser, tmp_path: Path) -> None:
    record_path = tmp_path / "game.json"
    with web_server(tmp_path, "random", 2, "archmage", seed=21, record=record_path) as server:
        watched = Watched(browser, server)
        page = watched.page

        def offered() -> list[int]:
            return [int(b.get_attribute("data-action")) for b in page.locator("#options button[data-action]").all()]

        def last_human_action() -> int:
            record = json.loads(record_path.read_text())
            replay = Replay(parse_record(record))
            mine = [a for k, a in enumerate(record["actions"]) if replay.positions[k].current_player == 0]
            return mine[-1]

        legal = offered()
        page.keyboard.press("1")  # with 10 options or more, after a moment for a second digit
        page.wait_for_function("() => Number(document.body.dataset.moves) > 0")
        watched.settle()
        assert last_human_action() == legal[0]
        legal = offered()
        page.keyboard.press("ArrowDown")
        assert page.get_attribute("#options button.selected", "data-index") == "1"
        page.keyboard.press("Enter")
        watched.settle()
        assert last_human_action() == legal[1]
        legal = offered()
        page.keyboard.press("ArrowUp")  # from the first option up to the last
        page.keyboard.press("Enter")
        watched.settle()
        assert last_human_action() == legal[-1]
        # A number past the options does nothing; a valid one after it chooses.
        legal = offered()
        moves = watched.moves()
        if len(legal) < 9:
            page.keyboard.press("9")
            page.wait_for_timeout(800)
            assert watched.moves() == moves
        page.keyboard.press(str(min(2, len(legal))))
        page.wait_for_function(f"() => Number(document.body.dataset.moves) > {moves}")
        watched.settle()
        assert last_human_action() == legal[min(2, len(legal)) - 1]
        watched.close()


def test_the_page_says_who_is_thinking_while_an_agent_decides(browser, tmp_path: Path) -> None:
    release = threading.Event()

    class Slow:
        name = "slow"

        def act(self, view, seat, legal):
            assert release.wait(30)
            return legal[0]

    with web_server(tmp_path, "slow", 2, "archmage", seed=3, seat=1, agent_factory=lambda spec, seed: Slow()) as server:
        watched_page = browser.new_page(viewport={"width": 1000, "height": 800})
        watched_page.goto(f"{base_url(server)}/?token={server.table.token}&pause=0")
        watched_page.wait_for_function("() => document.getElementById('status').textContent.includes('thinking')")
        assert watched_page.inner_text("#status").startswith("Player 0 (slow) is thinking")
        assert watched_page.evaluate("() => document.body.dataset.phase") == "waiting"
        assert watched_page.locator(".choice").count() == 0
        release.set()
        watched_page.wait_for_function(SETTLED)
        assert watched_page.evaluate("() => document.body.dataset.phase") == "ready"
        assert watched_page.inner_text("#status") == "Your move."
        watched_page.close()


def test_hot_seat_the_screen_is_passed_between_two_people(browser, tmp_path: Path) -> None:
    with web_server(tmp_path, "random", 2, "apprentice", seed=8, seat=[0, 1]) as server:
        watched = Watched(browser, server)
        page, rng = watched.page, np.random.default_rng(8)
        passes = 0
        while watched.moves() < 40:
            phase = watched.settle()
            if phase == "pass":
                # Nothing of the last seat stays on the screen: no board, no hand, no moves.
                assert page.locator("#board *").count() == 0 and page.locator("#log li").count() == 0
                assert page.is_hidden("#options") and page.is_visible("#pass-button")
                seat = server.table.game.game.current_player
                assert page.inner_text("#pass-prompt") == f"Pass the screen to player {seat}."
                page.click("#pass-button")
                page.wait_for_function(f"() => document.getElementById('meta').textContent.includes('player {seat}.')")
                passes += 1
            else:
                assert phase == "ready"
                watched.click_random(rng)
        assert passes >= 5
        watched.close()
