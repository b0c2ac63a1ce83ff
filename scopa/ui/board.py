"""The Classifica page: the public standings board, for a projector; read-only, refreshing itself.

`?torneo=ID` picks the tournament (default: the most recent one). `pages/3_Classifica.py` only
calls `render_board_page()`. Read from across a room: the tables are plain HTML tables in large
type (`st.table`, which wraps long cells instead of cutting columns off, unlike the scrolling
grid of `st.dataframe`), and the sidebar starts collapsed so that a 1280-pixel-wide projector
shows every column.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from scopa.tournament.records import group_label
from scopa.tournament.text import TournamentText
from scopa.tournament.ui import header, matches_frame, service, standings_frame, texts

REFRESH_SECONDS = 10
TOURNAMENT = "torneo"
BOARD = "board"  # the key of the container the style below applies to

STYLE = """<style>
.st-key-board h3 { font-size: 1.9rem; padding: 0.25rem 0; }
.st-key-board p { font-size: 1.2rem; }
.st-key-board table { width: 100%; font-size: 1.3rem; line-height: 1.2; }
.st-key-board td { white-space: nowrap; }
.st-key-board th { font-size: 1rem; white-space: normal; vertical-align: bottom; }
.st-key-board th, .st-key-board td { padding: 0.2rem 0.45rem; }
.st-key-board tbody tr:nth-child(odd) { background: rgba(128, 128, 128, 0.08); }
</style>"""


def _table(frame: pd.DataFrame) -> None:
    """A frame as a large HTML table without its index."""
    st.table(frame.style.hide(axis="index"))


def render_board_page() -> None:
    st.set_page_config(
        page_title="Classifica · Scopa",
        page_icon=":material/leaderboard:",
        layout="wide",
        initial_sidebar_state="collapsed",
    )
    st.html(STYLE)
    t, _ = texts()
    header(t("tour.board.title"))
    tournaments = service().tournaments()
    if not tournaments:
        st.info(t("tour.none"))
        return
    by_id = {info.id: info for info in tournaments}
    asked = st.query_params.get(TOURNAMENT, "")
    chosen = st.selectbox(
        t("tour.title"),
        list(by_id),
        index=list(by_id).index(int(asked)) if asked.isdigit() and int(asked) in by_id else 0,
        format_func=lambda tid: by_id[tid].name,
        label_visibility="collapsed",
    )
    st.query_params[TOURNAMENT] = str(chosen)
    with st.container(key=BOARD):
        _board(chosen, t)


@st.fragment(run_every=REFRESH_SECONDS)
def _board(tournament_id: int, t: TournamentText) -> None:
    svc = service()
    info = svc.tournament(tournament_id)
    st.caption(f"{t(f'tour.stage.{info.stage}')} · {t(f'tour.format.{info.format}')}")
    if info.stage == "setup":
        st.info(t("tour.board.not_started"))
        return
    matches = svc.matches(tournament_id)
    current = svc.current_round(tournament_id)
    left, right = st.columns([1, 1], gap="medium")
    with left:
        st.subheader(t("tour.standings"))
        for table in svc.standings(tournament_id):
            if table.group is not None:
                st.markdown(f"**{t('tour.group', label=group_label(table.group))}**")
            _table(standings_frame(table, t).drop(columns=t("tour.col.players")))
        st.caption(t("tour.tiebreak"))
    with right:
        in_round = [m for m in matches if m.round_number == current]
        if in_round:
            stage = t(f"tour.stage.{in_round[0].stage}")
            st.subheader(f"{t('tour.round', number=current)} · {stage}")
            _table(matches_frame(in_round, t))
        knockout = sorted({m.round_number for m in matches if m.stage == "knockout"})
        for number in knockout:
            if number == current:
                continue
            st.markdown(f"**{t('tour.round', number=number)} · {t('tour.stage.knockout')}**")
            played = [m for m in matches if m.round_number == number]
            _table(matches_frame(played, t))
