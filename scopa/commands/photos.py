"""`scopa score-photos`: photos of each side's pile in, a verified hand score out."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scoring import Rules, ScopaError, parse_card

from .checks import DECK_STYLES, output_folder
from .score import parse_json

if TYPE_CHECKING:
    from vision import PhotoResult
    from vision.reconcile import Correction, Reconciliation

EXAMPLE = """\
examples:
  scopa score-photos --rules classica --side A=a1.jpg,a2.jpg --side B=b.jpg --scope A=1
  scopa score-photos --rules torneo-assi --side Noi=noi.heic --complement Loro=22 --json
  scopa score-photos --rules '{"preset": "assi", "target": 16}' --side A=a.jpg --side B=b.jpg \\
      --move 5C=A:B --annotate out/

--side NAME=PHOTO[,PHOTO...]  a side and the photos of its pile (2 to 4 sides in all); photos of
    one side may overlap: a card seen twice is counted once.
--complement NAME=COUNT       a side that was not photographed: it holds every card the photos do
    not show, and the players counted COUNT cards in its pile (a mismatch is reported).
Corrections (applied in the order given): --add NAME=CARD, --remove NAME=CARD,
    --confirm NAME=CARD (a doubtful card is right), --move CARD=FROM:TO.

The score is "determinate" only when nothing the photos leave open (missing cards, doubtful
readings) can change any side's points; otherwise the output says what is at stake and which
photo to take again.

JSON output: {"sides": {"A": {"cards": ["1D", ...], "points": {...}, "total": 9, ...}, ...},
  "reconciliation": {"complete": true, "missing": [], "conflicts": [], "uncertain": [],
  "extra": [], ...}, "determinate": true, "at_stake": {...}, "advice": [...], "napoleone": null}
"""

_LABEL_WIDTH = 12
_STATE_COLORS = {  # BGR
    "ok": (60, 170, 40),
    "uncertain": (0, 150, 255),
    "conflict": (40, 40, 220),
    "extra": (150, 150, 150),
    "unused": (150, 150, 150),  # not drawn
}
_STATE_MARKS = {"ok": "", "uncertain": "?", "conflict": "!", "extra": ""}


class _AppendCorrection(argparse.Action):
    """Collect --add/--remove/--confirm/--move into one list, keeping their order."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        corrections = list(getattr(namespace, self.dest) or [])
        corrections.append((option_string.lstrip("-"), values))
        setattr(namespace, self.dest, corrections)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the score-photos sub-command."""
    parser = subparsers.add_parser(
        "score-photos",
        help="score a hand from photos of each side's captured pile",
        description="Recognise every card in the photos of each side's pile, check that the 40 cards "
        "are all there once, and score the hand.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--rules",
        required=True,
        metavar="PRESET",
        help="torneo-assi, assi or classica, or a JSON object such as "
        '\'{"preset": "assi", "target": 16}\'',
    )
    parser.add_argument(
        "--side",
        action="append",
        default=[],
        metavar="NAME=PHOTO[,PHOTO]",
        help="a side and its photos (repeat for each side)",
    )
    parser.add_argument(
        "--scope",
        action="append",
        default=[],
        metavar="NAME=N",
        help="scope a side made (default 0)",
    )
    parser.add_argument(
        "--complement",
        metavar="NAME=COUNT",
        help="a side not photographed: it holds the rest of the deck, COUNT cards by the players' count",
    )
    for flag, meta, text in (
        ("add", "NAME=CARD", "correction: the card is in that side's pile"),
        ("remove", "NAME=CARD", "correction: the card is not in that side's pile"),
        ("confirm", "NAME=CARD", "correction: a doubtful card read in that side is right"),
        ("move", "CARD=FROM:TO", "correction: the card is in side TO, not FROM"),
    ):
        parser.add_argument(
            f"--{flag}",
            dest="corrections",
            action=_AppendCorrection,
            default=[],
            metavar=meta,
            help=text,
        )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a summary")
    parser.add_argument("--compact", action="store_true", help="with --json, print it on one line")
    parser.add_argument(
        "--annotate",
        type=Path,
        metavar="DIR",
        help="write each photo with its cards outlined and labelled to DIR",
    )
    parser.add_argument(
        "--deck",
        default="napoletane",
        choices=DECK_STYLES,
        help="deck style: napoletane (default) or francesi",
    )
    parser.set_defaults(handler=run_score_photos)


def run_score_photos(args: argparse.Namespace) -> int:
    rules = _parse_rules(args.rules)
    photos = _parse_sides(args.side)
    complement = _parse_complement(args.complement, photos)
    names = [*photos, *([complement[0]] if complement else [])]
    if not 2 <= len(names) <= 4:
        raise ScopaError(
            f"a hand has 2 to 4 sides, got {len(names)}: give each with --side (or --complement)"
        )
    scope = _parse_scope(args.scope, names)
    corrections = [_parse_correction(action, value) for action, value in args.corrections]
    if args.annotate:
        output_folder(args.annotate, "--annotate")

    import vision
    from vision.reconcile import reconcile

    results = _recognize(photos, args.deck)
    recon = reconcile(
        {**results, **({complement[0]: []} if complement else {})},
        rules,
        scope=scope,
        complement=complement,
        corrections=corrections,
    )
    if args.annotate:
        _annotate(vision, recon, results, args.annotate)
    if args.json:
        print(json.dumps(recon.to_dict(), ensure_ascii=False, indent=None if args.compact else 2))
    else:
        print(summary(recon))
    return 0


# -- arguments ---------------------------------------------------------------------------------


def _parse_rules(text: str) -> Rules:
    if text.lstrip().startswith("{"):
        return Rules.from_spec(parse_json(text, "--rules"))
    return Rules.from_spec(text)


def _split_pair(value: str, flag: str, shape: str) -> tuple[str, str]:
    name, sep, rest = value.partition("=")
    if not sep or not name.strip() or not rest.strip():
        raise ScopaError(f"{flag}: expected {shape}, got {value!r}")
    return name.strip(), rest.strip()


def _parse_sides(values: Sequence[str]) -> dict[str, list[Path]]:
    photos: dict[str, list[Path]] = {}
    owners: dict[Path, str] = {}
    for value in values:
        name, paths = _split_pair(value, "--side", "NAME=PHOTO[,PHOTO...]")
        if name in photos:
            raise ScopaError(
                f"--side: side {name!r} is given twice (list all its photos in one --side, comma-separated)"
            )
        photos[name] = [Path(p.strip()) for p in paths.split(",") if p.strip()]
        if not photos[name]:
            raise ScopaError(f"--side: side {name!r} names no photo, got {value!r}")
        for path in photos[name]:
            if not path.is_file():
                raise ScopaError(f"side {name!r}: photo not found: {path}")
            owner = owners.setdefault(path.resolve(), name)
            if owner != name:
                raise ScopaError(f"photo {path} is given for side {owner!r} and for side {name!r}")
    return photos


def _parse_complement(
    value: str | None, photos: Mapping[str, list[Path]]
) -> tuple[str, int] | None:
    if value is None:
        return None
    name, count = _split_pair(value, "--complement", "NAME=COUNT")
    if name in photos:
        raise ScopaError(
            f"--complement: side {name!r} also has photos (--side); the complement side is the one not photographed"
        )
    if not _is_count(count) or int(count) > 40:
        raise ScopaError(
            f"--complement: side {name!r}: the card count must be a number from 0 to 40, got {count!r}"
        )
    return name, int(count)


def _is_count(text: str) -> bool:
    """One or two ASCII digits: `isdigit()` also takes '²', which `int()` refuses."""
    return re.fullmatch(r"[0-9]{1,2}", text) is not None


def _parse_scope(values: Sequence[str], names: Sequence[str]) -> dict[str, int]:
    scope: dict[str, int] = {}
    for value in values:
        name, count = _split_pair(value, "--scope", "NAME=N")
        if name not in names:
            raise ScopaError(f"--scope: unknown side {name!r} (sides: {', '.join(names)})")
        if name in scope:
            raise ScopaError(f"--scope: side {name!r} is given twice")
        if not _is_count(count):
            raise ScopaError(
                f"--scope: side {name!r}: expected a number of scope from 0 to 99, got {count!r}"
            )
        scope[name] = int(count)
    return scope


def _parse_correction(action: str, value: str) -> Correction:
    from vision.reconcile import Correction

    if action == "move":
        code, route = _split_pair(value, "--move", "CARD=FROM:TO")
        source, sep, target = route.partition(":")
        if not sep or not source.strip() or not target.strip():
            raise ScopaError(f"--move: expected CARD=FROM:TO, got {value!r}")
        return Correction("move", parse_card(code), source.strip(), target.strip())
    name, code = _split_pair(value, f"--{action}", "NAME=CARD")
    return Correction(action, parse_card(code), name)


# -- recognition and drawing -------------------------------------------------------------------


def _recognize(photos: Mapping[str, list[Path]], deck: str) -> dict[str, list[PhotoResult]]:
    from tqdm import tqdm

    import vision

    try:
        recognizer = vision.get_recognizer(deck=deck)
    except vision.ModelsMissingError as exc:
        raise ScopaError(f"{exc}: this checkout lacks the trained models") from None
    jobs = [(name, path) for name, paths in photos.items() for path in paths]
    results: dict[str, list[PhotoResult]] = {name: [] for name in photos}
    for name, path in tqdm(
        jobs, desc="recognising photos", unit="photo", file=sys.stderr, disable=None
    ):
        results[name].append(recognizer.recognize(path, path=str(path)))
    return results


def _annotate(
    vision: Any, recon: Reconciliation, results: Mapping[str, list[PhotoResult]], folder: Path
) -> None:
    import cv2

    folder.mkdir(parents=True, exist_ok=True)
    for name, side_results in results.items():
        for index, result in enumerate(side_results):
            image = vision.load_image(result.path, max_long_side=2048)
            cards = recon.assignments[name][index]
            states = recon.states[name][index]
            labels = [
                None if state == "unused" else (card.code if card else "?") + _STATE_MARKS[state]
                for card, state in zip(cards, states, strict=True)
            ]
            colors = [_STATE_COLORS[state] for state in states]
            drawn = vision.annotate(image, result, labels=labels, colors=colors)
            target = (
                folder / f"{_safe(name)}-{index + 1}-{_safe(Path(result.path or 'photo').stem)}.jpg"
            )
            if not cv2.imwrite(str(target), drawn):
                raise ScopaError(f"--annotate: cannot write {target}")


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "side"


# -- the readable summary ----------------------------------------------------------------------


def summary(recon: Reconciliation) -> str:
    """The hand as a player reads it: each side's points with the breakdown, then what is open."""
    rules = recon.rules
    hand = recon.hand
    lines = [f"Rules: {rules.preset} (target {rules.target})"]
    if not recon.complete:
        lines.append(
            f"PROVISIONAL: {len(recon.missing)} card(s) not placed; points below count only the cards found."
        )
    for name, side in hand.sides.items():
        points = side.points
        lines.append("")
        lines.append(f"Side {name}: {side.total} point{'s' if side.total != 1 else ''}")
        lines.append(_row("scope", str(side.scope), points["scope"]))
        lines.append(_row("carte", f"{side.cards_count} cards", points["carte"]))
        lines.append(_row("denari", str(side.denari_count), points["denari"]))
        four = " ".join(card.code for card in side.primiera_cards.values())
        primiera = f"{side.primiera_sum} ({four})" if four else "no cards"
        if side.primiera is None and four:
            primiera += ", lacks a suit"
        lines.append(_row("primiera", primiera, points["primiera"]))
        lines.append(
            _row("settebello", "7D" if points["settebello"] else "-", points["settebello"])
        )
        if rules.napola:
            run = f"1D-{side.napola_run}D ({side.napola_run} cards)" if side.napola_run else "-"
            lines.append(_row("napola", run, points["napola"]))
        if rules.re_bello:
            lines.append(_row("re bello", "10D" if points["re_bello"] else "-", points["re_bello"]))
        lines.append(f"  cards: {' '.join(card.code for card in side.cards) or '-'}")
    if recon.napoleone:
        lines.append(
            f"\nNapoleone: side {recon.napoleone} holds all ten denari and wins the match."
        )
    lines.append("")
    lines.append(_report_line(recon))
    if recon.determinate:
        lines.append("Score: determinate (nothing the photos leave open can change it).")
    else:
        at_stake = [category for category, open_ in recon.at_stake.items() if open_]
        lines.append(
            "Score: NOT determinate"
            + (f"; could still change: {', '.join(at_stake)}." if at_stake else ".")
        )
    lines.extend(f"  - {text}" for text in recon.advice_text("en"))
    return "\n".join(lines)


def _row(label: str, value: str, points: int) -> str:
    return f"  {label:<{_LABEL_WIDTH}}{value:<28}{f'+{points}' if points else ''}".rstrip()


def _report_line(recon: Reconciliation) -> str:
    parts = []
    if recon.missing:
        parts.append(f"missing {' '.join(card.code for card in recon.missing)}")
    if recon.conflicts:
        parts.append(
            "conflicts "
            + ", ".join(f"{c.card.code} ({'/'.join(c.sides)})" for c in recon.conflicts)
        )
    if recon.uncertain:
        parts.append(
            "uncertain "
            + ", ".join(
                f"{u.card.code} in {u.side}"
                + (f" (or {u.alternative.code})" if u.alternative else " (or no card)")
                for u in recon.uncertain
            )
        )
    if recon.extra:
        parts.append(f"{len(recon.extra)} extra detection(s)")
    if recon.complement is not None:
        check = recon.complement
        status = "matches" if check.matches else f"does NOT match: {check.found} cards left for it"
        parts.append(f"side {check.side} counted {check.expected} cards, {status}")
    if not parts:
        return "Reconciliation: all 40 cards found once; no conflicts, doubts or extra detections."
    return "Reconciliation: " + "; ".join(parts) + "."
