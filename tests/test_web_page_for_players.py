"""The page of ``seasons play --web`` as a board-game player uses it, in headless Chromium (Playwright): a card's
text opens on click or tap and never plays a move, choosing is its own button; what changed since the last decision
is highlighted; no internal name on the page; the other players' hidden cards never reach the page; and one whole
game against the installed ``seasons`` command. The score's breakdown, during the game and on the end screen:
``tests/test_web_browser.py``."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import numpy as np
import pytest
from installed import start_installed
from test_web_browser import SETTLED, Watched, browser  # noqa: F401 (the browser fixture)
from test_web_words import INTERNAL
from web_play import state, web_server

from seasons_agents.web_words import card_facts
from seasons_env.engine.data import CARD_BY_NAME, CARDS
from seasons_env.picture import board_view
from seasons_env.replay import Replay, parse_record


def _moves_played(server) -> int:
    return len(server.table.game.actions)


def _dialog(page) -> dict:
    assert page.is_visible("#card-text")
    return {key: page.inner_text(f"#card-{key}") for key in ("title", "type", "cost", "prestige", "effect")}


def _expected(name: str, num_players: int) -> dict:
    facts = card_facts(CARD_BY_NAME[name], num_players)
    return {"title": name, "type": facts["type"], "cost": facts["cost"], "prestige": str(facts["prestige"])} | {
        "effect": CARDS[CARD_BY_NAME[name]].effect
    }


def test_reading_a_card_that_is_an_option_plays_no_move(browser, tmp_path: Path) -> None:  # noqa: F811
    with web_server(tmp_path, "random", 2, "archmage", seed=31) as server:
        watched = Watched(browser, server)
        page = watched.page
        assert server.table.game.game.pending_decision == "draft_pick"
        pack = page.locator("#pack .card")
        assert pack.count() == 9 and page.locator("#pack .card .pick[data-action]").count() == 9  # all options
        played = _moves_played(server)
        # Its name, and anywhere else on the card: the text opens, nothing is played.
        name = pack.nth(0).get_attribute("data-card")
        pack.nth(0).locator(".card-name").click()
        assert _dialog(page) == _expected(name, 2)
        page.click("#card-close")
        assert page.is_hidden("#card-text")
        other = pack.nth(3).get_attribute("data-card")
        pack.nth(3).click(position={"x": 120, "y": 6})
        assert _dialog(page) == _expected(other, 2)
        page.keyboard.press("Escape")
        assert page.is_hidden("#card-text")
        # From the numbered list's reading button, too.
        option = page.locator("#options li").nth(5)
        listed = option.locator(".read").get_attribute("data-card")
        option.locator(".read").click()
        assert _dialog(page)["title"] == listed
        page.wait_for_timeout(300)
        assert _moves_played(server) == played and watched.moves() == played and watched.settle() == "ready"
        # Choosing is the explicit button under the text: it plays that card.
        chosen = page.locator("#card-choices button[data-action]")
        assert chosen.count() == 1 and listed in chosen.inner_text()
        chosen.click()
        page.wait_for_function(f"() => Number(document.body.dataset.moves) > {played}")
        watched.settle()
        assert state(server)["log"][played]["card"] == listed
        # The log names the seat's own pick, and its text opens from there.
        page.locator("#log li .read").first.click()
        assert _dialog(page)["title"] == listed
        page.click("#card-close")
        watched.close()


def test_a_tap_opens_a_cards_text_on_a_phone(browser, tmp_path: Path) -> None:  # noqa: F811
    with web_server(tmp_path, "random", 2, "magician", seed=32) as server:
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/?token={server.table.token}&pause=0")
        page.wait_for_function(SETTLED)
        card = page.locator("#pack .card").nth(2)
        name = card.get_attribute("data-card")
        played = _moves_played(server)
        card.locator(".card-name").tap()
        assert _dialog(page) == _expected(name, 2)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        box = page.locator("#card-text").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        page.locator("#card-close").tap()
        assert page.is_hidden("#card-text") and _moves_played(server) == played
        card.locator(".pick").tap()  # the card's own button chooses it
        page.wait_for_function(f"() => Number(document.body.dataset.moves) > {played}")
        assert state(server)["log"][played]["card"] == name
        context.close()


def _secret_names(game, seat: int) -> set[str]:
    """The names of cards in the other seats' hands, libraries and packs that ``seat`` sees nowhere and that no
    card's effect text mentions (so that finding one on the page can only be a leak)."""
    god = board_view(game, None)
    mine = board_view(game, seat)
    seen = set(mine["players"][seat]["hand"]) | set(mine["players"][seat]["pack"])
    seen |= {name for year in mine["players"][seat]["library"] for name in year}
    seen |= set(mine["players"][seat]["draft_seen"]) | {c["name"] for p in mine["players"] for c in p["in_play"]}
    if mine["players"][seat]["orb_seen"]:
        seen.add(mine["players"][seat]["orb_seen"])
    theirs = set()
    for p, player in enumerate(god["players"]):
        if p != seat:
            theirs |= set(player["hand"]) | set(player["pack"]) | {name for year in player["library"] for name in year}
    effects = " ".join(card.effect for card in CARDS.values())
    return {name for name in theirs - seen if name not in effects}


def test_highlights_words_and_only_what_the_seat_may_see(browser, tmp_path: Path) -> None:  # noqa: F811
    with web_server(tmp_path, "heuristic", 2, "archmage", seed=34) as server:
        watched = Watched(browser, server)
        page = watched.page
        rng = np.random.default_rng(34)
        highlighted = checked_secret = kept = 0
        decided_at = None
        while watched.settle() == "ready" and watched.moves() < 140:
            game = server.table.game.game.clone()
            text = page.inner_text("body")
            assert INTERNAL.search(text) is None, INTERNAL.search(text)
            # The season in words is the wheel's.
            wheel_season = page.text_content("#season")
            assert wheel_season in page.inner_text("#where")
            # Hidden cards: in neither the JSON the page reads nor the page.
            secret = _secret_names(game, 0)
            now = state(server)
            body = json.dumps(now) + page.content()
            leaked = sorted(name for name in secret if name in body)
            assert not leaked, leaked
            checked_secret += bool(secret)
            if now["decision"] == "keep_or_discard":  # the drawn card shows, with its Keep and Discard buttons
                drawn = page.locator(f'#choices .card[data-card="{now["decision_cards"][0]}"]')
                assert [b.inner_text() for b in drawn.locator(".pick").all()] == ["Keep", "Discard"]
                kept += 1
            if decided_at is not None:
                # The moves since the seat's last decision are marked in the log, the board's changes highlighted.
                since = page.locator("#log li.since").count()
                assert since == watched.moves() - decided_at
                changed = page.locator("#board .changed").count()
                highlighted += changed > 0
                assert page.is_visible("#changes-note") == (changed > 0)
            decided_at = watched.moves()
            watched.click_random(rng)
        assert checked_secret > 20 and highlighted > 20 and kept > 0
        watched.close()


def test_a_whole_game_against_the_installed_command(browser, tmp_path: Path) -> None:  # noqa: F811
    """``seasons play --web`` as a user runs it (the installed console script, from a neutral folder): every file
    the page references loads, and a whole game is clicked to the end."""
    folder = tmp_path / "user"
    folder.mkdir()
    process = start_installed(
        [
            "play",
            "--web",
            "--no-browser",
            "--vs",
            "random",
            "--level",
            "apprentice",
            "--seed",
            "5",
            "--record",
            "g.json",
        ],
        cwd=folder,
        env={"NUMBA_NUM_THREADS": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and "/?token=" in url, (url, process.stderr.read())
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        loaded: dict[str, tuple[int, int]] = {}
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("response", lambda r: loaded.__setitem__(r.url.split("?")[0], (r.status, len(r.body()))))
        page.goto(url + "&pause=0")
        page.wait_for_function(SETTLED, timeout=60_000)
        origin = url.split("/?")[0]
        for asset in ("/", "/board.js", "/play.js", "/play.css"):
            status, size = loaded[origin + asset]
            assert status == 200 and size > 0, (asset, status, size)
        rng = np.random.default_rng(5)
        clicks = 0
        while page.evaluate("() => document.body.dataset.phase") == "ready":
            controls = page.locator(".choice[data-action]")
            controls.nth(int(rng.integers(controls.count()))).click()
            page.wait_for_function(SETTLED, timeout=60_000)
            clicks += 1
        assert page.evaluate("() => document.body.dataset.phase") == "over", page.inner_text("#status")
        record = json.loads((folder / "g.json").read_text())
        final = Replay(parse_record(record)).positions[-1]
        shown = [int(row.get_attribute("data-score")) for row in page.locator("#final-scores tr").all()]
        assert shown == final.scores() == record["scores"] and clicks > 20
        assert not errors, errors
        page.close()
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail("the server did not stop on SIGTERM")
    assert process.returncode == 143
