"""Helpers for the tournament tests: hands with known scores, quick ways to play a match."""

from __future__ import annotations

import uuid

import numpy as np

from scopa.tournament import (
    MatchView,
    PairSetup,
    TableHandSubmission,
    TournamentService,
    TournamentSetup,
)
from scoring import DECK, Card
from scoring.errors import ScopaError
from vision import DetectedCard, PhotoResult

PASSWORD = "arbitro-2024"

# With torneo-assi rules: the side holding the even-index cards (1D, 3D, ... 9B) scores
# primiera + settebello = 2, the other side 0; scope add to that.
EVEN = [card.code for card in DECK if card.index % 2 == 0]
ODD = [card.code for card in DECK if card.index % 2 == 1]
# Nine denari in a run, the four sevens and the coppe but the sette: 13 points to nothing.
BIG = [f"{rank}D" for rank in range(1, 10)] + ["7C", "7S", "7B"]
BIG += [f"{rank}C" for rank in (1, 2, 3, 4, 5, 6, 8, 9, 10)]
REST_OF_BIG = [code for code in (c.code for c in DECK) if code not in BIG]


def sides(a_cards: list[str], a_scope: int = 0, b_scope: int = 0) -> dict:
    """Both sides of a full hand: `a_cards` to side a, every other card to side b."""
    b_cards = [card.code for card in DECK if card.code not in set(a_cards)]
    return {
        "a": {"cards": list(a_cards), "scope": a_scope},
        "b": {"cards": b_cards, "scope": b_scope},
    }


def small_hand(winner: str = "a", scope: int = 0) -> dict:
    """A hand worth 2 + scope to `winner` and 0 to the other side."""
    if winner == "a":
        return sides(EVEN, a_scope=scope)
    return sides(ODD, b_scope=scope)


def big_hand(winner: str = "a") -> dict:
    """A hand worth 13 to `winner`: three of them win a match to 31."""
    return sides(BIG) if winner == "a" else sides(REST_OF_BIG)


def submission(hand: dict, **kwargs) -> TableHandSubmission:
    return TableHandSubmission(
        submission_id=kwargs.pop("submission_id", str(uuid.uuid4())), sides=hand, **kwargs
    )


def create_tournament(service: TournamentService, pairs: int = 4, **options) -> int:
    """A tournament of `pairs` pairs named P1, P2, ... (seeded in that order); returns its id."""
    setup = TournamentSetup(
        name=options.pop("name", "Torneo di prova"),
        pairs=[
            PairSetup(f"P{i}", f"Giocatore {i}a", f"Giocatore {i}b") for i in range(1, pairs + 1)
        ],
        **options,
    )
    return service.create_tournament(setup, PASSWORD)


def play_match(service: TournamentService, referee, match: MatchView, winner: str = "a") -> None:
    """Win `match` for side `winner` in three big hands, entered through its table code."""
    code = dict((m.id, c) for m, c in referee.table_codes(match.round_number))[match.id]
    table = service.table(code)
    for _ in range(3):
        table.submit_hand(submission(big_hand(winner)))


def photo_of(cards: list[str]) -> bytes:
    """Stand-in photo bytes that `fake_recognize` reads back as exactly these cards."""
    return ("cards:" + ",".join(cards)).encode()


def fake_recognize(data: bytes) -> PhotoResult:
    """A recognizer for photos made by `photo_of`: each card found with 99% confidence."""
    text = data.decode(errors="replace")
    if not text.startswith("cards:"):
        raise ScopaError("photo: cannot be decoded")
    cards = []
    for position, code in enumerate(filter(None, text.removeprefix("cards:").split(","))):
        probs = np.full(40, 0.01 / 39)
        probs[Card.parse(code).index] = 0.99
        x = 60.0 * position
        quad = np.array([[x, 0], [x + 50, 0], [x + 50, 90], [x, 90]], dtype=float)
        cards.append(DetectedCard(card=code, confidence=0.99, probs=probs, quad=quad))
    return PhotoResult(path=None, width=4000, height=3000, cards=cards)
