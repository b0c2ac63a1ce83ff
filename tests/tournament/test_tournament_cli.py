"""`scopa tournament ...` commands on a tournament database."""

from tournament_helpers import PASSWORD, small_hand, submission

from scopa.cli import main
from scopa.tournament.security import format_table_code


def test_list_standings_codes_and_audit(db_url, service, make_tournament, capsys):
    tournament = make_tournament(pairs=4, name="Coppa del Circolo")
    referee = service.referee(tournament, PASSWORD)
    referee.start()
    (match, code), _ = referee.table_codes(1)
    service.table(code).submit_hand(submission(small_hand()))

    assert main(["tournament", "list", "--db", db_url]) == 0
    assert "Coppa del Circolo" in capsys.readouterr().out

    assert main(["tournament", "standings", "--db", db_url, "-t", str(tournament)]) == 0
    out = capsys.readouterr().out
    assert "P1" in out and "P4" in out

    assert main(["tournament", "codes", "--db", db_url]) == 0
    out = capsys.readouterr().out
    assert format_table_code(code) in out and f"{match.pair_a.name} v {match.pair_b.name}" in out

    assert main(["tournament", "audit", "--db", db_url, "--match", str(match.id)]) == 0
    out = capsys.readouterr().out
    assert "hand-recorded" in out and "table 1" in out


def test_unknown_tournament_is_a_clean_error(db_url, service, capsys):
    assert main(["tournament", "standings", "--db", db_url]) == 2
    assert "no tournament" in capsys.readouterr().err
    assert main(["verify", "--db", db_url, "-t", "99"]) == 2
    assert "tournament 99" in capsys.readouterr().err
