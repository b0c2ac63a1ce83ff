"""A match: hands added up until a side reaches the target (RULES.md, "Match").

How a match ends, hand by hand:

- With the ``napoleone`` option on, a side that holds all ten denari in a hand wins the match at
  once, whatever the totals (also during a spareggio, and also a side that is not in it).
- Otherwise, once at least one side has reached or passed the target, the side with the highest
  total wins. If the highest total is shared, the match goes to a spareggio between exactly the
  sides sharing it (all of which have reached the target).
- In a spareggio every side still plays each hand and all totals keep adding up, but only the
  sides in the spareggio can win: after each hand the one among them with the strictly highest
  total wins; if some of them are still tied at their highest total, the spareggio goes on
  between those only.

A hand added after the match was decided is an error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from scoring.errors import ScopaError
from scoring.hand import HandResult, SideInput, score_hand
from scoring.rules import Rules

#: A match's status: still being played, in a spareggio, or won.
MatchStatus = Literal["in-progress", "spareggio", "won"]
IN_PROGRESS: Final = "in-progress"
SPAREGGIO: Final = "spareggio"
WON: Final = "won"
#: The statuses of a match still being played.
UNFINISHED: Final[tuple[MatchStatus, ...]] = (IN_PROGRESS, SPAREGGIO)

HandInput = Mapping[str, SideInput | Mapping[str, Any]]


class Match:
    """A match between fixed sides under fixed rules, hand by hand."""

    def __init__(self, rules: Rules, sides: Sequence[str]) -> None:
        if not isinstance(rules, Rules):
            raise ScopaError(f"rules must be a Rules object, got {type(rules).__name__}")
        if isinstance(sides, str) or not isinstance(sides, Sequence):
            raise ScopaError("match: sides must be a list of side names")
        names = tuple(sides)
        for name in names:
            if not isinstance(name, str) or not name.strip():
                raise ScopaError(f"match: side names must be non-empty text, got {name!r}")
        if len(set(names)) != len(names):
            duplicate = next(name for name in names if names.count(name) > 1)
            raise ScopaError(f"match: side {duplicate!r} is named twice")
        if not 2 <= len(names) <= 4:
            raise ScopaError(f"match: a match has 2 to 4 sides, got {len(names)}")
        self.rules = rules
        self.sides: tuple[str, ...] = names
        self._hands: list[HandResult] = []
        self._state = _State.initial(names)

    @property
    def hands(self) -> tuple[HandResult, ...]:
        return tuple(self._hands)

    @property
    def totals(self) -> dict[str, int]:
        return dict(self._state.totals)

    @property
    def status(self) -> MatchStatus:
        return self._state.status

    @property
    def winner(self) -> str | None:
        return self._state.winner

    @property
    def napoleone(self) -> str | None:
        """The side that won the match with a napoleone, if that is how it ended."""
        return self._state.napoleone

    @property
    def spareggio(self) -> tuple[str, ...]:
        """The sides still contending in a spareggio (empty unless the status is spareggio)."""
        return self._state.spareggio

    @property
    def decided(self) -> bool:
        return self._state.status == WON

    @property
    def decided_at(self) -> int | None:
        """Index of the hand that decided the match, or None."""
        return len(self._hands) - 1 if self.decided else None

    def add_hand(self, sides_input: HandInput) -> HandResult:
        """Score a hand and add it; ScopaError if the match is already decided."""
        if self.decided:
            raise ScopaError(
                f"the match is already decided ({self._state.winner!r} won at hand "
                f"{len(self._hands)}); no further hand can be added"
            )
        result = self._score(sides_input)
        self._hands.append(result)
        self._state = self._state.after(result, self.rules)
        return result

    def replace_hand(self, index: int, sides_input: HandInput) -> HandResult:
        """Replace hand ``index`` (0-based) and recompute every later total and the status.

        If the corrected hand would decide the match before its last hand, the later hands could
        not have been played: ScopaError, and the match is left unchanged.
        """
        position = self._check_index(index)
        result = self._score(sides_input)
        hands = list(self._hands)
        hands[position] = result
        self._state = self._replay(hands)
        self._hands = hands
        return result

    def undo_last(self) -> HandResult:
        """Remove the last hand and return it; ScopaError when there is none."""
        if not self._hands:
            raise ScopaError("the match has no hand to undo")
        hands = self._hands[:-1]
        self._state = self._replay(hands)
        return self._hands.pop()

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "sides": list(self.sides),
            "totals": self.totals,
            "status": self.status,
            "winner": self.winner,
            "napoleone": self.napoleone,
            "spareggio": list(self.spareggio),
            "target": self.rules.target,
            "hands": [hand.to_dict() for hand in self._hands],
        }

    @classmethod
    def from_hands(cls, rules: Rules, hands: Sequence[HandInput]) -> Match:
        """A match with these hands played in order; the sides are those of the first hand."""
        if isinstance(hands, str | bytes) or not isinstance(hands, Sequence):
            raise ScopaError("match: hands must be a list of hands")
        if not hands:
            raise ScopaError("match: there must be at least one hand")
        first = hands[0]
        if not isinstance(first, Mapping):
            raise ScopaError(f"hand 1: expected an object of sides, got {type(first).__name__}")
        match = cls(rules, list(first))
        for number, hand in enumerate(hands, start=1):
            try:
                match.add_hand(hand)
            except ScopaError as exc:
                raise ScopaError(f"hand {number}: {exc}") from None
        return match

    def _score(self, sides_input: HandInput) -> HandResult:
        if not isinstance(sides_input, Mapping):
            raise ScopaError(
                f"a hand must map side names to their cards, got {type(sides_input).__name__}"
            )
        names = set(sides_input)
        if names != set(self.sides):
            missing = [name for name in self.sides if name not in names]
            extra = sorted(str(name) for name in names if name not in self.sides)
            problem = f"lacks side {missing[0]!r}" if missing else f"has unknown side {extra[0]!r}"
            raise ScopaError(
                f"the hand {problem} (the match's sides are {', '.join(map(repr, self.sides))})"
            )
        ordered = {name: sides_input[name] for name in self.sides}
        return score_hand(ordered, self.rules)

    def _replay(self, hands: Sequence[HandResult]) -> _State:
        state = _State.initial(self.sides)
        for number, hand in enumerate(hands, start=1):
            if state.status == WON:
                raise ScopaError(
                    f"the match would be decided at hand {number - 1} ({state.winner!r} wins), "
                    f"but {len(hands)} hands were played; the match is left unchanged"
                )
            state = state.after(hand, self.rules)
        return state

    def _check_index(self, index: int) -> int:
        if type(index) is not int:
            raise ScopaError(f"hand index must be an integer, got {index!r}")
        if not -len(self._hands) <= index < len(self._hands):
            raise ScopaError(
                f"no hand {index} in this match (it has {len(self._hands)} hands, numbered from 0)"
            )
        return index % len(self._hands)


class _State:
    """Totals and status after some hands."""

    def __init__(
        self,
        totals: dict[str, int],
        status: MatchStatus,
        winner: str | None = None,
        spareggio: tuple[str, ...] = (),
        napoleone: str | None = None,
    ) -> None:
        self.totals = totals
        self.status = status
        self.winner = winner
        self.spareggio = spareggio
        self.napoleone = napoleone

    @classmethod
    def initial(cls, sides: Sequence[str]) -> _State:
        return cls({name: 0 for name in sides}, IN_PROGRESS)

    def after(self, hand: HandResult, rules: Rules) -> _State:
        totals = {name: self.totals[name] + hand.sides[name].total for name in self.totals}
        if hand.napoleone is not None:
            return _State(totals, WON, winner=hand.napoleone, napoleone=hand.napoleone)
        if self.status == SPAREGGIO:
            contenders = self.spareggio
        else:
            target = rules.target
            assert target is not None  # Rules.__post_init__ fills it from the preset
            contenders = tuple(name for name in totals if totals[name] >= target)
            if not contenders:
                return _State(totals, IN_PROGRESS)
        top = max(totals[name] for name in contenders)
        leaders = tuple(name for name in contenders if totals[name] == top)
        if len(leaders) == 1:
            return _State(totals, WON, winner=leaders[0])
        return _State(totals, SPAREGGIO, spareggio=leaders)
