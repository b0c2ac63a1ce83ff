"""The tournament service: every read and write the pages and commands make goes through here.

Three kinds of caller, three doors:
- anyone: `TournamentService` itself reads tournaments, pairings, live scores and standings,
  never a table code;
- a table: `service.table(code)` returns a `TableDesk` bound to the one match that code opens;
  it can read that match, its hands and their photos, and submit hands to it, nothing else;
- the referee: `service.referee(tournament_id, password)` returns a `RefereeDesk` that sets up
  the tournament, pairs the rounds, prints table codes, and reviews, corrects or voids hands.
A wrong password or an unknown code raises `AccessDenied` after a growing delay.

Hands are scored here, never trusted from the client: the service rebuilds the match with
`scoring.Match` from its counted hands on every change, so the stored totals, status and winner
are always what the rules say about the hands on record.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import hmac
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from scoring import DECK, Rules, SideInput, parse_card, score_hand, score_provisional
from scoring import Match as ScoringMatch
from scoring.errors import ScopaError

from . import pairing
from .db import (
    AuditEvent,
    Database,
    Hand,
    HandDraft,
    Match,
    Pair,
    Photo,
    PhotoBlob,
    Round,
    Tournament,
    open_database,
    utcnow,
)
from .records import (
    CORRECTION_ACTIONS,
    SIDES,
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
from .security import (
    SCRYPT_N,
    AccessDenied,
    FailureThrottle,
    hash_password,
    new_table_code,
    normalize_table_code,
    verify_password,
)
from .standings import MatchResult, compute_standings

if TYPE_CHECKING:
    from .verify import VerificationReport

R = TypeVar("R")

REFEREE = "referee"
FINISHED = ("won", "bye")


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
        """Connect to `url` (default: $SCOPA_TOURNAMENT_DB or the local SQLite file)."""
        db = open_database(url)
        return cls(db, **kwargs)

    # -- public reads -------------------------------------------------------------------------

    def tournaments(self) -> list[TournamentInfo]:
        """All tournaments, newest first."""
        rows = self.db.read(
            lambda s: s.scalars(select(Tournament).order_by(Tournament.id.desc())).all()
        )
        return [_tournament_info(row) for row in rows]

    def tournament(self, tournament_id: int) -> TournamentInfo:
        return self.db.read(lambda s: _tournament_info(_get_tournament(s, tournament_id)))

    def rules(self, tournament_id: int) -> Rules:
        return Rules.from_spec(self.tournament(tournament_id).rules)

    def pairs(self, tournament_id: int) -> list[PairInfo]:
        return self.db.read(lambda s: list(_pairs(s, tournament_id).values()))

    def matches(self, tournament_id: int, round_number: int | None = None) -> list[MatchView]:
        """Matches in round and table order, optionally of one round only."""
        return self.db.read(lambda s: _match_views(s, tournament_id, round_number))

    def current_round(self, tournament_id: int) -> int | None:
        """The round being played: the first with a match unfinished, else the latest one.

        None before the start. (A round robin pairs all its rounds at once.)
        """
        return self.db.read(lambda s: _current_round_number(s, tournament_id))

    def standings(self, tournament_id: int) -> list[GroupStandings]:
        """Standings of the group or Swiss stage (one table per group), from finished matches."""
        return self.db.read(lambda s: _standings(s, tournament_id))

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
                session.add(_new_pair(tournament.id, seed, pair))
            _log(session, tournament.id, REFEREE, "tournament-created", {"name": tournament.name})
            return tournament.id

        return self.db.write(work)

    def referee(self, tournament_id: int, password: str, *, client: str = "") -> RefereeDesk:
        """The referee's desk; AccessDenied (after a delay) for a wrong password."""
        key, scope = f"referee:{tournament_id}:{client or 'unknown'}", f"referee:{tournament_id}"
        stored = self.db.read(lambda s: _get_tournament(s, tournament_id).referee_password_hash)
        self.throttle.check(key, scope)
        if not verify_password(password, stored):
            self.throttle.fail(key, scope)
            raise AccessDenied("referee password: wrong password")
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
            lambda s: s.scalar(select(Match.id).where(Match.table_code == normalized))
        )
        if match_id is None or not normalized:
            self.throttle.fail(key, scope)
            raise AccessDenied("table code: no match has this code")
        return TableDesk(self, match_id, normalized)

    # -- shared by the desks ----------------------------------------------------------------------

    def _submit(
        self,
        match_id: int,
        submission: HandSubmission,
        actor: str,
        code: str | None,
        check: Callable[[Session], None] | None = None,
    ) -> HandView:
        """Record a hand once, whatever the number of retries or concurrent submissions."""

        def work(session: Session) -> HandView:
            if check is not None:
                check(session)
            match = _lock_match(session, match_id, code)
            hand = _record_hand(session, match, submission, actor)
            return _hand_view(session, hand)

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

    def _own(self, session: Session) -> Match:
        match = session.get(Match, self.match_id)
        if match is None or match.table_code != self._code:
            raise AccessDenied("table code: no longer valid for this match, ask the referee")
        return match

    def match(self) -> MatchView:
        def work(session: Session) -> MatchView:
            match = self._own(session)
            return _match_view(session, match, _pairs(session, match.tournament_id))

        return self._db.read(work)

    def tournament(self) -> TournamentInfo:
        def work(session: Session) -> TournamentInfo:
            return _tournament_info(_get_tournament(session, self._own(session).tournament_id))

        return self._db.read(work)

    def rules(self) -> Rules:
        return Rules.from_spec(self.tournament().rules)

    def hands(self) -> list[HandView]:
        def work(session: Session) -> list[HandView]:
            return _hand_views(session, self._own(session).id)

        return self._db.read(work)

    def hand(self, hand_id: int) -> HandView:
        def work(session: Session) -> HandView:
            match = self._own(session)
            hand = session.get(Hand, hand_id)
            if hand is None or hand.match_id != match.id:
                raise AccessDenied(f"hand {hand_id}: not a hand of this table's match")
            return _hand_view(session, hand)

        return self._db.read(work)

    def photo(self, photo_id: int) -> bytes:
        def work(session: Session) -> bytes:
            match = self._own(session)
            photo = session.get(Photo, photo_id)
            hand = session.get(Hand, photo.hand_id) if photo else None
            if hand is None or hand.match_id != match.id:
                raise AccessDenied(f"photo {photo_id}: not a photo of this table's match")
            return session.get(PhotoBlob, photo.sha256).data

        return self._db.read(work)

    def submit_hand(self, submission: HandSubmission) -> HandView:
        """Record a hand of this match; a retry with the same submission id returns the same hand."""
        return self._service._submit(self.match_id, submission, actor="", code=self._code)

    # -- the hand being entered (see scopa.tournament.ui.TableDraftStore) ----------------------

    def draft(self) -> dict[str, Any]:
        """The hand being entered: `submission_id`, `entry`, `photos`, `corrections`."""

        def work(session: Session) -> dict[str, Any]:
            self._own(session)
            row = session.get(HandDraft, self.match_id)
            return _draft_copy(row) if row else _empty_draft(new_submission_id())

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
            _store_blob(session, sha256, data)
            photo_id = _next_draft_id(draft)
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
            row = session.get(HandDraft, self.match_id)
            photos = [p for p in (row.data["photos"] if row else []) if p["id"] == photo_id]
            if not photos:
                raise ScopaError(f"photo {photo_id}: not in the hand being entered")
            return session.get(PhotoBlob, photos[0]["sha256"]).data

        return self._db.read(work)

    def add_draft_correction(self, action: str, card: str, side: str, to_side: str | None) -> None:
        """Record a manual correction, with the time it was made."""
        correction = ManualCorrection(action, parse_card(card).code, side, to_side, at=utcnow())
        _check_correction(correction)

        def change(draft: dict[str, Any], _session: Session) -> None:
            draft["corrections"].append({"id": _next_draft_id(draft), **correction.to_dict()})

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
            match = _lock_match(session, self.match_id, self._code)
            row = session.get(HandDraft, match.id)
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
                if done.sides != _sides_json(_side_inputs(sides)):
                    raise ScopaError(
                        f"hand {done.number}: already recorded from another phone with other "
                        "cards; reload the page and check it"
                    )
                return _hand_view(session, done)
            data = row.data
            complement = data["entry"].get("complement")
            submission = HandSubmission(
                submission_id=submission_id,
                sides=sides,
                photos=[
                    PhotoUpload(
                        p["side"],
                        session.get(PhotoBlob, p["sha256"]).data,
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
            hand = _record_hand(session, match, submission, actor="")
            session.delete(row)
            return _hand_view(session, hand)

        return self._db.write(work)

    def _change_draft(self, change: Callable[[dict[str, Any], Session], R]) -> R:
        def work(session: Session) -> R:
            match = _lock_match(session, self.match_id, self._code)
            if match.status in FINISHED:
                raise ScopaError("hand: the match is over")
            row = session.get(HandDraft, match.id)
            if row is None:
                submission_id = new_submission_id()
                row = HandDraft(
                    match_id=match.id, submission_id=submission_id, data=_empty_draft(submission_id)
                )
                session.add(row)
            data = _draft_copy(row)
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
        current = _get_tournament(session, self.tournament_id).referee_password_hash
        if not hmac.compare_digest(current, self._password_hash):
            raise AccessDenied("referee password: it was changed; log in again")

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
            row = _new_pair(self.tournament_id, seed, pair)
            session.add(row)
            session.flush()
            _log(session, self.tournament_id, REFEREE, "pair-added", {"pair": row.name})
            return _pair_info(row)

        return self._db.write(work)

    def update_pair(self, pair_id: int, pair: PairSetup) -> PairInfo:
        """Rename a pair or change its players (allowed at any time: it changes no result)."""

        def work(session: Session) -> PairInfo:
            row = self._pair(session, pair_id)
            before = {"name": row.name, "player1": row.player1, "player2": row.player2}
            if not pair.name.strip():
                raise ScopaError("pair name: must not be empty")
            row.name, row.player1, row.player2 = (
                pair.name.strip(),
                pair.player1.strip(),
                pair.player2.strip(),
            )
            _log(session, self.tournament_id, REFEREE, "pair-updated", {"before": before})
            return _pair_info(row)

        return self._db.write(work)

    def remove_pair(self, pair_id: int) -> None:
        """Withdraw a pair before the start; the seeds of the others close up."""

        def work(session: Session) -> None:
            self._in_setup(session)
            row = self._pair(session, pair_id)
            session.delete(row)
            session.flush()
            remaining = _pairs(session, self.tournament_id)
            for seed, info in enumerate(remaining.values(), start=1):
                session.get(Pair, info.id).seed = seed
            _log(session, self.tournament_id, REFEREE, "pair-removed", {"pair": row.name})

        self._db.write(work)

    def start(self) -> list[MatchView]:
        """Pair the first stage: every round of a round robin, or the first Swiss round."""

        def work(session: Session) -> list[MatchView]:
            tournament = self._in_setup(session)
            pairs = list(_pairs(session, tournament.id).values())
            if len(pairs) < 2:
                raise ScopaError(f"start: a tournament needs at least 2 pairs, has {len(pairs)}")
            if tournament.format == "round-robin":
                groups = pairing.split_groups([p.id for p in pairs], tournament.groups)
                schedules = []
                for index, members in enumerate(groups):
                    for pair_id in members:
                        session.get(Pair, pair_id).group_index = index
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
                    _new_round(session, tournament.id, number, "group", fixtures)
                tournament.stage = "group"
            else:
                fixtures = [
                    (None, a, b) for a, b in pairing.swiss_pairings([p.id for p in pairs], ())
                ]
                _new_round(session, tournament.id, 1, "swiss", fixtures)
                tournament.stage = "swiss"
            _log(session, tournament.id, REFEREE, "tournament-started", {"stage": tournament.stage})
            session.flush()
            return _match_views(session, tournament.id, None)

        return self._db.write(work)

    def next_round(self) -> list[MatchView]:
        """Pair the next Swiss or knockout round once every match so far is finished.

        Returns the new round's matches; an empty list when the tournament is thereby finished.
        """

        def work(session: Session) -> list[MatchView]:
            tournament = _get_tournament(session, self.tournament_id)
            if tournament.stage in ("setup", "finished"):
                raise ScopaError(f"next round: the tournament is in stage {tournament.stage!r}")
            unfinished = session.scalars(
                select(Match)
                .where(Match.tournament_id == tournament.id, Match.status.not_in(FINISHED))
                .order_by(Match.table_number)
            ).all()
            if unfinished:
                tables = ", ".join(str(m.table_number) for m in unfinished)
                raise ScopaError(f"next round: matches still being played at tables {tables}")
            number = (_latest_round_number(session, tournament.id) or 0) + 1
            pairs = _pairs(session, tournament.id)
            fixtures: list[tuple[int | None, int, int | None]]
            stage = tournament.stage
            swiss_played = number - 1
            if stage == "swiss" and swiss_played < tournament.swiss_rounds:
                ranking = [row.pair.id for row in _standings(session, tournament.id)[0].rows]
                previous = _stage_matches(session, tournament.id, ("swiss",))
                played = {frozenset((m.pair_a_id, m.pair_b_id)) for m in previous if m.pair_b_id}
                had_bye = {m.pair_a_id for m in previous if m.pair_b_id is None}
                fixtures = [
                    (None, a, b) for a, b in pairing.swiss_pairings(ranking, played, had_bye)
                ]
            elif stage in ("group", "swiss") and tournament.knockout_size:
                tables = _standings(session, tournament.id)
                if stage == "group":
                    rankings = [[row.pair.id for row in table.rows] for table in tables]
                    per_group = tournament.knockout_size // tournament.groups
                    seeds = pairing.knockout_seeds(rankings, per_group)
                else:
                    seeds = [row.pair.id for row in tables[0].rows][: tournament.knockout_size]
                fixtures = [(None, a, b) for a, b in pairing.knockout_first_round(seeds)]
                stage = "knockout"
            elif stage == "knockout":
                last = _stage_matches(session, tournament.id, ("knockout",), number - 1)
                winners = [m.winner_id for m in sorted(last, key=lambda m: m.position)]
                if len(winners) == 1:
                    fixtures = []
                else:
                    fixtures = [(None, a, b) for a, b in pairing.knockout_next_round(winners)]
            else:
                fixtures = []
            if not fixtures:
                tournament.stage = "finished"
                _log(session, tournament.id, REFEREE, "tournament-finished", {})
                return []
            tournament.stage = stage
            _new_round(session, tournament.id, number, stage, fixtures)
            names = {pid: pairs[pid].name for pid in pairs}
            _log(
                session,
                tournament.id,
                REFEREE,
                "round-paired",
                {
                    "round": number,
                    "stage": stage,
                    "matches": [[names[a], names.get(b)] for _, a, b in fixtures],
                },
            )
            session.flush()
            return _match_views(session, tournament.id, number)

        return self._db.write(work)

    def table_codes(self, round_number: int | None = None) -> list[tuple[MatchView, str]]:
        """Each match of a round (default: the current one) with its table code, for the slips."""

        def work(session: Session) -> list[tuple[MatchView, str]]:
            number = round_number or _current_round_number(session, self.tournament_id)
            views = _match_views(session, self.tournament_id, number)
            codes = dict(
                session.execute(
                    select(Match.id, Match.table_code).where(Match.id.in_([v.id for v in views]))
                ).all()
            )
            return [(view, codes[view.id]) for view in views if codes[view.id]]

        return self._db.read(work)

    def regenerate_code(self, match_id: int) -> str:
        """Give a match a new table code (the old one stops working at once)."""

        def work(session: Session) -> str:
            match = self._match(session, match_id)
            if match.table_code is None:
                raise ScopaError(f"match {match_id}: a bye has no table code")
            match.table_code = _unused_code(session)
            _log(session, self.tournament_id, REFEREE, "code-regenerated", {}, match_id=match.id)
            return match.table_code

        return self._db.write(work)

    def set_table_number(self, match_id: int, table_number: int) -> MatchView:
        def work(session: Session) -> MatchView:
            match = self._match(session, match_id)
            if table_number < 1:
                raise ScopaError(f"table number: must be 1 or more, got {table_number}")
            before = match.table_number
            match.table_number = table_number
            _log(
                session,
                self.tournament_id,
                REFEREE,
                "table-changed",
                {"from": before, "to": table_number},
                match_id=match.id,
            )
            return _match_view(session, match, _pairs(session, self.tournament_id))

        return self._db.write(work)

    def swap_pairs(self, pair_id: int, other_pair_id: int, note: str = "") -> list[MatchView]:
        """Exchange two pairs between matches of the current round before either is played.

        For the referee's hand-made pairings: avoiding a rematch, seating a late pair, fixing a
        mistake. Either match may be a bye (the pair moved into it gets the bye). Only Swiss and
        knockout rounds: a round robin's fixtures follow from its groups. Returns the round.
        """

        def work(session: Session) -> list[MatchView]:
            tournament = _get_tournament(session, self.tournament_id)
            number = _current_round_number(session, tournament.id)
            if number is None:
                raise ScopaError("swap pairs: no round has been paired yet")
            round_ = session.scalar(
                select(Round).where(Round.tournament_id == tournament.id, Round.number == number)
            )
            if round_.stage not in ("swiss", "knockout"):
                raise ScopaError(
                    "swap pairs: a round-robin round follows from its groups; edit the groups "
                    "before the start instead"
                )
            names = {pid: p.name for pid, p in _pairs(session, tournament.id).items()}
            slots = []
            for pid in (pair_id, other_pair_id):
                self._pair(session, pid)
                match = session.scalar(
                    select(Match)
                    .where(Match.round_id == round_.id)
                    .where((Match.pair_a_id == pid) | (Match.pair_b_id == pid))
                )
                if match is None:
                    raise ScopaError(f"swap pairs: {names[pid]} plays no match in round {number}")
                started = match.status not in ("scheduled", "bye") or session.scalar(
                    select(func.count()).select_from(Hand).where(Hand.match_id == match.id)
                )
                draft = session.get(HandDraft, match.id)
                if started or (draft and _draft_has_content(draft.data)):
                    raise ScopaError(
                        f"swap pairs: the match of {names[pid]} at table "
                        f"{match.table_number} has started"
                    )
                slots.append((match, "a" if match.pair_a_id == pid else "b"))
            (first, first_slot), (second, second_slot) = slots
            if first.id == second.id:
                raise ScopaError("swap pairs: the two pairs already play each other")
            setattr(first, f"pair_{first_slot}_id", other_pair_id)
            setattr(second, f"pair_{second_slot}_id", pair_id)
            for match in (first, second):
                if match.status == "bye":
                    match.winner_id = match.pair_a_id
            _log(
                session,
                tournament.id,
                REFEREE,
                "pairs-swapped",
                {"round": number, "pairs": [names[pair_id], names[other_pair_id]]},
                note=note,
            )
            session.flush()
            return _match_views(session, tournament.id, number)

        return self._db.write(work)

    def change_password(self, new_password: str) -> None:
        password_hash = hash_password(new_password, n=self._service.scrypt_n)

        def work(session: Session) -> None:
            _get_tournament(session, self.tournament_id).referee_password_hash = password_hash
            _log(session, self.tournament_id, REFEREE, "password-changed", {})

        self._db.write(work)
        # Every other desk opened with the old password now fails its check; this one goes on.
        if self._password_hash is not None:
            self._password_hash = password_hash

    # -- hands ------------------------------------------------------------------------------------

    def submit_hand(self, match_id: int, submission: HandSubmission) -> HandView:
        """Enter a hand for a match in the referee's name (e.g. a table without a phone)."""
        self._db.read(lambda s: self._match(s, match_id))
        return self._service._submit(
            match_id, submission, actor=REFEREE, code=None, check=self._check_still_valid
        )

    def hands(self, match_id: int) -> list[HandView]:
        return self._db.read(lambda s: _hand_views(s, self._match(s, match_id).id))

    def hand(self, hand_id: int) -> HandView:
        return self._db.read(lambda s: _hand_view(s, self._hand(s, hand_id)[0]))

    def all_hands(self) -> list[tuple[MatchView, HandView]]:
        """Every hand of the tournament (void ones too), in round, table and hand order."""

        def work(session: Session) -> list[tuple[MatchView, HandView]]:
            return [
                (match, hand)
                for match in _match_views(session, self.tournament_id, None)
                for hand in _hand_views(session, match.id)
            ]

        return self._db.read(work)

    def photo(self, photo_id: int) -> bytes:
        def work(session: Session) -> bytes:
            photo = session.get(Photo, photo_id)
            if photo is None:
                raise ScopaError(f"photo {photo_id}: no such photo")
            self._hand(session, photo.hand_id)
            return session.get(PhotoBlob, photo.sha256).data

        return self._db.read(work)

    def audit(self, *, match_id: int | None = None, hand_id: int | None = None) -> list[AuditEntry]:
        """The audit trail of the tournament, of one match, or of one hand, oldest first."""

        def work(session: Session) -> list[AuditEntry]:
            query = select(AuditEvent).where(AuditEvent.tournament_id == self.tournament_id)
            if match_id is not None:
                query = query.where(AuditEvent.match_id == match_id)
            if hand_id is not None:
                query = query.where(AuditEvent.hand_id == hand_id)
            return [_audit_entry(e) for e in session.scalars(query.order_by(AuditEvent.id))]

        return self._db.read(work)

    def accept_hand(self, hand_id: int, note: str = "") -> HandView:
        """Confirm a hand as recorded after review (e.g. after verification flagged it)."""

        def work(session: Session) -> HandView:
            hand, match = self._hand(session, hand_id, lock=True)
            hand.review = "accepted"
            _log(
                session,
                self.tournament_id,
                REFEREE,
                "hand-accepted",
                {"number": hand.number, "points": {"a": hand.points_a, "b": hand.points_b}},
                match_id=match.id,
                hand_id=hand.id,
                note=note,
            )
            return _hand_view(session, hand)

        return self._db.write(work)

    def correct_hand(
        self, hand_id: int, sides: Mapping[str, Mapping[str, Any]], note: str = ""
    ) -> HandView:
        """Replace a hand's cards and scope; the match and the standings follow."""

        def work(session: Session) -> HandView:
            hand, match = self._hand(session, hand_id, lock=True)
            rules = _rules(session, match.tournament_id)
            before = {"sides": hand.sides, "points": {"a": hand.points_a, "b": hand.points_b}}
            inputs = _side_inputs(sides)
            scored = _score(inputs, rules)
            hand.sides = _sides_json(inputs)
            hand.missing, hand.result = scored.missing, scored.result
            hand.points_a, hand.points_b = scored.points["a"], scored.points["b"]
            hand.review = "corrected"
            session.flush()
            _rebuild_match(session, match, rules)
            _log(
                session,
                self.tournament_id,
                REFEREE,
                "hand-corrected",
                {
                    "number": hand.number,
                    "before": before,
                    "after": {"sides": hand.sides, "points": scored.points},
                },
                match_id=match.id,
                hand_id=hand.id,
                note=note,
            )
            return _hand_view(session, hand)

        return self._db.write(work)

    def void_hand(self, hand_id: int, note: str = "") -> HandView:
        """Strike a hand from its match (kept in the audit trail); the match and standings follow."""

        def work(session: Session) -> HandView:
            hand, match = self._hand(session, hand_id, lock=True)
            if hand.status == "void":
                raise ScopaError(f"hand {hand_id}: already void")
            hand.status = "void"
            session.flush()
            _rebuild_match(session, match, _rules(session, match.tournament_id))
            _log(
                session,
                self.tournament_id,
                REFEREE,
                "hand-voided",
                {"number": hand.number, "points": {"a": hand.points_a, "b": hand.points_b}},
                match_id=match.id,
                hand_id=hand.id,
                note=note,
            )
            return _hand_view(session, hand)

        return self._db.write(work)

    def verify(self, **kwargs: Any) -> VerificationReport:
        """Re-run recognition on stored photos; see `scopa.tournament.verify.verify`."""
        from .verify import verify

        return verify(self._db, self.tournament_id, **kwargs)

    # -- helpers ----------------------------------------------------------------------------------

    def _in_setup(self, session: Session) -> Tournament:
        tournament = _get_tournament(session, self.tournament_id)
        if tournament.stage != "setup":
            raise ScopaError("pairs: the tournament has started, pairs can no longer change")
        return tournament

    def _pair(self, session: Session, pair_id: int) -> Pair:
        row = session.get(Pair, pair_id)
        if row is None or row.tournament_id != self.tournament_id:
            raise ScopaError(f"pair {pair_id}: not a pair of this tournament")
        return row

    def _match(self, session: Session, match_id: int) -> Match:
        match = session.get(Match, match_id)
        if match is None or match.tournament_id != self.tournament_id:
            raise ScopaError(f"match {match_id}: not a match of this tournament")
        return match

    def _hand(self, session: Session, hand_id: int, *, lock: bool = False) -> tuple[Hand, Match]:
        hand = session.get(Hand, hand_id)
        match = session.get(Match, hand.match_id) if hand else None
        if hand is None or match is None or match.tournament_id != self.tournament_id:
            raise ScopaError(f"hand {hand_id}: not a hand of this tournament")
        if lock:
            match = _lock_match(session, match.id, None)
            session.refresh(hand)
        return hand, match


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


# -- recording and scoring hands --------------------------------------------------------------------


class _Scored:
    def __init__(self, result: dict[str, Any], points: dict[str, int], missing: list[str]) -> None:
        self.result, self.points, self.missing = result, points, missing


def _side_inputs(sides: Mapping[str, Mapping[str, Any]]) -> dict[str, SideInput]:
    if not isinstance(sides, Mapping) or set(sides) != set(SIDES):
        keys = ", ".join(map(repr, sides)) if isinstance(sides, Mapping) else type(sides).__name__
        raise ScopaError(f"hand sides: expected exactly 'a' and 'b', got {keys}")
    return {side: SideInput.from_spec(sides[side], side=side) for side in SIDES}


def _sides_json(inputs: Mapping[str, SideInput]) -> dict[str, Any]:
    return {
        side: {"cards": [card.code for card in sorted(value.cards)], "scope": value.scope}
        for side, value in inputs.items()
    }


def _completed(inputs: Mapping[str, SideInput], missing: Sequence[str]) -> dict[str, SideInput]:
    """The hand with its missing cards given to side "a".

    Only hands whose missing cards cannot change any side's points are stored incomplete, so any
    placement scores the same; this one lets `scoring.Match` replay them like the others.
    """
    if not missing:
        return dict(inputs)
    extra = frozenset(parse_card(code) for code in missing)
    return {**inputs, "a": SideInput(cards=inputs["a"].cards | extra, scope=inputs["a"].scope)}


def _score(inputs: Mapping[str, SideInput], rules: Rules) -> _Scored:
    held = set().union(*(side.cards for side in inputs.values()))
    missing = [card.code for card in DECK if card not in held]
    if not missing:
        result = score_hand(inputs, rules)
        return _Scored(result.to_dict(), dict(result.totals), [])
    provisional = score_provisional(inputs, rules)
    if not provisional.determinate:
        deciding = sorted({c.code for cards in provisional.deciding.values() for c in cards})
        raise ScopaError(
            f"hand incomplete: {len(missing)} cards missing and the score depends on "
            f"{', '.join(deciding or missing)}; find or enter them"
        )
    totals = score_hand(_completed(inputs, missing), rules).totals
    return _Scored(provisional.to_dict(), dict(totals), missing)


def new_submission_id() -> str:
    return str(uuid.uuid4())


def _draft_has_content(data: Mapping[str, Any]) -> bool:
    """Whether a table has begun entering a hand (more than choosing photos or the grid)."""
    entry = {k: v for k, v in data.get("entry", {}).items() if k != "mode"}
    return bool(data.get("photos") or data.get("corrections") or any(entry.values()))


def _empty_draft(submission_id: str) -> dict[str, Any]:
    return {
        "submission_id": submission_id,
        "entry": {},
        "photos": [],
        "corrections": [],
        "next_id": 1,
    }


def _draft_copy(row: HandDraft) -> dict[str, Any]:
    data = copy.deepcopy(row.data)
    data["submission_id"] = row.submission_id
    return data


def _next_draft_id(draft: dict[str, Any]) -> int:
    draft["next_id"] = draft.get("next_id", 1) + 1
    return draft["next_id"] - 1


def _check_correction(correction: ManualCorrection) -> None:
    if correction.action not in CORRECTION_ACTIONS:
        raise ScopaError(f"correction: unknown action {correction.action!r}")
    parse_card(correction.card)
    if correction.side not in SIDES or correction.to_side not in (None, *SIDES):
        raise ScopaError(f"correction of {correction.card}: sides must be 'a' or 'b'")


def _check_extras(submission: HandSubmission) -> None:
    for photo in submission.photos:
        if photo.side not in SIDES:
            raise ScopaError(
                f"photo {photo.filename or ''}: side must be 'a' or 'b', not {photo.side!r}"
            )
        if not photo.data:
            raise ScopaError(f"photo {photo.filename or ''}: empty file")
    for correction in submission.corrections:
        _check_correction(correction)
    if submission.complement is not None:
        side, count = submission.complement
        if side not in SIDES or not isinstance(count, int) or count < 0:
            raise ScopaError(
                f"complement: expected (side 'a' or 'b', card count), got {submission.complement!r}"
            )
    if not submission.submission_id or len(submission.submission_id) > 100:
        raise ScopaError("submission id: must be 1 to 100 characters")


def _record_hand(session: Session, match: Match, submission: HandSubmission, actor: str) -> Hand:
    fingerprint = submission.fingerprint()
    existing = session.scalar(
        select(Hand).where(
            Hand.match_id == match.id, Hand.submission_id == submission.submission_id
        )
    )
    if existing is not None:
        if existing.payload_sha256 != fingerprint:
            raise ScopaError(
                f"submission {submission.submission_id}: already used for a different hand"
            )
        return existing
    if match.pair_b_id is None:
        raise ScopaError("hand: a bye has no hands")
    _check_extras(submission)
    rules = _rules(session, match.tournament_id)
    inputs = _side_inputs(submission.sides)
    scored = _score(inputs, rules)
    actor = actor or f"table {match.table_number}"

    number = 1 + (
        session.scalar(select(func.max(Hand.number)).where(Hand.match_id == match.id)) or 0
    )
    hand = Hand(
        match_id=match.id,
        number=number,
        submission_id=submission.submission_id,
        payload_sha256=fingerprint,
        submitted_by=actor,
        submitted_at=utcnow(),
        sides=_sides_json(inputs),
        complement=list(submission.complement) if submission.complement else None,
        missing=scored.missing,
        result=scored.result,
        points_a=scored.points["a"],
        points_b=scored.points["b"],
        recognition=dict(submission.recognition) if submission.recognition else None,
        corrections=len(submission.corrections),
    )
    session.add(hand)
    session.flush()
    # Adding a hand to a decided match raises here, and the transaction leaves no trace.
    _rebuild_match(session, match, rules)

    for position, photo in enumerate(submission.photos):
        _store_blob(session, photo.sha256, photo.data)
        session.add(
            Photo(
                hand_id=hand.id,
                side=photo.side,
                position=position,
                sha256=photo.sha256,
                filename=photo.filename[:255],
                recognition=dict(photo.recognition) if photo.recognition else None,
            )
        )
    _log(
        session,
        match.tournament_id,
        actor,
        "hand-recorded",
        {
            "number": number,
            "submission_id": submission.submission_id,
            "sides": hand.sides,
            "missing": scored.missing,
            "points": scored.points,
            "photos": [{"side": p.side, "sha256": p.sha256} for p in submission.photos],
        },
        match_id=match.id,
        hand_id=hand.id,
    )
    for correction in submission.corrections:
        _log(
            session,
            match.tournament_id,
            actor,
            "correction",
            correction.to_dict(),
            match_id=match.id,
            hand_id=hand.id,
        )
    return hand


def replay(rules: Rules, hands: Sequence[HandView], names: Mapping[str, str]) -> ScoringMatch:
    """The match as `scoring.Match` from its counted hands, sides named `names["a"]`, `["b"]`.

    For the pages, which show the scoreboard and each hand's breakdown like the single-match page.
    """
    match = ScoringMatch(rules, [names[side] for side in SIDES])
    for hand in hands:
        if hand.status == "counted":
            inputs = _completed(_side_inputs(hand.sides), hand.missing)
            match.add_hand({names[side]: inputs[side] for side in SIDES})
    return match


def _rebuild_match(session: Session, match: Match, rules: Rules) -> None:
    """Replay the match's counted hands through scoring.Match and store its state."""
    hands = session.scalars(
        select(Hand)
        .where(Hand.match_id == match.id, Hand.status == "counted")
        .order_by(Hand.number)
    ).all()
    replay = ScoringMatch(rules, SIDES)
    previous: Hand | None = None
    for hand in hands:
        if replay.decided:
            raise ScopaError(
                f"hand {hand.number}: the match would already be decided at hand "
                f"{previous.number if previous else 0}; void the hands after it first"
            )
        replay.add_hand(_completed(_side_inputs(hand.sides), hand.missing))
        previous = hand
    winner = {"a": match.pair_a_id, "b": match.pair_b_id}.get(replay.winner) if hands else None
    if match.winner_id is not None and winner != match.winner_id:
        _check_winner_can_change(session, match)
    totals = replay.totals
    match.score_a, match.score_b = totals["a"], totals["b"]
    match.status = replay.status if hands else "scheduled"
    match.winner_id = winner
    match.napoleone = bool(hands) and replay.napoleone is not None
    match.hands_counted = len(hands)
    match.updated_at = utcnow()


def _check_winner_can_change(session: Session, match: Match) -> None:
    """A decided match whose winner already went on to a knockout round cannot change winner."""
    number = session.scalar(select(Round.number).where(Round.id == match.round_id))
    later_knockout = session.scalar(
        select(func.count())
        .select_from(Round)
        .where(
            Round.tournament_id == match.tournament_id,
            Round.stage == "knockout",
            Round.number > number,
        )
    )
    if later_knockout:
        raise ScopaError(
            f"match at table {match.table_number}: its winner already plays the next knockout "
            "round; this change would change the winner"
        )


def _store_blob(session: Session, sha256: str, data: bytes) -> None:
    """Insert a photo's bytes unless a photo with the same SHA-256 is already stored."""
    values = {"sha256": sha256, "size": len(data), "data": data}
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        statement = postgresql.insert(PhotoBlob).values(**values).on_conflict_do_nothing()
    elif dialect == "sqlite":
        statement = sqlite.insert(PhotoBlob).values(**values).on_conflict_do_nothing()
    else:  # pragma: no cover - only the two backends above are supported
        if session.get(PhotoBlob, sha256) is not None:
            return
        session.add(PhotoBlob(**values))
        return
    session.execute(statement)


def _lock_match(session: Session, match_id: int, code: str | None) -> Match:
    """Load a match holding a row lock (PostgreSQL), re-checking the table code under the lock."""
    match = session.scalar(
        select(Match)
        .where(Match.id == match_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    if match is None:
        raise ScopaError(f"match {match_id}: no such match")
    if code is not None and match.table_code != code:
        raise AccessDenied("table code: no longer valid for this match, ask the referee")
    return match


# -- building rounds --------------------------------------------------------------------------------


def _new_pair(tournament_id: int, seed: int, pair: PairSetup) -> Pair:
    if not pair.name.strip():
        raise ScopaError("pair name: must not be empty")
    return Pair(
        tournament_id=tournament_id,
        seed=seed,
        name=pair.name.strip(),
        player1=pair.player1.strip(),
        player2=pair.player2.strip(),
    )


def _unused_code(session: Session) -> str:
    while True:
        code = new_table_code()
        if session.scalar(select(Match.id).where(Match.table_code == code)) is None:
            return code


def _new_round(
    session: Session,
    tournament_id: int,
    number: int,
    stage: str,
    fixtures: Iterable[tuple[int | None, int, int | None]],
) -> Round:
    """A round with its matches: tables numbered from 1, byes last and without a table."""
    round_ = Round(tournament_id=tournament_id, number=number, stage=stage)
    session.add(round_)
    session.flush()
    fixtures = list(fixtures)
    table = 0
    for position, (group, a, b) in enumerate(fixtures):
        if b is None:
            match = Match(status="bye", winner_id=a, table_number=None, table_code=None)
        else:
            table += 1
            match = Match(status="scheduled", table_number=table, table_code=_unused_code(session))
        match.tournament_id, match.round_id, match.position = tournament_id, round_.id, position
        match.group_index, match.pair_a_id, match.pair_b_id = group, a, b
        session.add(match)
    session.flush()
    return round_


# -- reading ------------------------------------------------------------------------------------------


def _get_tournament(session: Session, tournament_id: int) -> Tournament:
    tournament = session.get(Tournament, tournament_id)
    if tournament is None:
        raise ScopaError(f"tournament {tournament_id}: no such tournament")
    return tournament


def _rules(session: Session, tournament_id: int) -> Rules:
    return Rules.from_spec(_get_tournament(session, tournament_id).rules)


def _tournament_info(row: Tournament) -> TournamentInfo:
    return TournamentInfo(
        id=row.id,
        name=row.name,
        date=row.date,
        rules=dict(row.rules),
        format=row.format,
        groups=row.groups,
        swiss_rounds=row.swiss_rounds,
        knockout_size=row.knockout_size,
        stage=row.stage,
        deck=row.deck,
    )


def _pair_info(row: Pair) -> PairInfo:
    return PairInfo(
        id=row.id,
        seed=row.seed,
        name=row.name,
        player1=row.player1,
        player2=row.player2,
        group=row.group_index,
    )


def _pairs(session: Session, tournament_id: int) -> dict[int, PairInfo]:
    rows = session.scalars(
        select(Pair).where(Pair.tournament_id == tournament_id).order_by(Pair.seed)
    )
    return {row.id: _pair_info(row) for row in rows}


def _latest_round_number(session: Session, tournament_id: int) -> int | None:
    return session.scalar(
        select(func.max(Round.number)).where(Round.tournament_id == tournament_id)
    )


def _current_round_number(session: Session, tournament_id: int) -> int | None:
    unfinished = session.scalar(
        select(func.min(Round.number))
        .join(Match, Match.round_id == Round.id)
        .where(Round.tournament_id == tournament_id, Match.status.not_in(FINISHED))
    )
    return unfinished or _latest_round_number(session, tournament_id)


def _match_view(
    session: Session, match: Match, pairs: Mapping[int, PairInfo], round_: Round | None = None
) -> MatchView:
    round_ = round_ or session.get(Round, match.round_id)
    return MatchView(
        id=match.id,
        round_number=round_.number,
        stage=round_.stage,
        position=match.position,
        table_number=match.table_number,
        group=match.group_index,
        pair_a=pairs[match.pair_a_id],
        pair_b=pairs[match.pair_b_id] if match.pair_b_id is not None else None,
        status=match.status,
        score_a=match.score_a,
        score_b=match.score_b,
        winner_id=match.winner_id,
        napoleone=match.napoleone,
        hands_counted=match.hands_counted,
    )


def _match_views(session: Session, tournament_id: int, round_number: int | None) -> list[MatchView]:
    query = (
        select(Match, Round)
        .join(Round, Match.round_id == Round.id)
        .where(Match.tournament_id == tournament_id)
        .order_by(Round.number, Match.position)
    )
    if round_number is not None:
        query = query.where(Round.number == round_number)
    pairs = _pairs(session, tournament_id)
    return [_match_view(session, m, pairs, r) for m, r in session.execute(query).all()]


def _stage_matches(
    session: Session, tournament_id: int, stages: Sequence[str], round_number: int | None = None
) -> list[Match]:
    query = (
        select(Match)
        .join(Round, Match.round_id == Round.id)
        .where(Match.tournament_id == tournament_id, Round.stage.in_(stages))
    )
    if round_number is not None:
        query = query.where(Round.number == round_number)
    return list(session.scalars(query.order_by(Round.number, Match.position)))


def _standings(session: Session, tournament_id: int) -> list[GroupStandings]:
    tournament = _get_tournament(session, tournament_id)
    pairs = _pairs(session, tournament_id)
    results = [
        MatchResult(
            pair_a=pairs[m.pair_a_id],
            pair_b=pairs[m.pair_b_id] if m.pair_b_id is not None else None,
            score_a=m.score_a,
            score_b=m.score_b,
            winner=pairs[m.winner_id],
        )
        for m in _stage_matches(session, tournament_id, ("group", "swiss"))
        if m.status in FINISHED
    ]
    if tournament.format == "round-robin" and tournament.stage != "setup":
        groups = sorted({p.group for p in pairs.values() if p.group is not None})
    else:
        groups = [None]
    tables = []
    for group in groups:
        members = [p for p in pairs.values() if group is None or p.group == group]
        ids = {p.id for p in members}
        own = [r for r in results if r.pair_a.id in ids]
        tables.append(GroupStandings(group=group, rows=compute_standings(members, own)))
    return tables


def _photo_infos(session: Session, hand_id: int) -> tuple[PhotoInfo, ...]:
    rows = session.execute(
        select(Photo, PhotoBlob.size)
        .join(PhotoBlob, Photo.sha256 == PhotoBlob.sha256)
        .where(Photo.hand_id == hand_id)
        .order_by(Photo.position)
    ).all()
    return tuple(
        PhotoInfo(
            id=photo.id,
            side=photo.side,
            position=photo.position,
            sha256=photo.sha256,
            size=size,
            filename=photo.filename,
            recognition=photo.recognition,
        )
        for photo, size in rows
    )


def _hand_view(session: Session, hand: Hand) -> HandView:
    return HandView(
        id=hand.id,
        match_id=hand.match_id,
        number=hand.number,
        submission_id=hand.submission_id,
        submitted_by=hand.submitted_by,
        submitted_at=hand.submitted_at,
        sides=hand.sides,
        missing=list(hand.missing),
        complement=(hand.complement[0], hand.complement[1]) if hand.complement else None,
        result=hand.result,
        points_a=hand.points_a,
        points_b=hand.points_b,
        corrections=hand.corrections,
        status=hand.status,
        review=hand.review,
        recognition=hand.recognition,
        photos=_photo_infos(session, hand.id),
    )


def _hand_views(session: Session, match_id: int) -> list[HandView]:
    hands = session.scalars(select(Hand).where(Hand.match_id == match_id).order_by(Hand.number))
    return [_hand_view(session, hand) for hand in hands]


def _audit_entry(event: AuditEvent) -> AuditEntry:
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


def _log(
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


__all__ = ["TournamentService", "TableDesk", "RefereeDesk", "AccessDenied"]
