"""The replay page in a real headless browser: Debian's Chromium (installed by .ci/run) driven by Playwright.

The page is loaded from a file, stepped forward and back with its buttons, the slider and the keyboard, and
the text it shows is compared with the engine's positions. A screenshot is kept in the test's tmp folder.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from seasons_env import Game
from seasons_env.engine import steps
from seasons_env.engine.data import CARD_NAMES, SEASONS
from seasons_env.picture import board_view
from seasons_env.rendering import decision_words
from seasons_env.replay import Replay, make_record, parse_record, write_html

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _chromium() -> str:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).is_file():
            return candidate
    pytest.skip(
        "no Chromium on this machine (.ci/run installs Debian's package: apt-get install -y chromium); "
        "the replay page's browser test cannot run"
    )


def _record() -> dict:
    game = Game.new(2, "magician", seed=8)
    rng = np.random.default_rng(8)
    actions = []
    while not game.is_over:
        legal = game.legal_action_list()
        actions.append(legal[int(rng.integers(len(legal)))])
        game.apply(actions[-1])
    record = make_record(2, "magician", 8, actions, seats=["random", "learner"], scores=game.scores())
    record["policy"] = [[[a, 0.6], [0, 0.4]] if k % 2 else None for k, a in enumerate(actions)]
    return record


def test_replay_page_steps_forward_and_back_in_chromium(tmp_path: Path) -> None:
    executable = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright (test extra) drives the browser")
    replay = Replay(parse_record(_record()))
    last = len(replay) - 1
    page_file = tmp_path / "replay.html"
    write_html(replay, page_file)

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            errors: list[str] = []
            requests: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            page.on("request", lambda request: requests.append(request.url))
            page.goto(page_file.as_uri())

            def shows(k: int) -> None:
                game = replay.positions[k]
                assert page.inner_text("#counter") == f"Position {k} of {last}"
                assert page.inner_text("#decision") == replay.move(k)
                assert page.input_value("#slider") == str(k)
                for p in range(2):
                    assert page.inner_text(f"#p{p}-crystals") == f"Crystals {game.crystals[p]}"
                    hand = page.inner_text(f"#p{p}-hand-size")
                    count, (year2, year3) = len(game.hand[p]), (len(s) for s in game.library[p])
                    cards = f"Hand {count} card{'' if count == 1 else 's'}"
                    assert hand == f"{cards}, library {year2} + {year3} (years 2, 3)"
                assert page.inner_text("#notes").splitlines() == board_view(game)["notes"]
                scores = ", ".join(f"{replay.seat_name(p)} {s}" for p, s in enumerate(game.scores()))
                assert page.inner_text("#scores") == f"Scores: {scores}"
                if game.is_over:
                    assert page.inner_text("#pending") == "Game over"
                else:
                    words = decision_words(game.pending_decision)
                    assert page.inner_text("#pending") == f"Player {game.current_player} decides: {words}"
                # no rules-internal name anywhere on the page (decisions are shown in words)
                shown = page.inner_text("body")
                assert not [name for name in steps.KINDS if re.search(rf"\b{name}\b", shown) and "_" in name]
                # the season written on the page is the wheel's; dice of an earlier season say so
                season = SEASONS[game.season]
                assert page.text_content("#season") == season and season in page.inner_text("#where")
                caption = page.inner_text("#board .head")
                if SEASONS[game.dice_season] != season and game.rolled:
                    assert f"into {season}" in caption, caption
                policy = replay.policy(k)
                if policy is None:
                    assert page.is_hidden("#policy-title")
                else:
                    items = page.locator("#policy li").all_inner_texts()
                    assert items == [f"{label}: {100 * prob:.1f}%" for label, prob in policy]

            shows(0)
            assert page.is_disabled("#prev")
            for _ in range(3):
                page.click("#next")
            shows(3)
            page.click("#prev")
            shows(2)
            page.keyboard.press("ArrowRight")
            shows(3)
            page.locator("#slider").fill("60")
            shows(60)
            page.click("#last")
            shows(last)
            assert page.is_disabled("#next")
            assert page.inner_text("#p0-score") == f"Final score {replay.positions[-1].scores()[0]}"
            page.click("#first")
            shows(0)
            page.locator("#slider").fill(str(last // 2))
            screenshot = tmp_path / "replay.png"
            page.screenshot(path=str(screenshot), full_page=True)
            # The page of seat 1's view names seat 1's cards and only counts seat 0's.
            seat_file = tmp_path / "seat1.html"
            write_html(replay, seat_file, seat=1)
            page.goto(seat_file.as_uri())
            page.locator("#slider").fill(str(last // 2))
            game = replay.positions[last // 2]
            assert page.inner_text("#view-label") == "As seen by player 1"
            own = page.inner_text("#p1-cards").splitlines()[0]
            assert own == "Hand: " + (", ".join(CARD_NAMES[c] for c in game.hand[1]) or "-")
            count = len(game.hand[0])
            assert (
                page.inner_text("#p0-cards").splitlines()[0]
                == f"Hand: {count} card{'' if count == 1 else 's'} (hidden)"
            )
        finally:
            browser.close()
    assert not errors, errors
    assert all(url.startswith(("file:", "data:")) for url in requests), requests  # no network
    assert screenshot.stat().st_size > 10_000
