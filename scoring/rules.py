"""The rules a match is played under: the presets of RULES.md and every option on top of them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from scoring.errors import ScopaError

MISSING_SUIT_RULES: tuple[str, ...] = ("lose", "count")


@dataclass(frozen=True)
class Rules:
    """One table's rules.

    ``target``: points that win the match. ``napola``: score the run of denari from the asso.
    ``napoleone``: all ten denari win the match at once. ``re_bello``: a point for the 10 of
    denari. ``primiera_missing_suit``: ``"lose"`` (a side lacking a suit cannot win primiera) or
    ``"count"`` (a missing suit counts 0). ``ace_sweep_is_scopa``: in Scopa d'Assi, whether an
    asso that sweeps the table counts as a scopa; it only matters to a capture referee, since
    the scoring engine receives the number of scope already counted.

    An option left out (None) takes the preset's value, so ``Rules(preset="assi")`` is the
    ``assi`` preset; after construction every option holds a value.
    """

    preset: str = "classica"
    target: int | None = None
    napola: bool | None = None
    napoleone: bool | None = None
    re_bello: bool | None = None
    primiera_missing_suit: str | None = None
    ace_sweep_is_scopa: bool | None = None

    @property
    def napoleone_counts(self) -> bool:
        """The napoleone is a napola of all ten denari: with napola off there is none, whatever
        the `napoleone` option says (RULES.md)."""
        return bool(self.napola and self.napoleone)

    def __post_init__(self) -> None:
        if not isinstance(self.preset, str) or self.preset not in PRESET_OPTIONS:
            raise ScopaError(
                f"rules: unknown preset {self.preset!r} (known: {', '.join(PRESET_OPTIONS)})"
            )
        for option, value in PRESET_OPTIONS[self.preset].items():
            if getattr(self, option) is None:
                object.__setattr__(self, option, value)
        if type(self.target) is not int or self.target < 1:
            raise ScopaError(f"rules: target must be a positive integer, got {self.target!r}")
        for name in ("napola", "napoleone", "re_bello", "ace_sweep_is_scopa"):
            value = getattr(self, name)
            if type(value) is not bool:
                raise ScopaError(f"rules: {name} must be true or false, got {value!r}")
        if self.primiera_missing_suit not in MISSING_SUIT_RULES:
            raise ScopaError(
                "rules: primiera_missing_suit must be 'lose' or 'count', "
                f"got {self.primiera_missing_suit!r}"
            )

    @classmethod
    def from_preset(cls, name: str = "classica", **overrides: Any) -> Rules:
        """The preset ``name`` (case-insensitive) with some options overridden.

        ScopaError on an unknown preset or option, or a wrong option value.
        """
        if isinstance(name, str):
            name = name.strip().lower()
        if not isinstance(name, str) or name not in PRESET_OPTIONS:
            raise ScopaError(f"rules: unknown preset {name!r} (known: {', '.join(PRESET_OPTIONS)})")
        _check_overrides(overrides)
        return cls(preset=name, **overrides)

    @classmethod
    def from_spec(cls, spec: str | Mapping[str, Any] | Rules) -> Rules:
        """Rules from the JSON ``"rules"`` field: a preset name or ``{"preset": ..., options...}``."""
        if isinstance(spec, Rules):
            return spec
        if isinstance(spec, str):
            return cls.from_preset(spec)
        if isinstance(spec, Mapping):
            options = dict(spec)
            if "preset" not in options:
                raise ScopaError(f"rules: missing 'preset' (one of {', '.join(PRESET_OPTIONS)})")
            return cls.from_preset(options.pop("preset"), **options)
        raise ScopaError(
            "rules must be a preset name or an object with 'preset' and options, "
            f"got {type(spec).__name__}"
        )

    def with_options(self, **overrides: Any) -> Rules:
        """A copy with some options changed (validated like the constructor)."""
        _check_overrides(overrides)
        return replace(self, **overrides)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _check_overrides(overrides: Mapping[str, Any]) -> None:
    for option, value in overrides.items():
        if option not in OPTION_NAMES:
            raise ScopaError(f"rules: unknown option {option!r} (known: {', '.join(OPTION_NAMES)})")
        if value is None:
            raise ScopaError(f"rules: {option} needs a value, got null")


#: The option values of each preset (RULES.md, "Presets").
PRESET_OPTIONS: dict[str, dict[str, Any]] = {
    "torneo-assi": {
        "target": 31,
        "napola": True,
        "napoleone": True,
        "re_bello": False,
        "primiera_missing_suit": "lose",
        "ace_sweep_is_scopa": False,
    },
    "assi": {
        "target": 11,
        "napola": True,
        "napoleone": False,
        "re_bello": False,
        "primiera_missing_suit": "lose",
        "ace_sweep_is_scopa": False,
    },
    "classica": {
        "target": 11,
        "napola": False,
        "napoleone": False,
        "re_bello": False,
        "primiera_missing_suit": "lose",
        "ace_sweep_is_scopa": False,
    },
}

#: Names of the options that may be overridden on top of a preset.
OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Rules) if f.name != "preset")

PRESETS: dict[str, Rules] = {name: Rules.from_preset(name) for name in PRESET_OPTIONS}
