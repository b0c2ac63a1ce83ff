"""Tavolo: one table's match, opened with its code (`scopa.ui.table_page`)."""

from scopa.ui.table_page import render_table_page

render_table_page()
