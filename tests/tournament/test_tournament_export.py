"""CSV exports and the printable results page."""

import csv
import io

from tournament_helpers import PASSWORD, play_match, small_hand, submission

from scopa.cli import main
from scopa.tournament.export import export_all, results_html


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
