"""Building a tournament's rows: a pair, a round with its matches, an unused table code."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from .db import MatchRow, Pair, Round
from .errors import TournamentError
from .records import BYE, SCHEDULED, PairSetup
from .security import new_table_code

Fixture = tuple[int | None, int, int | None]  # (group index, pair a, pair b or None: a bye)


def new_pair(tournament_id: int, seed: int, pair: PairSetup) -> Pair:
    if not pair.name.strip():
        raise TournamentError("pair name: must not be empty", "pair_name_empty")
    return Pair(
        tournament_id=tournament_id,
        seed=seed,
        name=pair.name.strip(),
        player1=pair.player1.strip(),
        player2=pair.player2.strip(),
    )


def unused_code(session: Session) -> str:
    while True:
        code = new_table_code()
        if session.scalar(select(MatchRow.id).where(MatchRow.table_code == code)) is None:
            return code


def new_round(
    session: Session,
    tournament_id: int,
    number: int,
    stage: str,
    fixtures: Iterable[Fixture],
) -> Round:
    """A round with its matches: tables numbered from 1, byes last and without a table."""
    round_ = Round(tournament_id=tournament_id, number=number, stage=stage)
    session.add(round_)
    session.flush()
    table = 0
    for position, (group, a, b) in enumerate(list(fixtures)):
        if b is None:
            match = MatchRow(status=BYE, winner_id=a, table_number=None, table_code=None)
        else:
            table += 1
            match = MatchRow(status=SCHEDULED, table_number=table, table_code=unused_code(session))
        match.tournament_id, match.round_id, match.position = tournament_id, round_.id, position
        match.group_index, match.pair_a_id, match.pair_b_id = group, a, b
        session.add(match)
    session.flush()
    return round_
