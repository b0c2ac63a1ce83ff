"""The real page in a real browser: `streamlit run app.py` loaded in headless Chromium.

Starts the server on a free port with a temporary database holding a match in progress, loads
the page with Playwright driving Debian's Chromium (`/usr/bin/chromium`; Playwright's own browser
downloads are never used), checks that it renders without errors, and saves screenshots to
`test-artifacts/`.
"""

from __future__ import annotations

import os
import socket
import statistics
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
    log_path = folder / "streamlit.log"
    log = log_path.open("wb")
    tournaments = url  # matches and tournaments share the one database
    env = {
        **os.environ,
        "SCOPA_DB_URL": url,
        "HOME": str(folder),
    }
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
        # A file, not a pipe: nobody reads a pipe while the tests run, and a server whose log
        # fills the pipe's buffer blocks on its next write, serving nothing more.
        stdout=log,
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
                    output = log_path.read_text(errors="replace")
                    pytest.fail(f"streamlit did not start on port {port}: {output[-2000:]}")
                time.sleep(0.5)
        os.environ.setdefault("SCOPA_BROWSER_TOURNAMENT_DB", tournaments)  # for the tests
        yield base, match_id
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        # Shown by pytest beside a failing test of this module: what the server said.
        print(
            f"streamlit's log, last 3000 characters:\n{log_path.read_text(errors='replace')[-3000:]}"
        )


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
    page.goto(url, timeout=120_000)  # a loaded machine can take a while to serve the page
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
    # The sidebar names the pages, the first one too (not the file name "app").
    nav = page.locator('[data-testid="stSidebarNav"]').inner_text().split("\n")
    assert "app" not in nav and "Partita" in nav, nav
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


# -- a whole hand at a table ------------------------------------------------------------------

MODELS = ROOT / "models"
LATENCIES: dict[str, list[float]] = {}


def _pile_photos(folder: Path) -> dict[str, Path]:
    """Two generated grid photos that hold the 40 cards between them (18 and 22)."""
    cv2 = pytest.importorskip("cv2")
    import numpy as np

    from scopa_datasets.faces import default_shared_dir, load_backs, load_scan_faces
    from scopa_datasets.scenes import Assets, render_scene

    shared = default_shared_dir()
    faces = load_scan_faces(shared, decks=("napoletane-hires",))
    assets = Assets(faces, load_backs(shared), [])
    rng = np.random.default_rng(11)
    order = rng.permutation(len(faces))
    piles = {"noi": [faces[i] for i in order[:18]], "loro": [faces[i] for i in order[18:]]}
    paths = {}
    for name, pile in piles.items():
        scene = render_scene(rng, assets, pile, "grid", size=(1600, 1200), distractors=False)
        paths[name] = folder / f"{name}.jpg"
        cv2.imwrite(str(paths[name]), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return paths


def _settled(page, timeout: int = 180_000) -> None:
    """The script run (whole page or fragment) is over."""
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout
    )


def _shot(page, step: str) -> None:
    """The whole page (Streamlit scrolls inside its own container), back to a phone's size."""
    size = dict(page.viewport_size)
    _screenshot_whole(page, f"table-{step}.png")
    page.set_viewport_size(size)


def _timed(page, name: str, action, done_js: str) -> float:
    """Seconds from `action` until `done_js` holds and the run is over: what a player waits."""
    start = time.perf_counter()
    action()
    page.wait_for_function(done_js, timeout=60_000)
    _settled(page)
    elapsed = time.perf_counter() - start
    LATENCIES.setdefault(name, []).append(elapsed)
    return elapsed


def _pills(page, key_part: str) -> list[str]:
    return [t.strip() for t in page.locator(f'[class*="{key_part}"] button').all_text_contents()]


def _panel(page, side: str):
    """The tab panel of `side` (the one shown)."""
    return page.locator('[role="tabpanel"]:visible')


@pytest.mark.skipif(
    not (MODELS / "detector.pt").is_file(), reason="the trained models are not committed"
)
def test_a_whole_hand_at_the_table_in_chromium(server, browser, tmp_path):
    base, _ = server
    photos = _pile_photos(tmp_path)
    page, script_errors = _open(browser, f"{base}/?lang=it", wait_for="Nuova partita")
    try:
        _whole_hand(page, script_errors, photos)
    except Exception:
        _shot(page, "failure")  # the page as it was, beside the error
        raise


def _whole_hand(page, script_errors, photos) -> None:
    import re

    _shot(page, "01-setup-it")

    # Set-up in English after choosing in Italian: no error box, every choice still chosen.
    page.get_by_text("EN", exact=True).click()
    page.get_by_text("New match", exact=True).first.wait_for()
    _settled(page)
    rules = page.locator('[data-testid="stSelectbox"]').first
    assert "Classic (to 11)" in (rules.inner_text() + (rules.locator("input").input_value() or ""))
    assert "Classica" not in page.inner_text("body")
    assert page.locator('input[type="radio"]:checked').count() >= 1
    page.get_by_label("Pair 1").fill("Noi")
    page.get_by_label("Pair 2").fill("Loro")
    _shot(page, "02-setup-en")
    page.get_by_role("button", name="Start the match").click()
    page.get_by_text("Hand 1", exact=True).first.wait_for(timeout=60_000)
    _settled(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.get_by_text("IT", exact=True).click()
    page.get_by_text("Mano 1", exact=True).first.wait_for()
    _settled(page)
    _shot(page, "03-started-it")

    # Noi's photo in Noi's tab, then Loro's in Loro's tab: Loro's tab stays open.
    uploads = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    uploads.nth(0).set_input_files(str(photos["noi"]))
    page.get_by_text(re.compile(r"noi\.jpg: \d+ carte riconosciute")).wait_for(timeout=240_000)
    _settled(page)
    page.get_by_role("tab", name="Loro").click()
    _settled(page)
    page.locator(
        '[role="tabpanel"]:visible [data-testid="stFileUploaderDropzoneInput"]'
    ).set_input_files(str(photos["loro"]))
    page.get_by_text(re.compile(r"loro\.jpg: \d+ carte riconosciute")).wait_for(timeout=120_000)
    _settled(page)
    loro_tab = page.get_by_role("tab", name="Loro")
    assert loro_tab.get_attribute("aria-selected") == "true"
    _shot(page, "04-loro-photo")

    # One count for the photo: its message, its caption and Loro's list.
    panel = _panel(page, "Loro").inner_text()
    added = int(re.search(r"loro\.jpg: (\d+) carte riconosciute", panel).group(1))
    caption = int(re.search(r"loro\.jpg · (\d+) carte", panel).group(1))
    listed = int(re.search(r"Carte di Loro \((\d+)\)", panel).group(1))
    loro_before = _pills(page, "-pick-Loro")
    noi_before = _pills(page, "-pick-Noi")
    assert added == caption == listed == len(loro_before)

    # A fix: one of Loro's cards is Noi's. Only that card moves; Loro's tab stays open.
    moved = loro_before[0]
    page.locator('[class*="-pick-Loro"] button').first.click()
    page.get_by_role("button", name=f"Sposta {moved} a Noi").wait_for()
    _settled(page)
    _shot(page, "05-fix-offered")
    elapsed = _timed(
        page,
        "fix",
        lambda: page.get_by_role("button", name=f"Sposta {moved} a Noi").click(),
        f"() => document.body.innerText.includes('Carte di Loro ({listed - 1})')",
    )
    assert loro_tab.get_attribute("aria-selected") == "true"
    page.wait_for_timeout(1000)
    assert page.get_by_role("button", name=f"Sposta {moved} a Noi").count() == 0
    assert sorted(_pills(page, "-pick-Loro")) == sorted(c for c in loro_before if c != moved)
    assert sorted(_pills(page, "-pick-Noi")) == sorted([*noi_before, moved])
    _shot(page, "06-after-fix")

    # Scope taps: 44 px targets, and how long one takes to settle.
    plus = page.locator('[class*="-scope-Loro-plus"] button:visible').first
    box = plus.bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44
    for n in (1, 2):
        _timed(
            page,
            "scope",
            plus.click,
            f"() => document.body.innerText.includes('Scope di Loro: {n}')",
        )
    page.locator('[class*="-scope-Loro-minus"] button:visible').first.click()
    page.get_by_text("Scope di Loro: 1").wait_for()
    _settled(page)
    _shot(page, "07-scope")

    # The hand is complete: record it; a reload keeps the place.
    save = page.get_by_role("button", name="Registra la mano")
    if save.is_enabled():
        save.click()
        page.get_by_text("Mano 2", exact=True).first.wait_for(timeout=60_000)
        _settled(page)
        _shot(page, "08-saved")
        page.reload()
        page.get_by_text("Mano 2", exact=True).first.wait_for(timeout=60_000)
        _settled(page)
        # Undo asks first, and can be redone.
        page.get_by_role("button", name="Annulla l'ultima mano").click()
        page.get_by_text("Annullare la mano 1?", exact=False).wait_for()
        _shot(page, "09-undo-asked")
        page.get_by_role("button", name="Sì, annulla la mano").click()
        page.get_by_role("button", name="Ripristina la mano 1").wait_for()
        page.get_by_role("button", name="Ripristina la mano 1").click()
        page.get_by_text("Mano 2", exact=True).first.wait_for()
        _settled(page)
        _shot(page, "10-redone")
    else:  # the models misread a card: the page says what to fix, the test says so too
        _shot(page, "08-not-complete")
        pytest.fail("the hand is not complete after the photos: " + page.inner_text("body")[:2000])

    assert page.locator('[data-testid="stException"]').count() == 0
    assert not script_errors, script_errors
    report = ", ".join(
        f"{name} {statistics.median(values):.2f} s (n={len(values)})"
        for name, values in LATENCIES.items()
    )
    print(f"\nlatency to settle: {report}; first fix {elapsed:.2f} s")
    (ARTIFACTS / "table-latency.txt").write_text(report + "\n")


TOURNAMENT_PASSWORD = "arbitro-di-prova"


def test_a_small_tournament_in_chromium(server, browser):
    """The referee sets up a tournament on Arbitro, one table's hand is recorded with its code,
    the Tavolo page shows it, and Classifica shows the standings on a 1280x720 projector."""
    from scopa.tournament import TableHandSubmission, TournamentService

    base, _ = server
    page, script_errors = _open(browser, f"{base}/Arbitro?lang=it", wait_for="Crea il torneo")
    page.set_viewport_size({"width": 1280, "height": 900})
    try:
        page.get_by_role("textbox", name="Nome del torneo").fill("Coppa del Browser")
        page.get_by_role("textbox", name="Coppie, una per riga").fill(
            "Rossi;Mario Rossi;Anna Rossi\nBianchi\nVerdi\nNeri"
        )
        page.get_by_role("textbox", name="Password dell'arbitro").fill(TOURNAMENT_PASSWORD)
        page.get_by_role("textbox", name="Ripeti la password").fill(TOURNAMENT_PASSWORD)
        _tournament_shot(page, "01-referee-setup")
        page.get_by_role("button", name="Crea il torneo").click()
        page.get_by_role("tab", name="Coppie").wait_for(timeout=60_000)
        _settled(page)
        page.get_by_role("button", name="Comincia il torneo (abbina i turni)").click()
        page.get_by_text("Girone all'italiana", exact=False).first.wait_for(timeout=60_000)
        _settled(page)
        _tournament_shot(page, "02-referee-started")

        # One table's hand, recorded through its code (as the table's phone does).
        service = TournamentService.open(os.environ["SCOPA_BROWSER_TOURNAMENT_DB"])
        (info,) = service.tournaments()
        referee = service.referee(info.id, TOURNAMENT_PASSWORD)
        match, code = referee.table_codes(1)[0]
        noi = [c for i, c in enumerate(CARD_CODES) if i % 2 == 0]
        sides = {
            "a": {"cards": noi, "scope": 1},
            "b": {"cards": [c for c in CARD_CODES if c not in noi], "scope": 0},
        }
        service.table(code).submit_hand(TableHandSubmission(submission_id="browser-1", sides=sides))

        table, table_errors = _open(browser, f"{base}/Tavolo?codice={code}", wait_for="Mano 2")
        assert match.pair_a.name in table.inner_text("body")
        assert table.locator('[data-testid="stException"]').count() == 0
        _tournament_shot(table, "03-table")
        assert not table_errors, table_errors

        board, board_errors = _open(browser, f"{base}/Classifica", wait_for="Classifica")
        board.set_viewport_size({"width": 1280, "height": 720})
        board.wait_for_timeout(1500)
        ARTIFACTS.mkdir(exist_ok=True)
        board.screenshot(path=str(ARTIFACTS / "tournament-04-board-1280x720.png"))
        text = board.inner_text("body")
        assert "Turno 1" in text and match.pair_a.name in text
        # Every column of the standings fits the projector's width.
        last = board.locator('[data-testid="stTable"] th', has_text="Diff.").first
        box = last.bounding_box()
        assert box is not None and box["x"] + box["width"] <= 1280
        assert board.locator('[data-testid="stException"]').count() == 0
        assert not board_errors, board_errors
    except Exception:
        _tournament_shot(page, "failure")
        raise
    assert page.locator('[data-testid="stException"]').count() == 0
    assert not script_errors, script_errors


def _tournament_shot(page, step: str) -> None:
    size = dict(page.viewport_size)
    _screenshot_whole(page, f"tournament-{step}.png")
    page.set_viewport_size(size)
