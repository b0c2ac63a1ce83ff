"""Tournament mode: many tables at once, live standings, and verification from the photos.

`TournamentService` is the entry point (see `service.py`); storage is SQLite by default and
PostgreSQL by URL (`db.py`). The service's desks hold access and transactions; the work lies in
`queries` (lookups, rows to views), `hand_scoring` (scoring a hand, replaying a match),
`recording` (recording a submitted hand), `drafts` (the hand being entered), `rounds`, `audit`
(the log) and `verify` (re-reading the photos), which import each other but never `service`.
Pairings, standings, verification and exports are modules that the pages and the
`scopa verify` / `scopa tournament` commands share.
"""

from .db import Database
from .records import (
    AuditEntry,
    GroupStandings,
    HandView,
    ManualCorrection,
    MatchView,
    PairInfo,
    PairSetup,
    PhotoInfo,
    PhotoUpload,
    TableHandSubmission,
    TournamentInfo,
    TournamentSetup,
)
from .security import AccessDenied, FailureThrottle
from .service import RefereeDesk, TableDesk, TournamentService

__all__ = [
    "AccessDenied",
    "AuditEntry",
    "Database",
    "FailureThrottle",
    "GroupStandings",
    "TableHandSubmission",
    "HandView",
    "ManualCorrection",
    "MatchView",
    "PairInfo",
    "PairSetup",
    "PhotoInfo",
    "PhotoUpload",
    "RefereeDesk",
    "TableDesk",
    "TournamentInfo",
    "TournamentService",
    "TournamentSetup",
]
