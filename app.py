"""The Scopa score assistant page: `streamlit run app.py`.

The page's logic lives in `scopa.ui`; the rules in `scoring`, the recognition in `vision`.
Matches are kept in `SCOPA_DB_URL` (default: an SQLite file under ~/.local/share/scopa).
"""

import streamlit as st

from scopa.ui.page import preload_recognizer, render_page

st.set_page_config(page_title="Scopa", page_icon="🂡", layout="centered")
preload_recognizer()  # once per server: the models are ready by the first photo
render_page()
