"""The audit log: every change to a tournament leaves one append-only `AuditEvent` row.

`log` adds an event inside the caller's transaction; `audit_entry` turns a row into the
`AuditEntry` the pages show.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from .db import AuditEvent, utcnow
from .records import AuditEntry

REFEREE = "referee"  # the actor of the referee's changes; a table's is "table N"


def log(
    session: Session,
    tournament_id: int,
    actor: str,
    action: str,
    details: dict[str, Any],
    *,
    match_id: int | None = None,
    hand_id: int | None = None,
    note: str = "",
) -> None:
    session.add(
        AuditEvent(
            tournament_id=tournament_id,
            match_id=match_id,
            hand_id=hand_id,
            at=utcnow(),
            actor=actor,
            action=action,
            details=details,
            note=note,
        )
    )


def audit_entry(event: AuditEvent) -> AuditEntry:
    return AuditEntry(
        id=event.id,
        at=event.at,
        actor=event.actor,
        action=event.action,
        match_id=event.match_id,
        hand_id=event.hand_id,
        details=dict(event.details),
        note=event.note,
    )
