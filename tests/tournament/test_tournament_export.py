"""CSV exports and the printable results page."""

import csv
import io

from tournament_helpers import PASSWORD, play_match, small_hand, submission

from scopa.cli import main
from scopa.plaintext import spreadsheet_safe
from scopa.tournament.export import export_all, results_html
from scoring import DECK


def rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def played_tournament(service, make_tournament):
    tournament = make_tournament(pairs=4, name="Torneo <d'Assi> & amici")
    referee = service.referee(tournament, PASSWORD)
    matches = referee.start()
    play_match(service, referee, matches[0], "b")
    code = referee.table_codes(1)[1][1]
    service.table(code).submit_hand(submission(small_hand()))
    return tournament, referee, matches


def test_csv_exports(service, make_tournament):
    tournament, referee, matches = played_tournament(service, make_tournament)
    files = export_all(referee)
    standings = rows(files["standings.csv"])
    assert standings[0]["pair"] == matches[0].pair_b.name
    assert (standings[0]["won"], standings[0]["points_for"], standings[0]["difference"]) == (
        "1",
        "39",
        "39",
    )
    assert standings[0]["players"].startswith("Giocatore")
    results = rows(files["results.csv"])
    assert len(results) == len(matches)
    first = results[0]
    assert (first["score_a"], first["score_b"], first["winner"], first["status"]) == (
        "0",
        "39",
        matches[0].pair_b.name,
        "won",
    )
    assert results[1]["status"] == "in-progress"
    hands = rows(files["hands.csv"])
    assert len(hands) == 4
    assert hands[-1]["points_a"] == "2" and hands[-1]["submitted_by"] == "table 2"


def test_printable_page_escapes_names_and_shows_results(service, make_tournament):
    tournament, _, matches = played_tournament(service, make_tournament)
    page = results_html(service, tournament, lang="it")
    assert page.startswith("<!DOCTYPE html>")
    assert "Torneo &lt;d&#x27;Assi&gt; &amp; amici" in page
    assert "<d'Assi>" not in page
    assert "Classifica" in page and "Turno 1" in page and "0 &ndash; 39" in page
    assert "@media print" in page
    assert "Standings" in results_html(service, tournament, lang="en")


def test_export_command_writes_the_files(db_url, service, make_tournament, tmp_path, capsys):
    played_tournament(service, make_tournament)
    out = tmp_path / "export"
    assert main(["tournament", "export", "--db", db_url, "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "hands.csv",
        "results.csv",
        "results.html",
        "standings.csv",
    ]


def test_csv_exports_neutralise_formulas_in_names(service):
    """OWASP CSV injection: a cell starting with = + - @ must not run in a spreadsheet."""
    from tournament_helpers import submission as make_submission

    from scopa.tournament import PairSetup, TournamentSetup

    hostile = ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)"]
    setup = TournamentSetup(
        name="Torneo",
        pairs=[PairSetup(name, "=cmd|' /C calc'!A0", "Giocatore") for name in hostile],
    )
    tournament = service.create_tournament(setup, PASSWORD)
    referee = service.referee(tournament, PASSWORD)
    referee.start()
    code = referee.table_codes(1)[0][1]
    service.table(code).submit_hand(make_submission(small_hand()))
    files = export_all(referee)
    cells = [
        cell for text in files.values() for row in csv.reader(io.StringIO(text)) for cell in row
    ]
    for name in hostile:
        assert name not in cells
        assert "'" + name in cells
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "@")]
    # A negative number (a points difference) stays a number.
    assert spreadsheet_safe(-2) == -2 and spreadsheet_safe("-2") == "'-2"


def test_match_csv_neutralises_formulas_in_side_names(tmp_path):
    from scopa.i18n import Translator
    from scopa.storage import MatchRepository
    from scopa.ui.export import match_csv, replay

    repo = MatchRepository(f"sqlite:///{tmp_path / 'm.sqlite'}")
    stored = repo.create_match({"preset": "classica"}, ["=1+2", "@Loro"])
    deck = [card.code for card in DECK]
    sides = {"=1+2": {"cards": deck[:20], "scope": 0}, "@Loro": {"cards": deck[20:], "scope": 1}}
    repo.commit_hand(repo.open_draft(stored.id).id, sides, {})
    stored = repo.get_match(stored.id)
    text = match_csv(stored, replay(stored), Translator("it"))
    cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
    assert "=1+2" not in cells and "@Loro" not in cells
    assert {"'=1+2", "'@Loro"} <= set(cells)
    repo.close()
