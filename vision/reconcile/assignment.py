"""The joint assignment of detections to cards: the optimisation at the heart of reconciliation.

A *unit* is one card seen in one photo (usually one detection; see `reconciler` for detections
merged because they outline the same card). Each unit either reads as one of its candidate
cards, at cost ``-log p(card)``, or is declared *extra* (not a card of the deck) at its own
fixed cost. A choice of one option per unit is feasible when

- no two units of one photo read as the same card (one photo cannot show a card twice), and
- no card is read in two different sides (each card exists once). Units of one side in
  *different* photos may share a card: the player's photos of a pile overlap, and the card
  is then counted once.

`AssignmentProblem.solve` returns a feasible choice of least total cost, that is the most
probable reading of every photo at once under the one-of-each constraint. When each side has
at most one photo, the problem is a rectangular assignment (units x cards, plus one private
"extra" column per unit) and is solved exactly by `scipy.optimize.linear_sum_assignment`.
Several photos of one side need an ownership variable per (side, card), so that case is
solved exactly as a small integer programme by `scipy.optimize.milp` (HiGHS).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, linear_sum_assignment, milp
from scipy.sparse import coo_array

#: The option of a unit that reads as no card of the deck.
EXTRA = -1

N_CARDS = 40

# A cost no feasible assignment pays: marks forbidden cells of the assignment matrix.
_FORBIDDEN = 1e9


@dataclass(frozen=True)
class Unit:
    """One card seen in one photo, with what each reading of it costs."""

    side: int
    photo: int
    #: ``-log p`` of each of the 40 cards, in DECK order.
    costs: np.ndarray
    #: The cost of declaring the unit extra (no card of the deck).
    extra_cost: float
    #: The cards it may read as: allowed in its side and cheaper than being extra, cheapest first.
    options: tuple[int, ...]

    def cost(self, option: int) -> float:
        return self.extra_cost if option == EXTRA else float(self.costs[option])


@dataclass(frozen=True)
class Solution:
    """One option per unit (a card index or EXTRA) and the total cost of that choice."""

    choice: tuple[int, ...]
    cost: float


class AssignmentProblem:
    """The units of every photo of every side, solved jointly (see the module docstring)."""

    def __init__(self, units: Sequence[Unit]) -> None:
        self.units = tuple(units)
        photos_per_side: dict[int, set[int]] = {}
        for unit in self.units:
            photos_per_side.setdefault(unit.side, set()).add(unit.photo)
        self.is_matching = all(len(photos) <= 1 for photos in photos_per_side.values())

    def solve(self, fixed: Mapping[int, int] | None = None) -> Solution | None:
        """The least-cost feasible choice with the units in ``fixed`` held to the given options.

        None when no choice satisfies ``fixed`` (for example two fixed units of one photo
        reading as the same card, or a fixed card the unit may not read as).
        """
        fixed = dict(fixed or {})
        for index, option in fixed.items():
            if option != EXTRA and option not in self.units[index].options:
                return None
        if not self.units:
            return Solution((), 0.0)
        choice = self._solve_matching(fixed) if self.is_matching else self._solve_milp(fixed)
        if choice is None:
            return None
        cost = sum(unit.cost(option) for unit, option in zip(self.units, choice, strict=True))
        return Solution(choice, cost)

    def _solve_matching(self, fixed: Mapping[int, int]) -> tuple[int, ...] | None:
        n = len(self.units)
        matrix = np.full((n, N_CARDS + n), _FORBIDDEN)
        for row, unit in enumerate(self.units):
            if row in fixed:
                option = fixed[row]
                column = N_CARDS + row if option == EXTRA else option
                matrix[row, column] = unit.cost(option)
                continue
            for card in unit.options:
                matrix[row, card] = unit.costs[card]
            matrix[row, N_CARDS + row] = unit.extra_cost
        rows, columns = linear_sum_assignment(matrix)
        if matrix[rows, columns].max() >= _FORBIDDEN:
            return None
        choice = [EXTRA] * n
        for row, column in zip(rows, columns, strict=True):
            choice[row] = int(column) if column < N_CARDS else EXTRA
        return tuple(choice)

    def _solve_milp(self, fixed: Mapping[int, int]) -> tuple[int, ...] | None:
        # Variables: x[u, card] for each option of each unit, e[u] (unit u is extra) and
        # y[side, card] (the side owns the card). Every unit takes exactly one option; a unit
        # reads as a card only if its side owns it; a card has at most one owner; a photo
        # shows a card at most once.
        costs: list[float] = []
        lower: list[float] = []
        upper: list[float] = []
        reads: list[tuple[int, int, int]] = []  # (variable, unit, card)
        extra_var: list[int] = []
        for index, unit in enumerate(self.units):
            held = fixed.get(index)
            for card in unit.options:
                if held is None or held == card:
                    reads.append((len(costs), index, card))
                    costs.append(float(unit.costs[card]))
                    lower.append(1.0 if held == card else 0.0)
                    upper.append(1.0)
            extra_var.append(len(costs))
            costs.append(unit.extra_cost)
            lower.append(1.0 if held == EXTRA else 0.0)
            upper.append(1.0 if held in (None, EXTRA) else 0.0)
        owner_var: dict[tuple[int, int], int] = {}
        for _, index, card in reads:
            key = (self.units[index].side, card)
            if key not in owner_var:
                owner_var[key] = len(costs)
                costs.append(0.0)
                lower.append(0.0)
                upper.append(1.0)

        rows: list[int] = []
        cols: list[int] = []
        vals: list[float] = []
        row_lower: list[float] = []
        row_upper: list[float] = []

        def add_row(entries: Sequence[tuple[int, float]], low: float, high: float) -> None:
            row = len(row_lower)
            for column, value in entries:
                rows.append(row)
                cols.append(column)
                vals.append(value)
            row_lower.append(low)
            row_upper.append(high)

        by_unit: dict[int, list[int]] = {index: [] for index in range(len(self.units))}
        by_photo_card: dict[tuple[int, int], list[int]] = {}
        for variable, index, card in reads:
            by_unit[index].append(variable)
            by_photo_card.setdefault((self.units[index].photo, card), []).append(variable)
            add_row([(variable, 1.0), (owner_var[self.units[index].side, card], -1.0)], -np.inf, 0)
        for index, variables in by_unit.items():
            add_row([(v, 1.0) for v in [*variables, extra_var[index]]], 1, 1)
        for variables in by_photo_card.values():
            if len(variables) > 1:
                add_row([(v, 1.0) for v in variables], -np.inf, 1)
        owners_of_card: dict[int, list[int]] = {}
        for (_, card), variable in owner_var.items():
            owners_of_card.setdefault(card, []).append(variable)
        for variables in owners_of_card.values():
            if len(variables) > 1:
                add_row([(v, 1.0) for v in variables], -np.inf, 1)

        matrix = coo_array((vals, (rows, cols)), shape=(len(row_lower), len(costs))).tocsr()
        result = milp(
            np.array(costs),
            constraints=LinearConstraint(matrix, row_lower, row_upper),
            integrality=np.ones(len(costs)),
            bounds=Bounds(np.array(lower), np.array(upper)),
        )
        if result.status != 0:
            return None
        values = result.x
        choice = [EXTRA] * len(self.units)
        for variable, index, card in reads:
            if values[variable] > 0.5:
                choice[index] = card
        return tuple(choice)
