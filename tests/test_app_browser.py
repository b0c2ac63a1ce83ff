"""The real page in a real browser: `streamlit run app.py` loaded in headless Chromium.

Starts the server on a free port with a temporary database holding a match in progress, loads
the page with Playwright driving Debian's Chromium (`/usr/bin/chromium`; Playwright's own browser
downloads are never used), checks that it renders without errors, and saves screenshots to
`test-artifacts/`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from scopa.storage import MatchRepository
from scoring import CARD_CODES, Match, Rules, SideInput

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.is_file(), reason="needs Debian's chromium at /usr/bin/chromium"
    ),
]

# Three hands of a match to 11: enough for the score, the chart and the history to show.
HANDS = [
    ({"1D", "2D", "3D", "4D", "7D", "7C", "7S", "6B", "1C", "5C", "9S", "10S", "2B", "8B"}, 2, 0),
    (
        {
            "5D",
            "6D",
            "8D",
            "9D",
            "10D",
            "1S",
            "2S",
            "3S",
            "4C",
            "6C",
            "7B",
            "1B",
            "3C",
            "9B",
            "10B",
            "8C",
            "2C",
            "4S",
            "5S",
            "6S",
            "8S",
            "3B",
            "4B",
        },
        0,
        1,
    ),  # fmt: skip
    (
        {
            "1D",
            "2D",
            "3D",
            "4D",
            "5D",
            "6D",
            "7D",
            "8D",
            "7C",
            "7S",
            "7B",
            "6C",
            "6S",
            "6B",
            "1C",
            "1S",
            "1B",
            "2C",
            "5C",
            "10C",
            "9C",
            "8C",
        },
        1,
        1,
    ),  # fmt: skip
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _seed(url: str) -> str:
    """A match between Noi and Loro with three hands played and the fourth begun by hand; its
    public id, the one its URL uses."""
    repo = MatchRepository(url)
    rules = Rules.from_preset("classica")
    stored = repo.create_match(rules.to_dict(), ["Noi", "Loro"])
    match = Match(rules, stored.sides)
    for noi, scope_noi, scope_loro in HANDS:
        sides = {
            "Noi": {"cards": sorted(noi), "scope": scope_noi},
            "Loro": {"cards": [c for c in CARD_CODES if c not in noi], "scope": scope_loro},
        }
        result = match.add_hand({name: SideInput.from_spec(spec) for name, spec in sides.items()})
        draft = repo.open_draft(stored.id, entry={"mode": "manual"})
        repo.commit_hand(draft.id, sides, result.to_dict(), outcome=(match.status, match.winner))
    repo.open_draft(
        stored.id,
        entry={"mode": "manual", "manual": {"Noi": ["7D", "1C", "7S", "6B"]}, "scope": {"Noi": 1}},
    )
    repo.close()
    return stored.public_id


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The page served by `streamlit run app.py`; yields its base URL and the seeded match's
    public id."""
    folder = tmp_path_factory.mktemp("server")
    url = f"sqlite:///{folder / 'scopa.sqlite'}"
    match_id = _seed(url)
    port = _free_port()
    env = {**os.environ, "SCOPA_DB_URL": url, "HOME": str(folder)}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(ROOT / "app.py"),
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            "--client.toolbarMode",
            "minimal",
        ],  # fmt: skip
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as reply:
                    if reply.read() == b"ok":
                        break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    output = process.stdout.read().decode() if process.poll() is not None else ""
                    pytest.fail(f"streamlit did not start on port {port}: {output[-2000:]}")
                time.sleep(0.5)
        yield base, match_id
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _open(browser, url: str, wait_for: str):
    """A phone-sized page at `url`, once the text `wait_for` shows and the script run is over,
    with the list that collects the page's JavaScript errors."""
    page = browser.new_page(viewport={"width": 430, "height": 932}, device_scale_factor=2)
    script_errors: list[object] = []  # uncaught exceptions in the page's JavaScript
    page.on("pageerror", lambda error: script_errors.append(error))
    page.goto(url)
    page.get_by_text(wait_for, exact=True).first.wait_for(timeout=120_000)
    # The status widget shows while the script runs; charts and images draw just after.
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=120_000
    )
    page.wait_for_timeout(1500)
    return page, script_errors


def _screenshot_whole(page, name: str) -> Path:
    """The whole page: Streamlit scrolls inside its own container, so grow the viewport to it."""
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": page.viewport_size["width"], "height": height})
    page.wait_for_timeout(1000)
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    return path


def _assert_rendered_without_errors(page, script_errors: list[object]) -> None:
    text = page.inner_text("body")
    assert "Scopa · segnapunti" in text
    assert page.title() == "Scopa"
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "Traceback" not in text and "Error" not in text
    assert not script_errors, script_errors


def test_the_match_page_renders_in_chromium(server, browser):
    base, match_id = server
    page, script_errors = _open(browser, f"{base}/?match={match_id}", wait_for="Nuova partita")
    _assert_rendered_without_errors(page, script_errors)
    text = page.inner_text("body")
    assert "Mano 4" in text and "Andamento della partita" in text
    assert page.locator('[data-testid="stVegaLiteChart"]').count() == 1

    shot = _screenshot_whole(page, "app.png")
    assert shot.stat().st_size > 10_000
    page.close()


def test_a_new_visit_offers_to_resume_the_match(server, browser):
    base, _ = server
    page, script_errors = _open(browser, base, wait_for="Riprendi la partita")
    _assert_rendered_without_errors(page, script_errors)
    assert "Partita in corso" in page.inner_text("body")
    _screenshot_whole(page, "app-start.png")
    page.close()
