"""The values the tournament service takes and returns: plain frozen dataclasses, no ORM objects.

Inputs: `TournamentSetup`, `PairSetup`, `TableHandSubmission` (with `PhotoUpload`, `ManualCorrection`).
Outputs: `TournamentInfo`, `PairInfo`, `MatchView`, `HandView`, `PhotoInfo`, `AuditEntry`,
`GroupStandings`. Both sides of a match are named "a" and "b" in hand data; views carry the pairs.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from scoring import WON, MatchStatus
from scoring.errors import ScopaError

from .errors import TournamentError
from .standings import StandingRow

SIDES = ("a", "b")
FORMATS = ("round-robin", "swiss")
#: A tournament match's status: scoring's (in-progress, spareggio, won), before its first hand
#: "scheduled", and "bye" for a pair without an opponent this round.
TournamentMatchStatus = MatchStatus | Literal["scheduled", "bye"]
SCHEDULED: Final = "scheduled"
BYE: Final = "bye"
FINISHED: Final[tuple[TournamentMatchStatus, ...]] = (WON, BYE)


@dataclass(frozen=True)
class PairSetup:
    """A pair ("coppia") as the referee enters it: its name and its two players."""

    name: str
    player1: str = ""
    player2: str = ""


@dataclass(frozen=True)
class TournamentSetup:
    """Everything the referee chooses when creating a tournament.

    `format` is "round-robin" (in `groups` groups, every pair meets every other of its group) or
    "swiss" (`swiss_rounds` rounds). `knockout_size` (0, or a power of two) pairs qualify for a
    knockout afterwards: from groups, the same number from each group.
    """

    name: str
    pairs: Sequence[PairSetup]
    rules: Mapping[str, Any] | str = "torneo-assi"
    date: dt.date | None = None
    format: str = "round-robin"
    groups: int = 1
    swiss_rounds: int = 0
    knockout_size: int = 0
    deck: str = "napoletane"

    def check(self) -> None:
        """Raise ScopaError naming the first field that is not acceptable."""
        if not self.name.strip():
            raise TournamentError("tournament name: must not be empty", "name_empty")
        if self.format not in FORMATS:
            raise ScopaError(f"format: {self.format!r} is not one of {', '.join(FORMATS)}")
        names = [pair.name.strip() for pair in self.pairs]
        if len(names) < 2:
            raise TournamentError(
                f"pairs: a tournament needs at least 2 pairs, got {len(names)}",
                "too_few_pairs",
                count=len(names),
            )
        if any(not name for name in names):
            raise TournamentError("pairs: a pair has no name", "pair_name_empty")
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise TournamentError(
                f"pairs: the name {duplicates[0]!r} is used twice", "pair_twice", name=duplicates[0]
            )
        if self.format == "round-robin" and not 1 <= self.groups <= len(names) // 2:
            raise TournamentError(
                f"groups: {self.groups} groups cannot hold {len(names)} pairs",
                "groups_too_many",
                groups=self.groups,
                count=len(names),
            )
        if self.format == "swiss" and not 1 <= self.swiss_rounds < len(names):
            raise TournamentError(
                f"swiss_rounds: must be between 1 and {len(names) - 1}, got {self.swiss_rounds}",
                "swiss_rounds",
                most=len(names) - 1,
            )
        size = self.knockout_size
        if size:
            if size < 2 or size & (size - 1) or size > len(names):
                raise TournamentError(
                    f"knockout_size: must be a power of two up to {len(names)}, got {size}",
                    "knockout_size",
                    most=len(names),
                )
            if self.format == "round-robin" and size % self.groups:
                raise TournamentError(
                    f"knockout_size: {size} qualifiers cannot come equally from {self.groups} groups",
                    "knockout_groups",
                    size=size,
                    groups=self.groups,
                )


@dataclass(frozen=True)
class PhotoUpload:
    """One photo of a side's pile, with what the recognition found in it at the table."""

    side: str
    data: bytes
    filename: str = ""
    recognition: Mapping[str, Any] | None = None  # PhotoResult.to_dict()

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass(frozen=True)
class ManualCorrection:
    """A change the table made by hand to what the recognition found (reconcile.Correction)."""

    action: str
    card: str
    side: str
    to_side: str | None = None
    at: dt.datetime | None = None  # when it was made at the table

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "card": self.card,
            "side": self.side,
            "to_side": self.to_side,
            "made_at": self.at.isoformat() if self.at else None,
        }


@dataclass(frozen=True)
class TableHandSubmission:
    """A hand as a table (or the referee) submits it.

    `submission_id` is chosen by the client once per hand (a UUID) and sent again unchanged on a
    retry, so that a hand submitted twice is stored once. `sides` maps "a" and "b" to
    `{"cards": [...], "scope": n}`; cards may be missing only when they cannot change the score.
    `complement` is (side, card count) when that side's cards were taken as "the rest of the deck".
    """

    submission_id: str
    sides: Mapping[str, Mapping[str, Any]]
    photos: Sequence[PhotoUpload] = ()
    corrections: Sequence[ManualCorrection] = ()
    complement: tuple[str, int] | None = None
    recognition: Mapping[str, Any] | None = None  # Reconciliation.to_dict() at the table

    def fingerprint(self) -> str:
        """SHA-256 of the content that makes two submissions the same hand."""
        content = {
            "sides": {
                side: {
                    "cards": sorted(str(card).upper() for card in spec.get("cards", ())),
                    "scope": spec.get("scope", 0),
                }
                for side, spec in sorted(self.sides.items())
            },
            "photos": [(photo.side, photo.sha256) for photo in self.photos],
            "corrections": [correction.to_dict() for correction in self.corrections],
            "complement": list(self.complement) if self.complement else None,
        }
        encoded = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(encoded.encode()).hexdigest()


@dataclass(frozen=True)
class TournamentInfo:
    id: int
    name: str
    date: dt.date | None
    rules: dict[str, Any]
    format: str
    groups: int
    swiss_rounds: int
    knockout_size: int
    stage: str  # "setup" | "group" | "swiss" | "knockout" | "finished"
    deck: str = "napoletane"


@dataclass(frozen=True)
class PairInfo:
    id: int
    seed: int
    name: str
    player1: str
    player2: str
    group: int | None  # 0-based group index in a round robin in groups

    @property
    def players(self) -> str:
        return " / ".join(player for player in (self.player1, self.player2) if player)


@dataclass(frozen=True)
class MatchView:
    """A match as anyone may see it (no table code)."""

    id: int
    round_number: int
    stage: str
    position: int
    table_number: int | None
    group: int | None
    pair_a: PairInfo
    pair_b: PairInfo | None  # None: a bye
    status: str  # a TournamentMatchStatus
    score_a: int
    score_b: int
    winner_id: int | None
    napoleone: bool
    hands_counted: int

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    def pair(self, side: str) -> PairInfo | None:
        return self.pair_a if side == "a" else self.pair_b


@dataclass(frozen=True)
class PhotoInfo:
    id: int
    side: str
    position: int
    sha256: str
    size: int
    filename: str
    recognition: dict[str, Any] | None


@dataclass(frozen=True)
class HandView:
    id: int
    match_id: int
    number: int
    submission_id: str
    submitted_by: str
    submitted_at: dt.datetime
    sides: dict[str, Any]
    missing: list[str]
    complement: tuple[str, int] | None
    result: dict[str, Any]
    points_a: int
    points_b: int
    corrections: int
    status: str  # "counted" | "void"
    review: str  # "none" | "accepted" | "corrected"
    recognition: dict[str, Any] | None = None
    photos: tuple[PhotoInfo, ...] = ()

    @property
    def points(self) -> dict[str, int]:
        return {"a": self.points_a, "b": self.points_b}

    @property
    def incomplete(self) -> bool:
        return bool(self.missing)


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: dt.datetime
    actor: str
    action: str
    match_id: int | None
    hand_id: int | None
    details: dict[str, Any]
    note: str


@dataclass(frozen=True)
class GroupStandings:
    """The standings of one group (or of the whole field: `group` None)."""

    group: int | None
    rows: list[StandingRow[PairInfo]] = field(default_factory=list)

    @property
    def label(self) -> str:
        return group_label(self.group)


def group_label(group: int | None) -> str:
    """Groups are lettered A, B, C, ... as on a score board."""
    return "" if group is None else chr(ord("A") + group)
