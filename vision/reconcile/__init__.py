"""Reconciliation: from the recognised photos of every side to a hand score players can trust.

Every one of the 40 cards exists once, so the photos are read jointly rather than one
detection at a time.

**The model.** Each detection comes with the identifier's 40-way probabilities. Reading
detection *d* as card *c* costs ``-log p_d(c)``; declaring it *extra* (no card of the deck: a
card back, another object, a card the identifier cannot read) costs ``-b_d log(eps)``, where
``b_d`` is the detector's box confidence and ``eps`` the smallest probability at which a card
is a possible reading (`ReconcileSettings.min_card_probability`): a sure box needs very little
evidence to be kept as some card, a doubtful box needs more. The best joint reading is the
least-cost choice of one option per detection such that one photo never shows a card twice
and no card is in two sides, while photos *of the same side* may show the same card (they
overlap; the card counts once). This is the maximum a-posteriori reading of all photos under
the one-of-each constraint; `assignment` solves it exactly (a rectangular assignment when each
side has one photo, a small integer programme otherwise). Detections of one photo whose
outlines nearly coincide are one card found twice and are merged before solving.

**Doubtful boxes** (`PhotoResult.doubtful`: boxes the detector scored just under its bar, or
whose crop the identifier took for no card) are not cards of their photo, but in a loose heap
some are real cards with a poor box. Once the cards are read jointly, a doubtful box may stand
for a card they leave unread (each card exists once, so a gap is worth filling); it never
takes a card from another detection. Its "no card" reading is never more than the no-card
doubt margin dearer, so a card it fills is always reported uncertain, and `determinate` weighs the
card missing. A doubtful box no card needs is "unused": neither extra nor a conflict.

**The report.** Cards per side; missing cards (read nowhere); conflicts (a confident reading,
top-1 at `conflict_confidence` or more, that the assignment had to overrule because another
side, or another detection of the same photo, holds that card); uncertain cards (the best joint
reading that reads a detection otherwise is at least `uncertain_ratio` as likely as the best
when it reads another card, `no_card_ratio` when it reads no card or a card where the best reads
none: a doubt that the other photos settle, such as a "4 or 5 of cups" when the 5 is clearly in the
other side's photo, is therefore *not* uncertain); extra detections.

**Determinate.** Every combination of the plausible alternative readings (each re-solved
jointly) is a possible world, and each world's missing cards may go to any side they are
allowed in; `scoring.score_provisional` says which categories those placements can change.
The score is determinate only when no world and no placement changes any side's points, there
is no conflict, every combination could be checked, and (complement mode) the card count
matches. The categories at stake come with the cards that decide them and advice in Italian
and English ("Il sette di coppe (7C) nella foto 1 del lato B potrebbe essere il sei di coppe
(6C) e decide la primiera: fai una nuova foto del lato B").

**Complement mode** scores a hand from the photos of all sides but one: that side holds the
rest of the deck, checked against the number of cards the players counted. A mismatch is
reported, leaves the cards not seen as missing, and the score is not determinate.

**Corrections** (add, remove, move, confirm) are constraints on the joint assignment, so the
rest of the reading adapts to them, and the score is recomputed.
"""

from .messages import Advice
from .reconciler import ReconcileSettings, reconcile
from .results import (
    DETECTION_STATES,
    ComplementCheck,
    Correction,
    DetectionRef,
    Extra,
    ReadingConflict,
    Reconciliation,
    UncertainReading,
)

__all__ = [
    "DETECTION_STATES",
    "Advice",
    "ComplementCheck",
    "Correction",
    "DetectionRef",
    "Extra",
    "ReadingConflict",
    "ReconcileSettings",
    "Reconciliation",
    "UncertainReading",
    "reconcile",
]
