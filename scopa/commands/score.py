"""`scopa score-hand` and `scopa score-match`: the rules engine on JSON in, JSON out."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from scoring import Match, Rules, ScopaError, score_hand, score_provisional

HAND_EXAMPLE = """\
example input (scopa score-hand hand.json, or on standard input):

  {"rules": "classica",
   "sides": {"A": {"cards": ["1D", "7D", "7C", "..."], "scope": 1},
             "B": {"cards": ["2D", "3C", "..."], "scope": 0}}}

"rules" is a preset name (torneo-assi, assi, classica) or an object with a preset and options:
  {"preset": "assi", "target": 16, "napola": true, "napoleone": false, "re_bello": false,
   "primiera_missing_suit": "lose", "ace_sweep_is_scopa": false}
Cards are codes, rank then suit: 1D (asso di denari), 7D (settebello), 10B (re di bastoni).
All 40 cards must be among the sides; with --provisional an incomplete hand is scored as far
as it goes and the output says which categories the missing cards can still change
(an optional "placements": {"7D": ["A", "B"]} says where a missing card may be).

output: {"sides": {"A": {"points": {"scope": 1, "carte": 1, ...}, "total": 4, ...}, ...},
         "napoleone": null, ...}
"""

MATCH_EXAMPLE = """\
example input (scopa score-match match.json, or on standard input):

  {"rules": {"preset": "torneo-assi", "target": 31},
   "hands": [{"Noi": {"cards": ["1D", "..."], "scope": 2}, "Loro": {"cards": ["..."], "scope": 0}},
             {"Noi": {"cards": ["..."], "scope": 0}, "Loro": {"cards": ["..."], "scope": 1}}]}

Each hand is shaped like "sides" of score-hand, with the same side names in every hand.

output: {"totals": {"Noi": 33, "Loro": 20}, "status": "won", "winner": "Noi",
         "spareggio": [], "hands": [...each hand's result...], ...}
status is "in-progress", "won" or "spareggio" (the sides tied at the top play on).
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the score-hand and score-match sub-commands."""
    hand = subparsers.add_parser(
        "score-hand",
        help="score one hand from JSON",
        description="Score one hand of Scopa between 2 to 4 sides; JSON in, JSON out.",
        epilog=HAND_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_common(hand)
    hand.add_argument(
        "--provisional",
        action="store_true",
        help="score an incomplete hand and tell what the missing cards can still change",
    )
    hand.set_defaults(handler=run_score_hand)

    match = subparsers.add_parser(
        "score-match",
        help="score a match (a list of hands) from JSON",
        description="Score a match hand by hand: running totals, target, spareggio, napoleone.",
        epilog=MATCH_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_common(match)
    match.set_defaults(handler=run_score_match)


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", nargs="?", default="-", help="JSON input file; '-' or nothing reads standard input"
    )
    parser.add_argument(
        "--compact", action="store_true", help="print the JSON on one line instead of indented"
    )


def run_score_hand(args: argparse.Namespace) -> int:
    data = _read_object(args.file, ("rules", "sides", "placements"))
    rules = _rules(data)
    sides = _require(data, "sides")
    if args.provisional:
        placements = data.get("placements")
        result = score_provisional(sides, rules, placements=placements)
        output = result.to_dict()
    else:
        if "placements" in data:
            raise ScopaError("'placements' is only used with --provisional")
        output = score_hand(sides, rules).to_dict()
    output["rules"] = rules.to_dict()
    _print(output, args.compact)
    return 0


def run_score_match(args: argparse.Namespace) -> int:
    data = _read_object(args.file, ("rules", "hands"))
    rules = _rules(data)
    match = Match.from_hands(rules, _require(data, "hands"))
    _print(match.to_dict(), args.compact)
    return 0


def _read_object(path: str, fields: tuple[str, ...]) -> dict[str, Any]:
    """Read the JSON object of ``path`` (or standard input).

    Fields other than ``fields`` are ignored, so inputs may carry notes or expected results;
    inside a side, though, an unknown field is an error (a misspelt "scope" must not count 0).
    """
    source = "standard input" if path == "-" else path
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as exc:
        raise ScopaError(f"cannot read {source}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ScopaError(f"{source} is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScopaError(
            f"{source}: malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    if not isinstance(data, dict):
        raise ScopaError(f"{source}: expected a JSON object with {', '.join(map(repr, fields))}")
    return data


def _require(data: Mapping[str, Any], field: str) -> Any:
    if field not in data:
        raise ScopaError(f"missing field {field!r}")
    return data[field]


def _rules(data: Mapping[str, Any]) -> Rules:
    return Rules.from_spec(_require(data, "rules"))


def _print(output: Mapping[str, Any], compact: bool) -> None:
    text = json.dumps(output, ensure_ascii=False, indent=None if compact else 2)
    print(text)
