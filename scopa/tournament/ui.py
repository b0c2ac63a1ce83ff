"""What the tournament pages (pages/1_Arbitro.py, 2_Tavolo.py, 3_Classifica.py) share.

The service is opened once per process on $SCOPA_DB_URL (the database of single matches too);
the language comes from the URL (`?lang=en`) and a switch; the hand being entered at a table
lives in the database through `TableDraftStore`, so the single-match page's hand entry works
unchanged on a table page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from scopa.database import resolve_db_url
from scopa.i18n import Translator
from scopa.ui.draft import (
    DraftCorrection,
    DraftPhoto,
    HandDraft,
    photo_result_from_json,
    photo_result_to_json,
)
from scoring import Card

from .errors import TournamentError
from .records import SIDES, GroupStandings, MatchView
from .service import TableDesk, TournamentService
from .text import DEFAULT_LANGUAGE, LANGUAGES, TournamentText

if TYPE_CHECKING:
    from vision import PhotoResult

    from .verify import Finding

LANG = "lang"


@st.cache_resource(show_spinner=False)
def _service(url: str) -> TournamentService:
    return TournamentService.open(url)


def service() -> TournamentService:
    """The database of $SCOPA_DB_URL (default: an SQLite file), opened once per process."""
    return _service(resolve_db_url())


def client_id() -> str:
    """Who is asking, for the slow-down of wrong passwords and codes: the browser's address.

    Without one (a proxy that hides it), the browser session: such clients must not all share
    one count, and the per-scope limit of the throttle still bounds them all together.
    """
    address = getattr(st.context, "ip_address", None)
    if address:
        return f"ip:{address}"
    ctx = get_script_run_ctx()
    return f"session:{ctx.session_id}" if ctx is not None else ""


def language() -> str:
    if LANG not in st.session_state:
        asked = st.query_params.get("lang", DEFAULT_LANGUAGE)
        st.session_state[LANG] = asked if asked in LANGUAGES else DEFAULT_LANGUAGE
    return st.session_state[LANG]


def texts() -> tuple[TournamentText, Translator]:
    """The tournament strings and the page's strings, in the chosen language."""
    lang = language()
    return TournamentText(lang), Translator(lang)


def header(title: str) -> None:
    """The page title with the language switch beside it."""

    def changed() -> None:
        st.query_params["lang"] = st.session_state[LANG]

    left, right = st.columns([3, 1], vertical_alignment="center")
    left.title(title)
    right.segmented_control(
        "lang",
        list(LANGUAGES),
        format_func=str.upper,
        key=LANG,
        required=True,
        label_visibility="collapsed",
        on_change=changed,
    )


def pair_names(match: MatchView) -> dict[str, str]:
    """Side key to pair name, as the hand entry and the scoreboard name the sides."""
    return {"a": match.pair_a.name, "b": match.pair_b.name if match.pair_b else "—"}


def describe_error(exc: Exception, t: TournamentText) -> str:
    """An error of the service in the page's language: `tour.error.<code>` when the error has a
    code the catalogue knows, else its own (English) message."""
    if isinstance(exc, TournamentError) and exc.code and t.has(f"tour.error.{exc.code}"):
        return t(f"tour.error.{exc.code}", **exc.params)
    return str(exc)


def describe_finding(
    finding: Finding, t: TournamentText, tr: Translator, names: Mapping[str, str]
) -> str:
    """A verification finding's sentence in the page's language (`tour.finding.<kind>.detail`),
    sides named by their pair and cards as the players name them."""
    params = dict(finding.params)
    if "side" in params:
        params["side"] = names.get(params["side"], params["side"])
    if finding.kind == "incomplete":
        missing = finding.details.get("missing", [])
        params["cards"] = tr.cards(Card.parse(code) for code in missing)
    if finding.kind == "score-differs":
        certain = params.pop("certain", True)
        params["doubt"] = "" if certain else t("tour.finding.score-differs.doubt")
    key = f"tour.finding.{finding.kind}.detail"
    if not t.has(key):
        return finding.message
    if params.get("count") == 1 and t.has(f"{key}.one"):
        key += ".one"
    try:
        return t(key, **params)
    except (KeyError, IndexError):  # a finding stored before its params were
        return finding.message


def standings_frame(table: GroupStandings, t: TournamentText) -> pd.DataFrame:
    columns: tuple[str, ...] = ("rank", "pair", "players", "played", "won", "lost")
    columns += ("points_for", "points_against", "difference")
    records = []
    for row in table.rows:
        values = {**row.to_dict(), "pair": row.pair.name, "players": row.pair.players}
        records.append({t(f"tour.col.{c}"): values[c] for c in columns})
    return pd.DataFrame.from_records(records)


def matches_frame(matches: Sequence[MatchView], t: TournamentText) -> pd.DataFrame:
    records = []
    for m in matches:
        records.append(
            {
                t("tour.col.table"): m.table_number or "",
                t("tour.col.pair"): m.pair_a.name,
                t("tour.col.score"): "" if m.pair_b is None else f"{m.score_a} – {m.score_b}",
                t("tour.col.pair") + " ": m.pair_b.name if m.pair_b else t("tour.bye"),
                t("tour.col.status"): t(f"tour.status.{m.status}"),
                t("tour.col.hands"): m.hands_counted,
            }
        )
    return pd.DataFrame.from_records(records)


class TableDraftStore:
    """`scopa.ui.draft.HandDraftStore` over a table's draft in the tournament database.

    The hand entry names the sides by pair name; the database by "a" and "b".
    """

    def __init__(self, desk: TableDesk, names: Mapping[str, str]) -> None:
        self.desk = desk
        self.names = dict(names)
        self.keys = {name: side for side, name in self.names.items()}
        self.submission_id = ""

    def _key(self, name: str | None) -> str | None:
        return None if name is None else self.keys[name]

    def load(self) -> HandDraft:
        data = self.desk.draft()
        self.submission_id = data["submission_id"]
        entry = data["entry"]
        by_name = {
            "mode": entry.get("mode"),
            "scope": {self.names[s]: n for s, n in (entry.get("scope") or {}).items()},
            "manual": {self.names[s]: c for s, c in (entry.get("manual") or {}).items()},
            "complement": (
                [self.names[entry["complement"][0]], entry["complement"][1]]
                if entry.get("complement")
                else None
            ),
        }
        photos = [
            DraftPhoto(
                id=p["id"],
                side=self.names[p["side"]],
                filename=p["filename"],
                sha256=p["sha256"],
                result=photo_result_from_json(
                    p["recognition"]["cards"],
                    width=p["recognition"]["width"],
                    height=p["recognition"]["height"],
                    path=p["filename"],
                ),
            )
            for p in data["photos"]
        ]
        corrections = [
            DraftCorrection(
                id=c["id"],
                action=c["action"],
                card=Card.parse(c["card"]),
                side=self.names[c["side"]],
                to_side=self.names.get(c["to_side"]) if c["to_side"] else None,
            )
            for c in data["corrections"]
        ]
        sides = [self.names[side] for side in SIDES]
        return HandDraft.from_entry(sides, by_name, photos, corrections)

    def save_entry(self, draft: HandDraft) -> None:
        entry = draft.entry()
        complement = entry.get("complement")
        self.desk.save_draft_entry(
            {
                "mode": entry["mode"],
                "scope": {self.keys[n]: v for n, v in entry["scope"].items()},
                "manual": {self.keys[n]: v for n, v in entry["manual"].items()},
                "complement": [self.keys[complement[0]], complement[1]] if complement else None,
            }
        )

    def add_photo(self, side: str, data: bytes, filename: str, result: PhotoResult) -> None:
        recognition = {
            "width": result.width,
            "height": result.height,
            "cards": photo_result_to_json(result),
        }
        self.desk.add_draft_photo(self.keys[side], data, filename, recognition)

    def remove_photo(self, photo_id: int) -> None:
        self.desk.remove_draft_photo(photo_id)

    def photo_bytes(self, photo_id: int) -> bytes:
        return self.desk.draft_photo(photo_id)

    def add_correction(self, action: str, card: Card, side: str, to_side: str | None) -> None:
        self.desk.add_draft_correction(action, card.code, self.keys[side], self._key(to_side))

    def remove_correction(self, correction_id: int) -> None:
        self.desk.remove_draft_correction(correction_id)

    def sides_by_key(self, sides_json: Mapping[str, Any]) -> dict[str, Any]:
        """The hand entry's `{pair name: {...}}` as `{"a": {...}, "b": {...}}`."""
        return {self.keys[name]: value for name, value in sides_json.items()}
