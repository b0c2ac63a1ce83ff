"""Streamlit components of the score assistant page (`app.py`).

`hand_entry.render_hand_entry` is the reusable entry of one hand (photos or card grid, checks,
scope, score); `draft` holds the Streamlit-free state and evaluation behind it.
"""
