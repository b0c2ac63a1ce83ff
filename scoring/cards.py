"""Cards of the 40-card Italian deck: suits, ranks, codes and their Italian and English names.

A card code is the rank then the suit letter: ``1D`` (asso di denari), ``7D`` (the settebello),
``10B`` (re di bastoni). Codes are case-insensitive on input and upper-case on output.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from functools import total_ordering

from scoring.errors import ScopaError


class Suit(Enum):
    """The four suits, valued by their code letter, in the deck's canonical order."""

    DENARI = "D"
    COPPE = "C"
    SPADE = "S"
    BASTONI = "B"

    @property
    def italian(self) -> str:
        return _SUIT_ITALIAN[self]

    @property
    def english(self) -> str:
        return _SUIT_ENGLISH[self]

    @property
    def order(self) -> int:
        """Position of the suit in the canonical deck order (D, C, S, B)."""
        return _SUIT_ORDER[self]


_SUIT_ITALIAN = {
    Suit.DENARI: "denari",
    Suit.COPPE: "coppe",
    Suit.SPADE: "spade",
    Suit.BASTONI: "bastoni",
}
_SUIT_ENGLISH = {
    Suit.DENARI: "coins",
    Suit.COPPE: "cups",
    Suit.SPADE: "swords",
    Suit.BASTONI: "clubs",
}
_SUIT_ORDER = {suit: i for i, suit in enumerate(Suit)}

RANKS: tuple[int, ...] = tuple(range(1, 11))
RANK_NAMES_IT: dict[int, str] = {
    1: "asso", 2: "due", 3: "tre", 4: "quattro", 5: "cinque",
    6: "sei", 7: "sette", 8: "fante", 9: "cavallo", 10: "re",
}  # fmt: skip
RANK_NAMES_EN: dict[int, str] = {
    1: "ace", 2: "two", 3: "three", 4: "four", 5: "five",
    6: "six", 7: "seven", 8: "jack", 9: "knight", 10: "king",
}  # fmt: skip

#: Primiera value of each rank (RULES.md): 7 = 21, 6 = 18, asso = 16, 5 = 15, ... figures = 10.
PRIMIERA_VALUES: dict[int, int] = {
    7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 8: 10, 9: 10, 10: 10,
}  # fmt: skip


@total_ordering
@dataclass(frozen=True, eq=False)
class Card:
    """One card. Cards sort in deck order: by suit (D, C, S, B), then by rank."""

    rank: int
    suit: Suit
    #: Position in DECK (and in every 40-way probability vector of the project).
    index: int = field(init=False, repr=False)
    primiera_value: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if type(self.rank) is not int or not 1 <= self.rank <= 10:
            raise ScopaError(f"card rank must be an integer from 1 to 10, got {self.rank!r}")
        if not isinstance(self.suit, Suit):
            raise ScopaError(f"card suit must be a Suit, got {self.suit!r}")
        # Cached because scoring compares, hashes and sorts cards in its inner loops.
        object.__setattr__(self, "index", self.suit.order * 10 + self.rank - 1)
        object.__setattr__(self, "primiera_value", PRIMIERA_VALUES[self.rank])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index == other.index

    def __hash__(self) -> int:
        return self.index

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.index < other.index

    @classmethod
    def parse(cls, code: str | Card) -> Card:
        """The card of a code such as ``"7d"`` or ``"10B"``; ScopaError naming the code if unknown."""
        return parse_card(code)

    @property
    def code(self) -> str:
        return f"{self.rank}{self.suit.value}"

    @property
    def name_it(self) -> str:
        return f"{RANK_NAMES_IT[self.rank]} di {self.suit.italian}"

    @property
    def name_en(self) -> str:
        return f"{RANK_NAMES_EN[self.rank]} of {self.suit.english}"

    def __str__(self) -> str:
        return self.code


DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in RANKS)
CARD_CODES: tuple[str, ...] = tuple(card.code for card in DECK)
_BY_CODE: dict[str, Card] = {card.code: card for card in DECK}

#: The special cards of the rules.
SETTEBELLO: Card = Card(7, Suit.DENARI)
RE_BELLO: Card = Card(10, Suit.DENARI)


def parse_card(code: str | Card) -> Card:
    """Parse a card code (case-insensitive, surrounding spaces ignored); a Card is returned as is."""
    if isinstance(code, Card):
        return code
    if not isinstance(code, str):
        raise ScopaError(f"card code must be a string such as '7D', got {code!r}")
    card = _BY_CODE.get(code.strip().upper())
    if card is None:
        raise ScopaError(
            f"unknown card code {code!r} (expected rank 1-10 then suit D, C, S or B, e.g. '7D')"
        )
    return card


def parse_cards(codes: Iterable[str | Card], *, side: str | None = None) -> frozenset[Card]:
    """Parse a side's cards; ScopaError on an unknown code or a card listed twice, naming it."""
    where = f"side {side!r}: " if side is not None else ""
    if isinstance(codes, str | bytes) or not isinstance(codes, Iterable):
        raise ScopaError(f"{where}cards must be a list of card codes, got {type(codes).__name__}")
    seen: set[Card] = set()
    for code in codes:
        try:
            card = parse_card(code)
        except ScopaError as exc:
            raise ScopaError(f"{where}{exc}") from None
        if card in seen:
            raise ScopaError(f"{where}card {card.code} is listed twice")
        seen.add(card)
    return frozenset(seen)
