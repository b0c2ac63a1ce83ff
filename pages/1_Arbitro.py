"""Arbitro: the referee's page (`scopa.ui.referee`)."""

from scopa.ui.referee import render_referee_page

render_referee_page()
