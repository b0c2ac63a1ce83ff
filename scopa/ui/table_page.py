"""The Tavolo page: one table's match, opened with that table's code (`?codice=ABCD-EFGH`).

The hands are entered exactly as on the single-match page (photos, checks, scope, breakdown);
each is recorded in the tournament database, and the table sees nothing of any other match. A
recorded hand is corrected by the referee (the Arbitro page's "Mani" tab), never by the table.
`pages/2_Tavolo.py` only calls `render_table_page()`.
"""

from __future__ import annotations

import streamlit as st

from scopa.i18n import Translator
from scopa.plaintext import escape_markdown
from scopa.tournament.hand_scoring import replay
from scopa.tournament.records import HandView, MatchView
from scopa.tournament.security import AccessDenied, format_table_code
from scopa.tournament.service import TableDesk
from scopa.tournament.text import TournamentText
from scopa.tournament.ui import (
    TableDraftStore,
    client_id,
    describe_error,
    header,
    pair_names,
    service,
    texts,
)
from scopa.ui.breakdown import render_breakdown
from scopa.ui.draft import MANUAL, PHOTOS
from scopa.ui.hand_entry import render_hand_entry
from scopa.ui.match_view import render_outcome, render_scoreboard, rules_summary
from scopa.ui.page import models_available, recognizer_loader
from scopa.ui.table import apply_table_style
from scoring import SPAREGGIO, Match, Rules, ScopaError

CODE = "codice"


def render_table_page() -> None:
    st.set_page_config(page_title="Tavolo · Scopa", page_icon=":material/table_restaurant:")
    t, tr = texts()
    apply_table_style()
    header(t("tour.table.title"))
    code = st.query_params.get(CODE, "")
    if not code:
        _ask_code(t)
        return
    try:
        desk: TableDesk = service().table(code, client=client_id())
    except AccessDenied as exc:
        # An unknown code, or too many wrong ones: "try again in N s".
        too_many = getattr(exc, "code", None) == "too_many_attempts"
        _ask_code(t, describe_error(exc, t) if too_many else t("tour.table.bad_code"))
        return
    _table(desk, t, tr)


def _ask_code(t: TournamentText, error: str | None = None) -> None:
    if error:
        st.error(error)
    with st.form("code"):
        typed = st.text_input(t("tour.table.code"), placeholder="ABCD-EFGH")
        if st.form_submit_button(t("tour.table.open"), type="primary"):
            st.query_params[CODE] = typed.strip()
            st.rerun()


def _leave() -> None:
    st.query_params.pop(CODE, None)


def _table(desk: TableDesk, t: TournamentText, tr: Translator) -> None:
    match = desk.match()
    info = desk.tournament()
    tr = tr.for_deck(info.deck)
    rules = Rules.from_spec(info.rules)
    names = pair_names(match)
    hands = desk.hands()
    scoring_match = replay(rules, hands, names)

    st.subheader(f"{escape_markdown(names['a'])} – {escape_markdown(names['b'])}")
    st.caption(
        " · ".join(
            (
                info.name,
                t("tour.round", number=match.round_number),
                f"{t('tour.col.table')} {match.table_number}",
                format_table_code(desk.code),
            )
        )
    )
    players = [p.players for p in (match.pair_a, match.pair_b) if p and p.players]
    if players:
        st.caption(" – ".join(players))
    st.caption(rules_summary(rules, tr))
    render_scoreboard(scoring_match, tr)
    render_outcome(scoring_match, tr)

    if match.status not in ("won", "bye"):
        _next_hand(desk, match, scoring_match, rules, names, info.deck, t, tr)
    if hands:
        _history(hands, scoring_match, rules, t, tr)
    st.button(t("tour.table.leave"), on_click=_leave)


def _next_hand(
    desk: TableDesk,
    match: MatchView,
    scoring_match: Match,
    rules: Rules,
    names: dict[str, str],
    deck: str,
    t: TournamentText,
    tr: Translator,
) -> None:
    number = len(scoring_match.hands) + 1
    heading = tr("hand.title", number=number)
    if scoring_match.status == SPAREGGIO:
        heading += " · " + tr("hand.spareggio")
    st.subheader(heading)
    if not desk.draft()["entry"]:
        # A new hand starts by photo when the models are there, else on the card grid.
        desk.save_draft_entry({"mode": PHOTOS if models_available() else MANUAL})
    store = TableDraftStore(desk, names)
    submission = render_hand_entry(
        store,
        rules,
        tr,
        key=f"table-{match.id}",
        recognizer=recognizer_loader(deck),
    )
    if submission is None:
        return
    evaluation = submission.evaluation
    summary = {
        "mode": submission.draft.mode,
        "determinate": evaluation.determinate,
        "uncertain": [u.card.code for u in evaluation.uncertain],
        "extra": evaluation.extra,
    }
    try:
        desk.submit_draft(store.submission_id, store.sides_by_key(submission.sides_json()), summary)
    except ScopaError as exc:
        st.error(tr("check.invalid", detail=describe_error(exc, t)))
    else:
        st.toast(tr("hand.saved", number=number))
        st.rerun()


def _history(
    hands: list[HandView], scoring_match: Match, rules: Rules, t: TournamentText, tr: Translator
) -> None:
    st.subheader(tr("history.title"))
    st.caption(t("tour.table.ask_referee"))
    counted = [hand.id for hand in hands if hand.status == "counted"]
    results = dict(zip(counted, scoring_match.hands, strict=True))
    for hand in reversed(hands):
        title = f"{tr('history.hand', number=hand.number)} · {hand.points_a} – {hand.points_b}"
        if hand.status == "void":
            title += f" · {t('tour.hand.void')}"
        with st.expander(title):
            if hand.corrections:
                st.caption(tr("history.corrections", count=hand.corrections))
            if hand.review == "corrected":
                st.caption(t("tour.hand.corrected_by_referee"))
            if hand.id in results:
                render_breakdown(results[hand.id], rules, tr)
