"""Classifica: the public standings board, for a projector (`scopa.ui.board`)."""

from scopa.ui.board import render_board_page

render_board_page()
