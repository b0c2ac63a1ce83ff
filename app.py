"""The Scopa score assistant page: `streamlit run app.py`.

The page's logic lives in `scopa.ui`; the rules in `scoring`, the recognition in `vision`.
Matches and tournaments are kept in `SCOPA_DB_URL` (default: an SQLite file under
~/.local/share/scopa).
The tournament pages live in `pages/`; the navigation names every page (without it, the
sidebar's first entry would be the file name, "app").
"""

import streamlit as st

from scopa.ui.page import render_page


def match_page() -> None:
    st.set_page_config(page_title="Scopa", page_icon="🂡", layout="centered")
    render_page()


st.navigation(
    [
        st.Page(match_page, title="Partita", icon=":material/playing_cards:", default=True),
        st.Page("pages/1_Arbitro.py", title="Arbitro", icon=":material/sports:"),
        st.Page("pages/2_Tavolo.py", title="Tavolo", icon=":material/table_restaurant:"),
        st.Page("pages/3_Classifica.py", title="Classifica", icon=":material/leaderboard:"),
    ]
).run()
