"""The manual corrections a table makes to what recognition found, as the application stores them.

A correction adds a card to a side, removes one, moves one from a side to another, or confirms a
doubtful reading; `vision.reconcile.Correction` applies them (its `ACTIONS` are these, and
tests/test_corrections.py keeps the two the same, since `vision` imports nothing of `scopa`).
Both stores use them: single matches (`scopa.storage`) and tournaments
(`scopa.tournament.records.ManualCorrection`).
"""

from __future__ import annotations

from typing import Final, Literal, get_args

CorrectionAction = Literal["add", "remove", "move", "confirm"]
CORRECTION_ACTIONS: Final[tuple[CorrectionAction, ...]] = get_args(CorrectionAction)
