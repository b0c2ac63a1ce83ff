"""The tournament service: every read and write the pages and commands make goes through here.

Three kinds of caller, three doors:
- anyone: `TournamentService` itself reads tournaments, pairings, live scores and standings,
  never a table code;
- a table: `service.table(code)` returns a `TableDesk` bound to the one match that code opens;
  it can read that match, its hands and their photos, and submit hands to it, nothing else;
- the referee: `service.referee(tournament_id, password)` returns a `RefereeDesk` that sets up
  the tournament, pairs the rounds, prints table codes, and reviews, corrects or voids hands.
A wrong password or an unknown code raises `AccessDenied` after a growing delay.

The desks hold access and transactions; the work is in modules of its own: `queries` (lookups
and views), `hand_scoring` (scoring a hand, replaying a match), `recording` (recording a
submitted hand), `drafts` (the hand being entered), `rounds` (pairs, rounds, table codes),
`audit` (the log) and `verify` (re-reading the photos).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from scoring import Rules, parse_card
from scoring.errors import ScopaError

from . import audit, drafts, pairing, queries
from .audit import REFEREE
from .db import (
    AuditEvent,
    Database,
    Hand,
    HandDraftRow,
    MatchRow,
    Pair,
    Photo,
    PhotoBlob,
    Round,
    Tournament,
    open_database,
    utcnow,
)
from .errors import TournamentError
from .hand_scoring import rebuild_match, score_sides, side_inputs, sides_json
from .recording import check_correction, lock_match, record_hand, store_blob
from .records import (
    BYE,
    FINISHED,
    SCHEDULED,
    SIDES,
    AuditEntry,
    GroupStandings,
    HandView,
    ManualCorrection,
    MatchView,
    PairInfo,
    PairSetup,
    TableHandSubmission,
    TournamentInfo,
    TournamentSetup,
)
from .rounds import Fixture, new_pair, new_round, unused_code
from .security import (
    SCRYPT_N,
    AccessDenied,
    FailureThrottle,
    hash_password,
    normalize_table_code,
    verify_password,
)
from .verify import VerificationReport
from .verify import verify as verify_hands

R = TypeVar("R")


class TournamentService:
    """Public reads, tournament creation, and the two authenticated doors (table, referee)."""

    def __init__(
        self,
        db: Database,
        *,
        throttle: FailureThrottle | None = None,
        scrypt_n: int = SCRYPT_N,
    ) -> None:
        """`scrypt_n` is the scrypt cost of new password hashes (tests lower it for speed)."""
        self.db = db
        self.throttle = throttle or FailureThrottle()
        self.scrypt_n = scrypt_n

    @classmethod
    def open(cls, url: str | None = None, **kwargs: Any) -> TournamentService:
        """Connect to `url` (default: $SCOPA_DB_URL or the SQLite file of `resolve_db_url`)."""
        db = open_database(url)
        return cls(db, **kwargs)

    # -- public reads -------------------------------------------------------------------------

    def tournaments(self) -> list[TournamentInfo]:
        """All tournaments, newest first."""
        rows = self.db.read(
            lambda s: s.scalars(select(Tournament).order_by(Tournament.id.desc())).all()
        )
        return [queries.tournament_info(row) for row in rows]

    def tournament(self, tournament_id: int) -> TournamentInfo:
        return self.db.read(
            lambda s: queries.tournament_info(queries.get_tournament(s, tournament_id))
        )

    def rules(self, tournament_id: int) -> Rules:
        return Rules.from_spec(self.tournament(tournament_id).rules)

    def pairs(self, tournament_id: int) -> list[PairInfo]:
        return self.db.read(lambda s: list(queries.pairs(s, tournament_id).values()))

    def matches(self, tournament_id: int, round_number: int | None = None) -> list[MatchView]:
        """Matches in round and table order, optionally of one round only."""
        return self.db.read(lambda s: queries.match_views(s, tournament_id, round_number))

    def current_round(self, tournament_id: int) -> int | None:
        """The round being played: the first with a match unfinished, else the latest one.

        None before the start. (A round robin pairs all its rounds at once.)
        """
        return self.db.read(lambda s: queries.current_round_number(s, tournament_id))

    def standings(self, tournament_id: int) -> list[GroupStandings]:
        """Standings of the group or Swiss stage (one table per group), from finished matches."""
        return self.db.read(lambda s: queries.standings(s, tournament_id))

    # -- creation and access --------------------------------------------------------------------

    def create_tournament(self, setup: TournamentSetup, referee_password: str) -> int:
        """Create a tournament with its pairs (seeded in the order given); returns its id."""
        setup.check()
        Rules.from_spec(setup.rules)
        password_hash = hash_password(referee_password, n=self.scrypt_n)

        def work(session: Session) -> int:
            tournament = Tournament(
                name=setup.name.strip(),
                date=setup.date,
                rules=Rules.from_spec(setup.rules).to_dict(),
                format=setup.format,
                groups=setup.groups if setup.format == "round-robin" else 1,
                swiss_rounds=setup.swiss_rounds if setup.format == "swiss" else 0,
                knockout_size=setup.knockout_size,
                deck=setup.deck,
                referee_password_hash=password_hash,
            )
            session.add(tournament)
            session.flush()
            for seed, pair in enumerate(setup.pairs, start=1):
                session.add(new_pair(tournament.id, seed, pair))
            audit.log(
                session, tournament.id, REFEREE, "tournament-created", {"name": tournament.name}
            )
            return tournament.id

        return self.db.write(work)

    def referee(self, tournament_id: int, password: str, *, client: str = "") -> RefereeDesk:
        """The referee's desk; AccessDenied (after a delay) for a wrong password."""
        key, scope = f"referee:{tournament_id}:{client or 'unknown'}", f"referee:{tournament_id}"
        stored = self.db.read(
            lambda s: queries.get_tournament(s, tournament_id).referee_password_hash
        )
        self.throttle.check(key, scope)
        if not verify_password(password, stored):
            self.throttle.fail(key, scope)
            raise AccessDenied("referee password: wrong password", "wrong_password")
        return RefereeDesk(self, tournament_id, password_hash=stored)

    def local_referee(self, tournament_id: int) -> RefereeDesk:
        """The referee's desk without a password, for the command line.

        Whoever runs `scopa` with the database URL already holds every row; the password guards
        the pages, which anyone on the network can open.
        """
        self.tournament(tournament_id)
        return RefereeDesk(self, tournament_id)

    def table(self, code: str, *, client: str = "") -> TableDesk:
        """The desk of the match that `code` opens; AccessDenied (after a delay) if none does."""
        # Codes are looked up across all tournaments, so all table codes share one scope.
        key, scope = f"table:{client or 'unknown'}", "table"
        self.throttle.check(key, scope)
        normalized = normalize_table_code(code)
        match_id = self.db.read(
            lambda s: s.scalar(select(MatchRow.id).where(MatchRow.table_code == normalized))
        )
        if match_id is None or not normalized:
            self.throttle.fail(key, scope)
            raise AccessDenied("table code: no match has this code", "unknown_code")
        return TableDesk(self, match_id, normalized)

    # -- shared by the desks ----------------------------------------------------------------------

    def _submit(
        self,
        match_id: int,
        submission: TableHandSubmission,
        actor: str,
        code: str | None,
        check: Callable[[Session], None] | None = None,
    ) -> HandView:
        """Record a hand once, whatever the number of retries or concurrent submissions."""

        def work(session: Session) -> HandView:
            if check is not None:
                check(session)
            match = lock_match(session, match_id, code)
            hand = record_hand(session, match, submission, actor)
            return queries.hand_view(session, hand)

        try:
            return self.db.write(work)
        except IntegrityError:
            # A concurrent twin won the race past the lock (only possible if locking is
            # bypassed, e.g. by a foreign writer): the unique key kept one hand; return it.
            existing = self.db.read(
                lambda s: s.scalar(
                    select(Hand).where(
                        Hand.match_id == match_id, Hand.submission_id == submission.submission_id
                    )
                )
            )
            if existing is None:
                raise
            return self._submit(match_id, submission, actor, code, check)


class TableDesk:
    """What a table may do: read and add to its own match, and nothing else."""

    def __init__(self, service: TournamentService, match_id: int, code: str) -> None:
        self._service = service
        self._db = service.db
        self.match_id = match_id
        self._code = code

    @property
    def code(self) -> str:
        """The table code this desk was opened with."""
        return self._code

    def _own(self, session: Session) -> MatchRow:
        match = session.get(MatchRow, self.match_id)
        if match is None or match.table_code != self._code:
            raise AccessDenied("table code: no longer valid for this match, ask the referee")
        return match

    def match(self) -> MatchView:
        def work(session: Session) -> MatchView:
            match = self._own(session)
            return queries.match_view(session, match, queries.pairs(session, match.tournament_id))

        return self._db.read(work)

    def tournament(self) -> TournamentInfo:
        def work(session: Session) -> TournamentInfo:
            return queries.tournament_info(
                queries.get_tournament(session, self._own(session).tournament_id)
            )

        return self._db.read(work)

    def rules(self) -> Rules:
        return Rules.from_spec(self.tournament().rules)

    def hands(self) -> list[HandView]:
        def work(session: Session) -> list[HandView]:
            return queries.hand_views(session, self._own(session).id)

        return self._db.read(work)

    def hand(self, hand_id: int) -> HandView:
        def work(session: Session) -> HandView:
            match = self._own(session)
            hand = session.get(Hand, hand_id)
            if hand is None or hand.match_id != match.id:
                raise AccessDenied(f"hand {hand_id}: not a hand of this table's match")
            return queries.hand_view(session, hand)

        return self._db.read(work)

    def photo(self, photo_id: int) -> bytes:
        def work(session: Session) -> bytes:
            match = self._own(session)
            photo = session.get(Photo, photo_id)
            hand = session.get(Hand, photo.hand_id) if photo else None
            if photo is None or hand is None or hand.match_id != match.id:
                raise AccessDenied(f"photo {photo_id}: not a photo of this table's match")
            return session.get_one(PhotoBlob, photo.sha256).data

        return self._db.read(work)

    def submit_hand(self, submission: TableHandSubmission) -> HandView:
        """Record a hand of this match; a retry with the same submission id returns the same hand."""
        return self._service._submit(self.match_id, submission, actor="", code=self._code)

    # -- the hand being entered (see scopa.tournament.ui.TableDraftStore) ----------------------

    def draft(self) -> dict[str, Any]:
        """The hand being entered: `submission_id`, `entry`, `photos`, `corrections`."""

        def work(session: Session) -> dict[str, Any]:
            self._own(session)
            row = session.get(HandDraftRow, self.match_id)
            return drafts.copy_of(row) if row else drafts.empty(drafts.new_submission_id())

        return self._db.read(work)

    def save_draft_entry(self, entry: Mapping[str, Any]) -> None:
        """Store the entry part of the draft (mode, scope, cards picked by hand, complement)."""
        self._change_draft(lambda draft, _session: draft.__setitem__("entry", dict(entry)))

    def add_draft_photo(
        self, side: str, data: bytes, filename: str, recognition: Mapping[str, Any]
    ) -> int:
        """Keep a photo and what recognition found in it; returns its draft id."""
        if side not in SIDES:
            raise ScopaError(f"photo {filename}: side must be 'a' or 'b', not {side!r}")
        if not data:
            raise ScopaError(f"photo {filename}: empty file")
        sha256 = hashlib.sha256(data).hexdigest()

        def change(draft: dict[str, Any], session: Session) -> int:
            store_blob(session, sha256, data)
            photo_id = drafts.next_item_id(draft)
            draft["photos"].append(
                {
                    "id": photo_id,
                    "side": side,
                    "filename": filename[:255],
                    "sha256": sha256,
                    "recognition": dict(recognition),
                }
            )
            return photo_id

        return self._change_draft(change)

    def remove_draft_photo(self, photo_id: int) -> None:
        def change(draft: dict[str, Any], _session: Session) -> None:
            draft["photos"] = [p for p in draft["photos"] if p["id"] != photo_id]

        self._change_draft(change)

    def draft_photo(self, photo_id: int) -> bytes:
        def work(session: Session) -> bytes:
            self._own(session)
            row = session.get(HandDraftRow, self.match_id)
            photos = [p for p in (row.data["photos"] if row else []) if p["id"] == photo_id]
            if not photos:
                raise ScopaError(f"photo {photo_id}: not in the hand being entered")
            return session.get_one(PhotoBlob, photos[0]["sha256"]).data

        return self._db.read(work)

    def add_draft_correction(self, action: str, card: str, side: str, to_side: str | None) -> None:
        """Record a manual correction, with the time it was made."""
        correction = ManualCorrection(action, parse_card(card).code, side, to_side, at=utcnow())
        check_correction(correction)

        def change(draft: dict[str, Any], _session: Session) -> None:
            draft["corrections"].append({"id": drafts.next_item_id(draft), **correction.to_dict()})

        self._change_draft(change)

    def remove_draft_correction(self, correction_id: int) -> None:
        def change(draft: dict[str, Any], _session: Session) -> None:
            draft["corrections"] = [c for c in draft["corrections"] if c["id"] != correction_id]

        self._change_draft(change)

    def submit_draft(
        self,
        submission_id: str,
        sides: Mapping[str, Mapping[str, Any]],
        recognition: Mapping[str, Any] | None = None,
    ) -> HandView:
        """Record the hand being entered with the cards and scope the page scored, and clear it.

        `submission_id` is the one `draft()` gave: a second click, or a retry after the first
        succeeded, returns the hand already recorded.
        """

        def work(session: Session) -> HandView:
            match = lock_match(session, self.match_id, self._code)
            row = session.get(HandDraftRow, match.id)
            if row is None or row.submission_id != submission_id:
                done = session.scalar(
                    select(Hand).where(
                        Hand.match_id == match.id, Hand.submission_id == submission_id
                    )
                )
                if done is None:
                    raise ScopaError("hand: this entry is no longer open; reload the page")
                # Another phone sharing the draft recorded it first: only the same cards and
                # scope are "saved"; anything else was not recorded and must be said so.
                if done.sides != sides_json(side_inputs(sides)):
                    raise ScopaError(
                        f"hand {done.number}: already recorded from another phone with other "
                        "cards; reload the page and check it"
                    )
                return queries.hand_view(session, done)
            submission = drafts.submission(session, row.data, submission_id, sides, recognition)
            hand = record_hand(session, match, submission, actor="")
            session.delete(row)
            return queries.hand_view(session, hand)

        return self._db.write(work)

    def _change_draft(self, change: Callable[[dict[str, Any], Session], R]) -> R:
        def work(session: Session) -> R:
            match = lock_match(session, self.match_id, self._code)
            if match.status in FINISHED:
                raise ScopaError("hand: the match is over")
            row = session.get(HandDraftRow, match.id)
            if row is None:
                submission_id = drafts.new_submission_id()
                row = HandDraftRow(
                    match_id=match.id, submission_id=submission_id, data=drafts.empty(submission_id)
                )
                session.add(row)
            data = drafts.copy_of(row)
            outcome = change(data, session)
            # A new dict, so that SQLAlchemy sees the JSON column change.
            row.data, row.updated_at = data, utcnow()
            return outcome

        return self._db.write(work)


class RefereeDesk:
    """The referee's powers over one tournament."""

    def __init__(
        self, service: TournamentService, tournament_id: int, *, password_hash: str | None = None
    ) -> None:
        """`password_hash`: the hash the desk was opened with; once the password changes, the
        desk stops working (None: the command line's desk, opened without a password)."""
        self._service = service
        self._password_hash = password_hash
        self._db = _CheckedDatabase(service.db, self._check_still_valid)
        self.tournament_id = tournament_id

    def _check_still_valid(self, session: Session) -> None:
        if self._password_hash is None:
            return
        current = queries.get_tournament(session, self.tournament_id).referee_password_hash
        if not hmac.compare_digest(current, self._password_hash):
            raise AccessDenied("referee password: it was changed; log in again", "password_changed")

    @property
    def service(self) -> TournamentService:
        return self._service

    def info(self) -> TournamentInfo:
        return self._service.tournament(self.tournament_id)

    # -- set-up ----------------------------------------------------------------------------------

    def add_pair(self, pair: PairSetup) -> PairInfo:
        """Add a pair before the start, seeded after the others."""

        def work(session: Session) -> PairInfo:
            self._in_setup(session)
            seed = 1 + (
                session.scalar(
                    select(func.max(Pair.seed)).where(Pair.tournament_id == self.tournament_id)
                )
                or 0
            )
            row = new_pair(self.tournament_id, seed, pair)
            session.add(row)
            session.flush()
            audit.log(session, self.tournament_id, REFEREE, "pair-added", {"pair": row.name})
            return queries.pair_info(row)

        return self._db.write(work)

    def update_pair(self, pair_id: int, pair: PairSetup) -> PairInfo:
        """Rename a pair or change its players (allowed at any time: it changes no result)."""

        def work(session: Session) -> PairInfo:
            row = self._pair(session, pair_id)
            before = {"name": row.name, "player1": row.player1, "player2": row.player2}
            if not pair.name.strip():
                raise TournamentError("pair name: must not be empty", "pair_name_empty")
            row.name, row.player1, row.player2 = (
                pair.name.strip(),
                pair.player1.strip(),
                pair.player2.strip(),
            )
            audit.log(session, self.tournament_id, REFEREE, "pair-updated", {"before": before})
            return queries.pair_info(row)

        return self._db.write(work)

    def remove_pair(self, pair_id: int) -> None:
        """Withdraw a pair before the start; the seeds of the others close up."""

        def work(session: Session) -> None:
            self._in_setup(session)
            row = self._pair(session, pair_id)
            session.delete(row)
            session.flush()
            remaining = queries.pairs(session, self.tournament_id)
            for seed, info in enumerate(remaining.values(), start=1):
                session.get_one(Pair, info.id).seed = seed
            audit.log(session, self.tournament_id, REFEREE, "pair-removed", {"pair": row.name})

        self._db.write(work)

    def start(self) -> list[MatchView]:
        """Pair the first stage: every round of a round robin, or the first Swiss round."""

        def work(session: Session) -> list[MatchView]:
            tournament = self._in_setup(session)
            pairs = list(queries.pairs(session, tournament.id).values())
            if len(pairs) < 2:
                raise TournamentError(
                    f"start: a tournament needs at least 2 pairs, has {len(pairs)}",
                    "too_few_pairs",
                    count=len(pairs),
                )
            fixtures: list[Fixture]
            if tournament.format == "round-robin":
                groups = pairing.split_groups([p.id for p in pairs], tournament.groups)
                schedules = []
                for index, members in enumerate(groups):
                    for pair_id in members:
                        session.get_one(Pair, pair_id).group_index = index
                    schedules.append(pairing.round_robin(members))
                for number in range(1, max(len(s) for s in schedules) + 1):
                    fixtures = [
                        (index, a, b)
                        for index, schedule in enumerate(schedules)
                        if number <= len(schedule)
                        for a, b in schedule[number - 1]
                        # In a round robin a bye is just a rest: no match, nothing counted.
                        if b is not None
                    ]
                    new_round(session, tournament.id, number, "group", fixtures)
                tournament.stage = "group"
            else:
                fixtures = [
                    (None, a, b) for a, b in pairing.swiss_pairings([p.id for p in pairs], ())
                ]
                new_round(session, tournament.id, 1, "swiss", fixtures)
                tournament.stage = "swiss"
            audit.log(
                session, tournament.id, REFEREE, "tournament-started", {"stage": tournament.stage}
            )
            session.flush()
            return queries.match_views(session, tournament.id, None)

        return self._db.write(work)

    def next_round(self) -> list[MatchView]:
        """Pair the next Swiss or knockout round once every match so far is finished.

        Returns the new round's matches; an empty list when the tournament is thereby finished.
        """

        def work(session: Session) -> list[MatchView]:
            tournament = queries.get_tournament(session, self.tournament_id)
            if tournament.stage in ("setup", "finished"):
                raise TournamentError(
                    f"next round: the tournament is in stage {tournament.stage!r}",
                    "next_round_stage",
                    stage=tournament.stage,
                )
            unfinished = session.scalars(
                select(MatchRow)
                .where(MatchRow.tournament_id == tournament.id, MatchRow.status.not_in(FINISHED))
                .order_by(MatchRow.table_number)
            ).all()
            if unfinished:
                busy = ", ".join(str(m.table_number) for m in unfinished)
                busy_tables = sorted({m.table_number or 0 for m in unfinished})
                raise TournamentError(
                    f"next round: matches still being played at tables {busy}",
                    "next_round_busy",
                    tables=", ".join(str(n) for n in busy_tables),
                )
            number = (queries.latest_round_number(session, tournament.id) or 0) + 1
            pairs = queries.pairs(session, tournament.id)
            fixtures: list[Fixture]
            stage = tournament.stage
            swiss_played = number - 1
            if stage == "swiss" and swiss_played < tournament.swiss_rounds:
                ranking = [row.pair.id for row in queries.standings(session, tournament.id)[0].rows]
                previous = queries.stage_matches(session, tournament.id, ("swiss",))
                played = {frozenset((m.pair_a_id, m.pair_b_id)) for m in previous if m.pair_b_id}
                had_bye = {m.pair_a_id for m in previous if m.pair_b_id is None}
                fixtures = [
                    (None, a, b) for a, b in pairing.swiss_pairings(ranking, played, had_bye)
                ]
            elif stage in ("group", "swiss") and tournament.knockout_size:
                tables = queries.standings(session, tournament.id)
                if stage == "group":
                    rankings = [[row.pair.id for row in table.rows] for table in tables]
                    per_group = tournament.knockout_size // tournament.groups
                    seeds = pairing.knockout_seeds(rankings, per_group)
                else:
                    seeds = [row.pair.id for row in tables[0].rows][: tournament.knockout_size]
                fixtures = [(None, a, b) for a, b in pairing.knockout_first_round(seeds)]
                stage = "knockout"
            elif stage == "knockout":
                last = queries.stage_matches(session, tournament.id, ("knockout",), number - 1)
                winners = [queries.winner_id(m) for m in sorted(last, key=lambda m: m.position)]
                if len(winners) == 1:
                    fixtures = []
                else:
                    fixtures = [(None, a, b) for a, b in pairing.knockout_next_round(winners)]
            else:
                fixtures = []
            if not fixtures:
                tournament.stage = "finished"
                audit.log(session, tournament.id, REFEREE, "tournament-finished", {})
                return []
            tournament.stage = stage
            new_round(session, tournament.id, number, stage, fixtures)
            names = {pid: pairs[pid].name for pid in pairs}
            audit.log(
                session,
                tournament.id,
                REFEREE,
                "round-paired",
                {
                    "round": number,
                    "stage": stage,
                    "matches": [
                        [names[a], names[b] if b is not None else None] for _, a, b in fixtures
                    ],
                },
            )
            session.flush()
            return queries.match_views(session, tournament.id, number)

        return self._db.write(work)

    def table_codes(self, round_number: int | None = None) -> list[tuple[MatchView, str]]:
        """Each match of a round (default: the current one) with its table code, for the slips."""

        def work(session: Session) -> list[tuple[MatchView, str]]:
            number = round_number or queries.current_round_number(session, self.tournament_id)
            views = queries.match_views(session, self.tournament_id, number)
            codes = dict(
                session.execute(
                    select(MatchRow.id, MatchRow.table_code).where(
                        MatchRow.id.in_([v.id for v in views])
                    )
                ).all()
            )
            return [(view, code) for view in views if (code := codes[view.id])]

        return self._db.read(work)

    def regenerate_code(self, match_id: int) -> str:
        """Give a match a new table code (the old one stops working at once)."""

        def work(session: Session) -> str:
            match = self._match(session, match_id)
            if match.table_code is None:
                raise ScopaError(f"match {match_id}: a bye has no table code")
            match.table_code = unused_code(session)
            audit.log(
                session, self.tournament_id, REFEREE, "code-regenerated", {}, match_id=match.id
            )
            return match.table_code

        return self._db.write(work)

    def set_table_number(self, match_id: int, table_number: int) -> MatchView:
        def work(session: Session) -> MatchView:
            match = self._match(session, match_id)
            if table_number < 1:
                raise TournamentError(
                    f"table number: must be 1 or more, got {table_number}", "table_number"
                )
            before = match.table_number
            match.table_number = table_number
            audit.log(
                session,
                self.tournament_id,
                REFEREE,
                "table-changed",
                {"from": before, "to": table_number},
                match_id=match.id,
            )
            return queries.match_view(session, match, queries.pairs(session, self.tournament_id))

        return self._db.write(work)

    def swap_pairs(self, pair_id: int, other_pair_id: int, note: str = "") -> list[MatchView]:
        """Exchange two pairs between matches of the current round before either is played.

        For the referee's hand-made pairings: avoiding a rematch, seating a late pair, fixing a
        mistake. Either match may be a bye (the pair moved into it gets the bye). Only Swiss and
        knockout rounds: a round robin's fixtures follow from its groups. Returns the round.
        """

        def work(session: Session) -> list[MatchView]:
            tournament = queries.get_tournament(session, self.tournament_id)
            number = queries.current_round_number(session, tournament.id)
            if number is None:
                raise TournamentError("swap pairs: no round has been paired yet", "swap_no_round")
            round_ = session.scalars(
                select(Round).where(Round.tournament_id == tournament.id, Round.number == number)
            ).one()
            if round_.stage not in ("swiss", "knockout"):
                raise TournamentError(
                    "swap pairs: a round-robin round follows from its groups; edit the groups "
                    "before the start instead",
                    "swap_round_robin",
                )
            names = {pid: p.name for pid, p in queries.pairs(session, tournament.id).items()}
            slots = []
            for pid in (pair_id, other_pair_id):
                self._pair(session, pid)
                match = session.scalar(
                    select(MatchRow)
                    .where(MatchRow.round_id == round_.id)
                    .where(or_(MatchRow.pair_a_id == pid, MatchRow.pair_b_id == pid))
                )
                if match is None:
                    raise TournamentError(
                        f"swap pairs: {names[pid]} plays no match in round {number}",
                        "swap_not_playing",
                        pair=names[pid],
                        round=number,
                    )
                started = match.status not in (SCHEDULED, BYE) or session.scalar(
                    select(func.count()).select_from(Hand).where(Hand.match_id == match.id)
                )
                draft = session.get(HandDraftRow, match.id)
                if started or (draft and drafts.has_content(draft.data)):
                    raise TournamentError(
                        f"swap pairs: the match of {names[pid]} at table "
                        f"{match.table_number} has started",
                        "swap_started",
                        pair=names[pid],
                        table=match.table_number,
                    )
                slots.append((match, "a" if match.pair_a_id == pid else "b"))
            (first, first_slot), (second, second_slot) = slots
            if first.id == second.id:
                raise TournamentError(
                    "swap pairs: the two pairs already play each other", "swap_same_match"
                )
            setattr(first, f"pair_{first_slot}_id", other_pair_id)
            setattr(second, f"pair_{second_slot}_id", pair_id)
            for match in (first, second):
                if match.status == BYE:
                    match.winner_id = match.pair_a_id
            audit.log(
                session,
                tournament.id,
                REFEREE,
                "pairs-swapped",
                {"round": number, "pairs": [names[pair_id], names[other_pair_id]]},
                note=note,
            )
            session.flush()
            return queries.match_views(session, tournament.id, number)

        return self._db.write(work)

    def change_password(self, new_password: str) -> None:
        password_hash = hash_password(new_password, n=self._service.scrypt_n)

        def work(session: Session) -> None:
            tournament = queries.get_tournament(session, self.tournament_id)
            tournament.referee_password_hash = password_hash
            audit.log(session, self.tournament_id, REFEREE, "password-changed", {})

        self._db.write(work)
        # Every other desk opened with the old password now fails its check; this one goes on.
        if self._password_hash is not None:
            self._password_hash = password_hash

    # -- hands ------------------------------------------------------------------------------------

    def submit_hand(self, match_id: int, submission: TableHandSubmission) -> HandView:
        """Enter a hand for a match in the referee's name (e.g. a table without a phone)."""
        self._db.read(lambda s: self._match(s, match_id))
        return self._service._submit(
            match_id, submission, actor=REFEREE, code=None, check=self._check_still_valid
        )

    def hands(self, match_id: int) -> list[HandView]:
        return self._db.read(lambda s: queries.hand_views(s, self._match(s, match_id).id))

    def hand(self, hand_id: int) -> HandView:
        return self._db.read(lambda s: queries.hand_view(s, self._hand(s, hand_id)[0]))

    def all_hands(self) -> list[tuple[MatchView, HandView]]:
        """Every hand of the tournament (void ones too), in round, table and hand order."""

        def work(session: Session) -> list[tuple[MatchView, HandView]]:
            return [
                (match, hand)
                for match in queries.match_views(session, self.tournament_id, None)
                for hand in queries.hand_views(session, match.id)
            ]

        return self._db.read(work)

    def photo(self, photo_id: int) -> bytes:
        def work(session: Session) -> bytes:
            photo = session.get(Photo, photo_id)
            if photo is None:
                raise ScopaError(f"photo {photo_id}: no such photo")
            self._hand(session, photo.hand_id)
            return session.get_one(PhotoBlob, photo.sha256).data

        return self._db.read(work)

    def audit(self, *, match_id: int | None = None, hand_id: int | None = None) -> list[AuditEntry]:
        """The audit trail of the tournament, of one match, or of one hand, oldest first."""

        def work(session: Session) -> list[AuditEntry]:
            query = select(AuditEvent).where(AuditEvent.tournament_id == self.tournament_id)
            if match_id is not None:
                query = query.where(AuditEvent.match_id == match_id)
            if hand_id is not None:
                query = query.where(AuditEvent.hand_id == hand_id)
            return [audit.audit_entry(e) for e in session.scalars(query.order_by(AuditEvent.id))]

        return self._db.read(work)

    def accept_hand(self, hand_id: int, note: str = "") -> HandView:
        """Confirm a hand as recorded after review (e.g. after verification flagged it)."""

        def work(session: Session) -> HandView:
            hand, match = self._hand(session, hand_id, lock=True)
            hand.review = "accepted"
            self._log_hand_decision(session, "hand-accepted", hand, match, _hand_points(hand), note)
            return queries.hand_view(session, hand)

        return self._db.write(work)

    def correct_hand(
        self, hand_id: int, sides: Mapping[str, Mapping[str, Any]], note: str = ""
    ) -> HandView:
        """Replace a hand's cards and scope; the match and the standings follow."""

        def work(session: Session) -> HandView:
            hand, match = self._hand(session, hand_id, lock=True)
            rules = queries.tournament_rules(session, match.tournament_id)
            before = {"sides": hand.sides, "points": {"a": hand.points_a, "b": hand.points_b}}
            inputs = side_inputs(sides)
            scored = score_sides(inputs, rules)
            hand.sides = sides_json(inputs)
            hand.missing, hand.result = scored.missing, scored.result
            hand.points_a, hand.points_b = scored.points["a"], scored.points["b"]
            hand.review = "corrected"
            session.flush()
            rebuild_match(session, match, rules)
            after = {"sides": hand.sides, "points": scored.points}
            details = {"number": hand.number, "before": before, "after": after}
            self._log_hand_decision(session, "hand-corrected", hand, match, details, note)
            return queries.hand_view(session, hand)

        return self._db.write(work)

    def void_hand(self, hand_id: int, note: str = "") -> HandView:
        """Strike a hand from its match (kept in the audit trail); the match and standings follow."""

        def work(session: Session) -> HandView:
            hand, match = self._hand(session, hand_id, lock=True)
            if hand.status == "void":
                raise TournamentError(f"hand {hand_id}: already void", "already_void")
            hand.status = "void"
            session.flush()
            rebuild_match(session, match, queries.tournament_rules(session, match.tournament_id))
            self._log_hand_decision(session, "hand-voided", hand, match, _hand_points(hand), note)
            return queries.hand_view(session, hand)

        return self._db.write(work)

    def verify(self, **kwargs: Any) -> VerificationReport:
        """Re-run recognition on stored photos; see `scopa.tournament.verify.verify`."""
        return verify_hands(self._db, self.tournament_id, **kwargs)

    # -- helpers ----------------------------------------------------------------------------------

    def _in_setup(self, session: Session) -> Tournament:
        tournament = queries.get_tournament(session, self.tournament_id)
        if tournament.stage != "setup":
            raise TournamentError(
                "pairs: the tournament has started, pairs can no longer change", "pairs_locked"
            )
        return tournament

    def _pair(self, session: Session, pair_id: int) -> Pair:
        row = session.get(Pair, pair_id)
        if row is None or row.tournament_id != self.tournament_id:
            raise ScopaError(f"pair {pair_id}: not a pair of this tournament")
        return row

    def _match(self, session: Session, match_id: int) -> MatchRow:
        match = session.get(MatchRow, match_id)
        if match is None or match.tournament_id != self.tournament_id:
            raise ScopaError(f"match {match_id}: not a match of this tournament")
        return match

    def _log_hand_decision(
        self,
        session: Session,
        event: str,
        hand: Hand,
        match: MatchRow,
        details: dict[str, Any],
        note: str,
    ) -> None:
        """Write the referee's decision on a hand to the audit trail."""
        audit.log(
            session,
            self.tournament_id,
            REFEREE,
            event,
            details,
            match_id=match.id,
            hand_id=hand.id,
            note=note,
        )

    def _hand(self, session: Session, hand_id: int, *, lock: bool = False) -> tuple[Hand, MatchRow]:
        hand = session.get(Hand, hand_id)
        match = session.get(MatchRow, hand.match_id) if hand else None
        if hand is None or match is None or match.tournament_id != self.tournament_id:
            raise ScopaError(f"hand {hand_id}: not a hand of this tournament")
        if lock:
            match = lock_match(session, match.id, None)
            session.refresh(hand)
        return hand, match


def _hand_points(hand: Hand) -> dict[str, Any]:
    """What the audit trail keeps of a hand accepted or voided: its number and its points."""
    return {"number": hand.number, "points": {"a": hand.points_a, "b": hand.points_b}}


class _CheckedDatabase:
    """A desk's door to the database: every transaction first runs `check` inside it."""

    def __init__(self, db: Database, check: Callable[[Session], None]) -> None:
        self._inner = db
        self._check = check

    def read(self, work: Callable[[Session], R]) -> R:
        return self._inner.read(lambda session: self._checked(session, work))

    def write(self, work: Callable[[Session], R]) -> R:
        return self._inner.write(lambda session: self._checked(session, work))

    def _checked(self, session: Session, work: Callable[[Session], R]) -> R:
        self._check(session)
        return work(session)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


# FINISHED (records.py) is re-exported for the pages that import it from here.
__all__ = ["FINISHED", "AccessDenied", "RefereeDesk", "TableDesk", "TournamentService"]
