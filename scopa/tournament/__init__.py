"""Tournament mode: many tables at once, live standings, and verification from the photos.

`TournamentService` is the entry point (see `service.py`); storage is SQLite by default and
PostgreSQL by URL (`db.py`). Pairings, standings, verification and exports are separate modules
that the pages and the `scopa verify` / `scopa tournament` commands share.
"""

from .db import Database, default_url
from .records import (
    AuditEntry,
    GroupStandings,
    HandSubmission,
    HandView,
    ManualCorrection,
    MatchView,
    PairInfo,
    PairSetup,
    PhotoInfo,
    PhotoUpload,
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
    "HandSubmission",
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
    "default_url",
]
