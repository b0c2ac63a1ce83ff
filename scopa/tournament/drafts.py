"""The hand a table is entering: a JSON document kept in `hand_drafts` until it is recorded.

Its keys: `submission_id` (the id the hand will be recorded under), `entry` (mode, scope, cards
picked by hand, complement), `photos` (each with its side, SHA-256 and recognition), and
`corrections`; `next_id` numbers the photos and corrections. `TableDesk` changes it under the
match's lock; `submission` turns it into the `TableHandSubmission` that records it.
"""

from __future__ import annotations

import copy
import datetime as dt
import uuid
from collections.abc import Mapping
from typing import Any

from sqlalchemy.orm import Session

from .db import HandDraftRow, PhotoBlob
from .records import ManualCorrection, PhotoUpload, TableHandSubmission


def new_submission_id() -> str:
    return str(uuid.uuid4())


def has_content(data: Mapping[str, Any]) -> bool:
    """Whether a table has begun entering a hand (more than choosing photos or the grid)."""
    entry = {k: v for k, v in data.get("entry", {}).items() if k != "mode"}
    return bool(data.get("photos") or data.get("corrections") or any(entry.values()))


def empty(submission_id: str) -> dict[str, Any]:
    return {
        "submission_id": submission_id,
        "entry": {},
        "photos": [],
        "corrections": [],
        "next_id": 1,
    }


def copy_of(row: HandDraftRow) -> dict[str, Any]:
    """The stored draft as a new dict, free to change."""
    data = copy.deepcopy(row.data)
    data["submission_id"] = row.submission_id
    return data


def next_item_id(draft: dict[str, Any]) -> int:
    """A new id for a photo or correction of the draft."""
    draft["next_id"] = draft.get("next_id", 1) + 1
    return draft["next_id"] - 1


def submission(
    session: Session,
    data: Mapping[str, Any],
    submission_id: str,
    sides: Mapping[str, Mapping[str, Any]],
    recognition: Mapping[str, Any] | None,
) -> TableHandSubmission:
    """The draft `data` as a hand submission, with the cards and scope the page scored."""
    complement = data["entry"].get("complement")
    return TableHandSubmission(
        submission_id=submission_id,
        sides=sides,
        photos=[
            PhotoUpload(
                p["side"],
                session.get_one(PhotoBlob, p["sha256"]).data,
                p["filename"],
                p["recognition"],
            )
            for p in data["photos"]
        ],
        corrections=[
            ManualCorrection(
                c["action"],
                c["card"],
                c["side"],
                c["to_side"],
                dt.datetime.fromisoformat(c["made_at"]) if c["made_at"] else None,
            )
            for c in data["corrections"]
        ],
        complement=(complement[0], int(complement[1])) if complement else None,
        recognition=recognition,
    )
