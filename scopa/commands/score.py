"""`scopa score-hand` and `scopa score-match`: the rules engine on JSON in, JSON out."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from scoring import Match, Rules, ScopaError, score_hand, score_provisional

# A hand or match is a few KiB; a match of a thousand hands stays far below this.
MAX_INPUT_BYTES = 4 * 1024 * 1024
MAX_JSON_DEPTH = 20

#: Runnable examples shown by --help (the tests run them).
HAND_EXAMPLE_INPUT = """\
{"rules": "classica",
 "sides": {
  "Noi":  {"scope": 1, "cards": ["1D", "2D", "3D", "4D", "5D", "1C", "2C", "3C", "4C", "5C",
                                 "1S", "2S", "3S", "4S", "5S", "1B", "2B", "3B", "4B", "5B"]},
  "Loro": {"scope": 0, "cards": ["6D", "7D", "8D", "9D", "10D", "6C", "7C", "8C", "9C", "10C",
                                 "6S", "7S", "8S", "9S", "10S", "6B", "7B", "8B", "9B", "10B"]}}}"""

MATCH_EXAMPLE_INPUT = """\
{"rules": {"preset": "torneo-assi", "target": 21},
 "hands": [
  {"Noi":  {"scope": 1, "cards": ["1D", "2D", "3D", "4D", "5D", "1C", "2C", "3C", "4C", "5C",
                                  "1S", "2S", "3S", "4S", "5S", "1B", "2B", "3B", "4B", "5B"]},
   "Loro": {"scope": 0, "cards": ["6D", "7D", "8D", "9D", "10D", "6C", "7C", "8C", "9C", "10C",
                                  "6S", "7S", "8S", "9S", "10S", "6B", "7B", "8B", "9B", "10B"]}},
  {"Noi":  {"scope": 2, "cards": ["6D", "7D", "8D", "9D", "10D", "6C", "7C", "8C", "9C", "10C",
                                  "6S", "7S", "8S", "9S", "10S", "6B", "7B", "8B", "9B", "10B"]},
   "Loro": {"scope": 0, "cards": ["1D", "2D", "3D", "4D", "5D", "1C", "2C", "3C", "4C", "5C",
                                  "1S", "2S", "3S", "4S", "5S", "1B", "2B", "3B", "4B", "5B"]}}]}"""

HAND_EPILOG = f"""\
example input (a file, or standard input):

{HAND_EXAMPLE_INPUT}

"rules" is a preset name (torneo-assi, assi, classica) or an object with a preset and the
options to change, e.g. {{"preset": "assi", "target": 16, "napola": true, "napoleone": false,
"re_bello": false, "primiera_missing_suit": "lose", "ace_sweep_is_scopa": false}}.
Cards are codes, rank then suit: 1D (asso di denari), 7D (settebello), 10B (re di bastoni);
"scope" is the number of scope the side made (0 if left out). Sides are 2 to 4, freely named.

output: each side's points per category, total and breakdown (cards_count, denari_count,
primiera and its four cards, napola_run, cards), and who made the napoleone:
  {{"sides": {{"Noi": {{"points": {{"scope": 1, "carte": 0, "denari": 0, "primiera": 0,
    "settebello": 0, "napola": 0, "re_bello": 0}}, "total": 1, ...}}, "Loro": {{...}}}},
   "napoleone": null, ...}}

All 40 cards must be among the sides. With --provisional an incomplete hand is scored as far
as it goes, and the output lists the missing cards and, per category, whether they can still
change it ("at_stake") and which of them decide it; an optional top-level
"placements": {{"7D": ["Noi", "Loro"]}} says which sides a missing card may belong to.
"""

MATCH_EPILOG = f"""\
example input (a file, or standard input):

{MATCH_EXAMPLE_INPUT}

Each hand is shaped like "sides" of score-hand, with the same side names in every hand.

output: {{"totals": {{"Noi": 10, "Loro": 7}}, "status": "in-progress", "winner": null,
         "spareggio": [], "hands": [...each hand's result, as score-hand prints it...], ...}}
status is "in-progress", "won" or "spareggio": when the highest totals at or past the target
are tied, the tied sides play on until one of them leads ("spareggio" lists them).
A hand after the match is decided is an error.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the score-hand and score-match sub-commands."""
    hand = subparsers.add_parser(
        "score-hand",
        help="score one hand from JSON",
        description="Score one hand of Scopa between 2 to 4 sides; JSON in, JSON out.",
        epilog=HAND_EPILOG,
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
        epilog=MATCH_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_common(match)
    match.set_defaults(handler=run_score_match)


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        nargs="?",
        default="-",
        metavar="FILE",
        help="JSON input file; '-' or nothing reads standard input",
    )
    parser.add_argument(
        "--compact", action="store_true", help="print the JSON on one line instead of indented"
    )


def run_score_hand(args: argparse.Namespace) -> int:
    data = _read_object(args.file, ("rules", "sides", "placements"))
    rules = _rules(data)
    sides = _trimmed_sides(_require(data, "sides"), "sides")
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
    hands = _require(data, "hands")
    if isinstance(hands, list):
        hands = [_trimmed_sides(h, f"hand {n}") for n, h in enumerate(hands, start=1)]
    match = Match.from_hands(rules, hands)
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
            binary = getattr(sys.stdin, "buffer", None)  # absent when a test swaps in text
            raw = (
                binary.read(MAX_INPUT_BYTES + 1)
                if binary is not None
                else sys.stdin.read(MAX_INPUT_BYTES + 1).encode("utf-8", "surrogatepass")
            )
        else:
            with open(path, "rb") as handle:
                raw = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise ScopaError(f"cannot read {source}: {exc.strerror or exc}") from None
    if len(raw) > MAX_INPUT_BYTES:
        raise ScopaError(f"{source}: input too large (more than {MAX_INPUT_BYTES // 1024} KiB)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScopaError(f"{source} is not UTF-8 text") from None
    data = parse_json(text, source)
    if not isinstance(data, dict):
        raise ScopaError(f"{source}: expected a JSON object with {', '.join(map(repr, fields))}")
    return data


def parse_json(text: str, source: str) -> Any:
    """JSON from an untrusted input: nesting, big numbers and lone surrogates refused by name."""
    depth = _nesting_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise ScopaError(
            f"{source}: JSON nested too deeply ({depth} levels, at most {MAX_JSON_DEPTH})"
        )
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise ScopaError(
            f"{source}: malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except ValueError as exc:  # an integer of more digits than Python converts (4,300)
        raise ScopaError(f"{source}: a number in the JSON is too long ({exc})") from None
    _check_strings(data, source)
    return data


def _nesting_depth(text: str) -> int:
    """The deepest bracket nesting of `text`, brackets inside strings left out."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _check_strings(value: Any, source: str) -> None:
    """Refuse lone surrogates (`"\\ud800"`): no output could print them as UTF-8."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ScopaError(f"{source}: a string holds an unpaired surrogate {value!r}") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_strings(key, source)
            _check_strings(item, source)
    elif isinstance(value, list):
        for item in value:
            _check_strings(item, source)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key given twice (a side listed twice must not vanish)."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ScopaError(f"{key!r} is given twice in the same JSON object")
        result[key] = value
    return result


def _trimmed_sides(sides: Any, where: str) -> Any:
    """Side names without surrounding spaces: 'Noi' and 'Noi ' are one side, given twice."""
    if not isinstance(sides, dict):
        return sides  # the rules engine names the problem
    trimmed: dict[str, Any] = {}
    for name, spec in sides.items():
        key = name.strip()
        if not key:
            raise ScopaError(f"{where}: a side has an empty name")
        if key in trimmed:
            raise ScopaError(
                f"{where}: side {key!r} is given twice (spaces around names do not count)"
            )
        trimmed[key] = spec
    return trimmed


def _require(data: Mapping[str, Any], field: str) -> Any:
    if field not in data:
        raise ScopaError(f"missing field {field!r}")
    return data[field]


def _rules(data: Mapping[str, Any]) -> Rules:
    return Rules.from_spec(_require(data, "rules"))


def _print(output: Mapping[str, Any], compact: bool) -> None:
    text = json.dumps(output, ensure_ascii=False, indent=None if compact else 2)
    print(text)
