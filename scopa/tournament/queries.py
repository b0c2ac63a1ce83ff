"""Lookups in the tournament database and the mapping of its rows to the views callers see.

Every function takes the caller's `Session` (the service's or verification's transaction) and
returns plain values from `records.py`, or an ORM row where a writer needs one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from scoring import Rules
from scoring.errors import ScopaError

from .db import Hand, MatchRow, Pair, Photo, PhotoBlob, Round, Tournament
from .records import (
    FINISHED,
    GroupStandings,
    HandView,
    MatchView,
    PairInfo,
    PhotoInfo,
    TournamentInfo,
)
from .standings import MatchResult, compute_standings


def get_tournament(session: Session, tournament_id: int) -> Tournament:
    tournament = session.get(Tournament, tournament_id)
    if tournament is None:
        raise ScopaError(f"tournament {tournament_id}: no such tournament")
    return tournament


def tournament_rules(session: Session, tournament_id: int) -> Rules:
    return Rules.from_spec(get_tournament(session, tournament_id).rules)


def tournament_info(row: Tournament) -> TournamentInfo:
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


def pair_info(row: Pair) -> PairInfo:
    return PairInfo(
        id=row.id,
        seed=row.seed,
        name=row.name,
        player1=row.player1,
        player2=row.player2,
        group=row.group_index,
    )


def pairs(session: Session, tournament_id: int) -> dict[int, PairInfo]:
    """The tournament's pairs by id, in seed order."""
    rows = session.scalars(
        select(Pair).where(Pair.tournament_id == tournament_id).order_by(Pair.seed)
    )
    return {row.id: pair_info(row) for row in rows}


def latest_round_number(session: Session, tournament_id: int) -> int | None:
    return session.scalar(
        select(func.max(Round.number)).where(Round.tournament_id == tournament_id)
    )


def current_round_number(session: Session, tournament_id: int) -> int | None:
    """The first round with a match unfinished, else the latest one; None before the start."""
    unfinished = session.scalar(
        select(func.min(Round.number))
        .join(MatchRow, MatchRow.round_id == Round.id)
        .where(Round.tournament_id == tournament_id, MatchRow.status.not_in(FINISHED))
    )
    return unfinished or latest_round_number(session, tournament_id)


def match_view(
    session: Session, match: MatchRow, pairs: Mapping[int, PairInfo], round_: Round | None = None
) -> MatchView:
    round_ = round_ or session.get_one(Round, match.round_id)
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


def match_views(session: Session, tournament_id: int, round_number: int | None) -> list[MatchView]:
    """The matches of a tournament (or of one round) in round and table order."""
    query = (
        select(MatchRow, Round)
        .join(Round, MatchRow.round_id == Round.id)
        .where(MatchRow.tournament_id == tournament_id)
        .order_by(Round.number, MatchRow.position)
    )
    if round_number is not None:
        query = query.where(Round.number == round_number)
    by_id = pairs(session, tournament_id)
    return [match_view(session, m, by_id, r) for m, r in session.execute(query).all()]


def stage_matches(
    session: Session, tournament_id: int, stages: Sequence[str], round_number: int | None = None
) -> list[MatchRow]:
    query = (
        select(MatchRow)
        .join(Round, MatchRow.round_id == Round.id)
        .where(MatchRow.tournament_id == tournament_id, Round.stage.in_(stages))
    )
    if round_number is not None:
        query = query.where(Round.number == round_number)
    return list(session.scalars(query.order_by(Round.number, MatchRow.position)))


def standings(session: Session, tournament_id: int) -> list[GroupStandings]:
    """Standings of the group or Swiss stage (one table per group), from finished matches."""
    tournament = get_tournament(session, tournament_id)
    by_id = pairs(session, tournament_id)
    results = [
        MatchResult(
            pair_a=by_id[m.pair_a_id],
            pair_b=by_id[m.pair_b_id] if m.pair_b_id is not None else None,
            score_a=m.score_a,
            score_b=m.score_b,
            winner=by_id[winner_id(m)],
        )
        for m in stage_matches(session, tournament_id, ("group", "swiss"))
        if m.status in FINISHED
    ]
    groups: Sequence[int | None]
    if tournament.format == "round-robin" and tournament.stage != "setup":
        groups = sorted({p.group for p in by_id.values() if p.group is not None})
    else:
        groups = [None]
    tables = []
    for group in groups:
        members = [p for p in by_id.values() if group is None or p.group == group]
        ids = {p.id for p in members}
        own = [r for r in results if r.pair_a.id in ids]
        tables.append(GroupStandings(group=group, rows=compute_standings(members, own)))
    return tables


def winner_id(match: MatchRow) -> int:
    """The winning pair of a finished match."""
    if match.winner_id is None:
        raise ScopaError(f"match {match.id}: finished without a winner")
    return match.winner_id


def photo_infos(session: Session, hand_id: int) -> tuple[PhotoInfo, ...]:
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


def hand_view(session: Session, hand: Hand) -> HandView:
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
        photos=photo_infos(session, hand.id),
    )


def hand_views(session: Session, match_id: int) -> list[HandView]:
    hands = session.scalars(select(Hand).where(Hand.match_id == match_id).order_by(Hand.number))
    return [hand_view(session, hand) for hand in hands]
