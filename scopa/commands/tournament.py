"""`scopa verify` and `scopa tournament ...`: the tournament database from the command line.

The commands open the database named by --db (default: $SCOPA_DB_URL, else the SQLite file
~/.local/share/scopa/scopa.sqlite: the database of single matches too) and act as the referee:
whoever can open the database holds every row already, so no password is asked. The tournament
defaults to the most recent one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from scoring.errors import ScopaError

from .checks import DECK_STYLES, output_folder, row_id

VERIFY_EPILOG = """\
exit status: 0 when no hand is listed, 1 when some are, 2 on bad input.

A hand is listed when its photos show another score than the one recorded (score-differs), when
its photos cannot settle the score (inconclusive), when it was entered with manual corrections
(corrected) or with cards missing (incomplete), when it has no photos (no-photos), or when a
stored photo no longer matches its SHA-256 (photo-altered) or cannot be read (photo-unreadable).
Recognition runs on the committed models (models/detector.pt, models/identifier.pt).
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `scopa verify` and the `scopa tournament` group."""
    verify = subparsers.add_parser(
        "verify",
        help="re-check tournament hands against their stored photos",
        description="Re-run recognition and reconciliation on the stored photos of a hand, a "
        "match or a whole tournament, and list the hands a referee should look at.",
        epilog=VERIFY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_common(verify)
    scope = verify.add_mutually_exclusive_group()
    scope.add_argument("--match", type=row_id, metavar="ID", help="only this match")
    scope.add_argument("--hand", type=row_id, metavar="ID", help="only this hand")
    verify.add_argument(
        "--deck",
        choices=DECK_STYLES,
        help="deck of the cards (default: the tournament's, set at its creation)",
    )
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.set_defaults(handler=_verify)

    group = subparsers.add_parser(
        "tournament",
        help="list tournaments, standings, table codes, audit trail, exports",
        description="Read a tournament's database: standings, table codes, audit trail, exports.",
    )
    commands = group.add_subparsers(dest="tournament_command", metavar="ACTION", required=True)

    listing = commands.add_parser("list", help="list the tournaments in the database")
    listing.add_argument("--db", metavar="URL", help="database URL (default: $SCOPA_DB_URL)")
    listing.set_defaults(handler=_list)

    standings = commands.add_parser("standings", help="print the standings")
    _add_common(standings)
    standings.add_argument("--json", action="store_true", help="print JSON")
    standings.set_defaults(handler=_standings)

    codes = commands.add_parser("codes", help="print the table codes of a round, for the slips")
    _add_common(codes)
    codes.add_argument(
        "--round", type=int, metavar="N", help="round number (default: the round being played)"
    )
    codes.set_defaults(handler=_codes)

    audit = commands.add_parser("audit", help="print the audit trail")
    _add_common(audit)
    which = audit.add_mutually_exclusive_group()
    which.add_argument("--match", type=row_id, metavar="ID", help="only this match")
    which.add_argument("--hand", type=row_id, metavar="ID", help="only this hand")
    audit.set_defaults(handler=_audit)

    export = commands.add_parser(
        "export", help="write standings.csv, results.csv, hands.csv and results.html"
    )
    _add_common(export)
    export.add_argument("--out", type=Path, required=True, metavar="DIR", help="output folder")
    export.add_argument("--lang", choices=("it", "en"), default="it", help="language of the page")
    export.set_defaults(handler=_export)


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="URL", help="database URL (default: $SCOPA_DB_URL)")
    parser.add_argument(
        "-t", "--tournament", type=row_id, metavar="ID", help="tournament id (default: the latest)"
    )


def _open(args: argparse.Namespace):
    from scopa.tournament import TournamentService

    return TournamentService.open(args.db)


def _desk(args: argparse.Namespace):
    service = _open(args)
    tournament_id = args.tournament
    if tournament_id is None:
        tournaments = service.tournaments()
        if not tournaments:
            raise ScopaError(f"--db {service.db.url}: no tournament in this database")
        tournament_id = tournaments[0].id
    return service.local_referee(tournament_id)


def _verify(args: argparse.Namespace) -> int:
    desk = _desk(args)
    report = desk.verify(match_id=args.match, hand_id=args.hand, deck=args.deck)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False, default=str))
    else:
        for check in report.flagged:
            m, h = check.match, check.hand
            against = m.pair_b.name if m.pair_b else "-"
            print(
                f"round {m.round_number} table {m.table_number} {m.pair_a.name} v {against}, "
                f"hand {h.number} (id {h.id}, review: {h.review}):"
            )
            for finding in check.findings:
                print(f"  {finding.kind}: {finding.message}")
        print(f"{len(report.checks)} hands checked, {len(report.flagged)} listed")
    return 1 if report.flagged else 0


def _list(args: argparse.Namespace) -> int:
    for info in _open(args).tournaments():
        date = info.date.isoformat() if info.date else "-"
        print(f"{info.id}\t{date}\t{info.stage}\t{info.name}")
    return 0


def _standings(args: argparse.Namespace) -> int:
    desk = _desk(args)
    tables = desk.service.standings(desk.tournament_id)
    if args.json:
        payload: list[dict[str, Any]] = [
            {
                "group": table.label or None,
                "rows": [{**row.to_dict(), "pair": row.pair.name} for row in table.rows],
            }
            for table in tables
        ]
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return 0
    for table in tables:
        if table.label:
            print(f"Group {table.label}")
        print(
            f"{'#':>3}  {'pair':<24} {'P':>3} {'W':>3} {'L':>3} {'for':>5} {'agst':>5} {'diff':>5}"
        )
        for row in table.rows:
            print(
                f"{row.rank:>3}  {row.pair.name:<24.24} {row.played:>3} {row.won:>3} {row.lost:>3} "
                f"{row.points_for:>5} {row.points_against:>5} {row.difference:>+5}"
            )
    return 0


def _codes(args: argparse.Namespace) -> int:
    from scopa.tournament.security import format_table_code

    desk = _desk(args)
    rows = desk.table_codes(args.round)
    if not rows:
        raise ScopaError("--round: no matches paired in that round")
    for match, code in rows:
        print(
            f"round {match.round_number}\ttable {match.table_number}\t{format_table_code(code)}\t"
            f"{match.pair_a.name} v {match.pair_b.name if match.pair_b else '-'}"
        )
    return 0


def _audit(args: argparse.Namespace) -> int:
    desk = _desk(args)
    for entry in desk.audit(match_id=args.match, hand_id=args.hand):
        where = f"match {entry.match_id}" if entry.match_id else ""
        where += f" hand {entry.hand_id}" if entry.hand_id else ""
        details = json.dumps(entry.details, ensure_ascii=False, sort_keys=True)
        note = f"  note: {entry.note}" if entry.note else ""
        print(
            f"{entry.at.isoformat(timespec='seconds')}\t{entry.actor}\t{entry.action}\t"
            f"{where.strip()}\t{details}{note}"
        )
    return 0


def _export(args: argparse.Namespace) -> int:
    from scopa.tournament.export import export_all, results_html

    output_folder(args.out, "--out")
    desk = _desk(args)
    files = export_all(desk)
    files["results.html"] = results_html(desk.service, desk.tournament_id, lang=args.lang)
    for name, text in files.items():
        (args.out / name).write_text(text, encoding="utf-8")
        print(args.out / name, file=sys.stderr)
    return 0
