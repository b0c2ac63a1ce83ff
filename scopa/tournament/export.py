"""Exports: standings, match results and every hand as CSV; a printable HTML results page.

CSV columns are stable English identifiers (for spreadsheets and scripts); the HTML page is in
the chosen language and prints on A4 with the browser's "Print".
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
from collections.abc import Iterable, Sequence

from ..plaintext import spreadsheet_safe
from .records import GroupStandings, HandView, MatchView, TournamentInfo, group_label
from .service import RefereeDesk, TournamentService
from .text import TournamentText

STANDINGS_COLUMNS = (
    "group",
    "rank",
    "pair",
    "players",
    "played",
    "won",
    "lost",
    "points_for",
    "points_against",
    "difference",
    "byes",
)
RESULTS_COLUMNS = (
    "round",
    "stage",
    "group",
    "table",
    "pair_a",
    "pair_b",
    "score_a",
    "score_b",
    "winner",
    "status",
    "hands",
    "napoleone",
)
HANDS_COLUMNS = (
    "round",
    "table",
    "match_id",
    "hand",
    "hand_id",
    "pair_a",
    "pair_b",
    "points_a",
    "points_b",
    "scope_a",
    "scope_b",
    "status",
    "review",
    "corrections",
    "missing",
    "submitted_by",
    "submitted_at",
    "photos_sha256",
)


def _csv(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([spreadsheet_safe(cell) for cell in row] for row in rows)
    return buffer.getvalue()


def standings_csv(standings: Sequence[GroupStandings]) -> str:
    """The standings, one line per pair, groups one after the other."""
    return _csv(
        STANDINGS_COLUMNS,
        (
            (
                table.label,
                row.rank,
                row.pair.name,
                row.pair.players,
                row.played,
                row.won,
                row.lost,
                row.points_for,
                row.points_against,
                row.difference,
                row.byes,
            )
            for table in standings
            for row in table.rows
        ),
    )


def _winner_name(match: MatchView) -> str:
    if match.winner_id is None:
        return ""
    winner = match.pair_a if match.winner_id == match.pair_a.id else match.pair_b
    return winner.name if winner else ""


def results_csv(matches: Sequence[MatchView]) -> str:
    """Every match of every round with its score and winner."""
    return _csv(
        RESULTS_COLUMNS,
        (
            (
                m.round_number,
                m.stage,
                group_label(m.group),
                m.table_number or "",
                m.pair_a.name,
                m.pair_b.name if m.pair_b else "",
                m.score_a,
                m.score_b,
                _winner_name(m),
                m.status,
                m.hands_counted,
                int(m.napoleone),
            )
            for m in matches
        ),
    )


def hands_csv(hands: Sequence[tuple[MatchView, HandView]]) -> str:
    """Every hand of every match, void ones included, with its audit essentials."""
    return _csv(
        HANDS_COLUMNS,
        (
            (
                m.round_number,
                m.table_number or "",
                m.id,
                h.number,
                h.id,
                m.pair_a.name,
                m.pair_b.name if m.pair_b else "",
                h.points_a,
                h.points_b,
                h.sides["a"]["scope"],
                h.sides["b"]["scope"],
                h.status,
                h.review,
                h.corrections,
                " ".join(h.missing),
                h.submitted_by,
                h.submitted_at.isoformat(timespec="seconds"),
                " ".join(f"{p.side}:{p.sha256}" for p in h.photos),
            )
            for m, h in hands
        ),
    )


def export_all(desk: RefereeDesk) -> dict[str, str]:
    """All three CSV files, by file name."""
    service = desk.service
    tournament_id = desk.tournament_id
    return {
        "standings.csv": standings_csv(service.standings(tournament_id)),
        "results.csv": results_csv(service.matches(tournament_id)),
        "hands.csv": hands_csv(desk.all_hands()),
    }


_STYLE = """
body { font-family: Georgia, 'Times New Roman', serif; margin: 2em; color: #111; }
h1 { margin-bottom: 0.2em; } .meta { color: #444; margin-top: 0; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; width: 100%; }
th, td { border: 1px solid #999; padding: 0.25em 0.5em; text-align: left; }
td.num, th.num { text-align: right; } tr.winner td.pair { font-weight: bold; }
.note { font-size: 0.9em; color: #444; }
@media print { body { margin: 0; } h2 { page-break-after: avoid; } table { page-break-inside: auto; }
  tr { page-break-inside: avoid; } }
"""


def results_html(
    service: TournamentService,
    tournament_id: int,
    *,
    lang: str = "it",
    now: dt.datetime | None = None,
) -> str:
    """A self-contained printable page: standings, then every round's results."""
    t = TournamentText(lang, markdown=False)
    info = service.tournament(tournament_id)
    standings = service.standings(tournament_id)
    matches = service.matches(tournament_id)
    when = (now or dt.datetime.now()).strftime("%Y-%m-%d %H:%M")
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{lang}"><head><meta charset="utf-8">',
        f"<title>{e(info.name)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{e(info.name)}</h1>",
        f'<p class="meta">{_meta(info, t)}</p>',
    ]
    champion = _champion(info, matches)
    if champion:
        parts.append(f"<h2>{e(t('tour.champion', pair=champion))}</h2>")
    parts.append(f"<h2>{e(t('tour.standings'))}</h2>")
    for table in standings:
        if table.group is not None:
            parts.append(f"<h3>{e(t('tour.group', label=table.label))}</h3>")
        parts.append(_standings_table(table, t))
    parts.append(f'<p class="note">{e(t("tour.tiebreak"))}</p>')
    parts.append(f"<h2>{e(t('tour.results'))}</h2>")
    for number in sorted({m.round_number for m in matches}):
        in_round = [m for m in matches if m.round_number == number]
        stage = t(f"tour.stage.{in_round[0].stage}")
        parts.append(f"<h3>{e(t('tour.round', number=number))} &middot; {e(stage)}</h3>")
        parts.append(_results_table(in_round, t))
    parts.append(f'<p class="note">{e(t("tour.printed", when=when))}</p></body></html>')
    return "\n".join(parts)


def _meta(info: TournamentInfo, t: TournamentText) -> str:
    bits = [info.date.isoformat() if info.date else "", t(f"tour.format.{info.format}")]
    bits.append(
        t("tour.rules", preset=info.rules.get("preset", ""), target=info.rules.get("target", ""))
    )
    return " &middot; ".join(html.escape(bit) for bit in bits if bit)


def _champion(info: TournamentInfo, matches: Sequence[MatchView]) -> str | None:
    if info.stage != "finished" or not info.knockout_size:
        return None
    final = max((m for m in matches if m.stage == "knockout"), key=lambda m: m.round_number)
    return _winner_name(final) or None


def _standings_table(table: GroupStandings, t: TournamentText) -> str:
    # The CSV's columns, less the group (the table's own heading) and the byes.
    heads = tuple(c for c in STANDINGS_COLUMNS if c not in ("group", "byes"))
    numeric = {"rank", "played", "won", "lost", "points_for", "points_against", "difference"}
    header = "".join(
        f'<th class="{"num" if h in numeric else ""}">{html.escape(t(f"tour.col.{h}"))}</th>'
        for h in heads
    )
    rows = []
    for row in table.rows:
        values = row.to_dict()
        cells = []
        for h in heads:
            if h == "pair":
                cells.append(f'<td class="pair">{html.escape(row.pair.name)}</td>')
            elif h == "players":
                cells.append(f"<td>{html.escape(row.pair.players)}</td>")
            else:
                cells.append(f'<td class="num">{values[h]}</td>')
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{header}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _results_table(matches: Sequence[MatchView], t: TournamentText) -> str:
    e = html.escape
    header = "".join(
        f"<th>{e(t(f'tour.col.{h}'))}</th>" for h in ("table", "pair", "score", "pair", "status")
    )
    rows = []
    for m in matches:
        if m.pair_b is None:
            rows.append(
                f"<tr><td></td><td>{e(m.pair_a.name)}</td><td></td><td></td>"
                f"<td>{e(t('tour.bye'))}</td></tr>"
            )
            continue
        a_bold = ' class="pair" style="font-weight:bold"' if m.winner_id == m.pair_a.id else ""
        b_bold = ' class="pair" style="font-weight:bold"' if m.winner_id == m.pair_b.id else ""
        status = t(f"tour.status.{m.status}") + (f" ({t('tour.napoleone')})" if m.napoleone else "")
        rows.append(
            f"<tr><td>{m.table_number or ''}</td><td{a_bold}>{e(m.pair_a.name)}</td>"
            f'<td class="num">{m.score_a} &ndash; {m.score_b}</td>'
            f"<td{b_bold}>{e(m.pair_b.name)}</td><td>{e(status)}</td></tr>"
        )
    return f"<table><thead><tr>{header}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def codes_html(
    info: TournamentInfo, codes: Sequence[tuple[MatchView, str]], *, lang: str = "it"
) -> str:
    """One slip per table with its code, to cut out and leave on the table."""
    from .security import format_table_code

    t = TournamentText(lang, markdown=False)
    e = html.escape
    slips = []
    for match, code in codes:
        pairs = f"{match.pair_a.name} – {match.pair_b.name if match.pair_b else ''}"
        slips.append(
            '<div class="slip">'
            f"<div>{e(info.name)} &middot; {e(t('tour.round', number=match.round_number))}</div>"
            f"<h2>{e(t('tour.col.table'))} {match.table_number}</h2>"
            f"<div>{e(pairs)}</div>"
            f'<div class="code">{e(format_table_code(code))}</div>'
            f"<div>{e(t('tour.slip.how'))}</div></div>"
        )
    style = (
        "body{font-family:sans-serif} .slip{display:inline-block;width:45%;margin:1%;"
        "padding:1em;border:1px dashed #555;page-break-inside:avoid;vertical-align:top}"
        " .code{font:bold 2em monospace;letter-spacing:0.1em;margin:0.4em 0}"
    )
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8">'
        f"<title>{e(info.name)}</title><style>{style}</style></head><body>"
        + "".join(slips)
        + "</body></html>"
    )
