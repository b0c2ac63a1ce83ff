"""The Classifica page: the public standings board, for a projector; read-only, refreshing itself.

`?torneo=ID` picks the tournament (default: the most recent one). `pages/3_Classifica.py` only
calls `render_board_page()`.
"""

from __future__ import annotations

import streamlit as st

from scopa.tournament.records import group_label
from scopa.tournament.text import TournamentText
from scopa.tournament.ui import header, matches_frame, service, standings_frame, texts

REFRESH_SECONDS = 10
TOURNAMENT = "torneo"


def render_board_page() -> None:
    st.set_page_config(
        page_title="Classifica · Scopa", page_icon=":material/leaderboard:", layout="wide"
    )
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
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.subheader(t("tour.standings"))
        for table in svc.standings(tournament_id):
            if table.group is not None:
                st.markdown(f"**{t('tour.group', label=group_label(table.group))}**")
            st.dataframe(standings_frame(table, t), hide_index=True, width="stretch")
        st.caption(t("tour.tiebreak"))
    with right:
        in_round = [m for m in matches if m.round_number == current]
        if in_round:
            stage = t(f"tour.stage.{in_round[0].stage}")
            st.subheader(f"{t('tour.round', number=current)} · {stage}")
            st.dataframe(matches_frame(in_round, t), hide_index=True, width="stretch")
        knockout = sorted({m.round_number for m in matches if m.stage == "knockout"})
        for number in knockout:
            if number == current:
                continue
            st.markdown(f"**{t('tour.round', number=number)} · {t('tour.stage.knockout')}**")
            played = [m for m in matches if m.round_number == number]
            st.dataframe(matches_frame(played, t), hide_index=True, width="stretch")
