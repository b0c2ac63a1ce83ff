"""Accuracy benchmarks: single-card real photos, and generated pile photos with known cards."""

from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scoring import CARD_CODES

from .decode import ImageError, load_working_image
from .geometry import polygon_iou
from .pipeline import CardRecognizer
from .types import PhotoResult

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".heic", ".heif", ".webp"}


@dataclass
class SingleCardReport:
    """Per photo: the card it shows, what was read (None when no card was found)."""

    rows: list[tuple[str, str, str | None, float]] = field(
        default_factory=list
    )  # deck, truth, read, confidence
    seconds: list[float] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return sum(r[1] == r[2] for r in self.rows) / max(len(self.rows), 1)

    def per_deck(self) -> dict[str, tuple[int, int]]:
        out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for deck, truth, read, _ in self.rows:
            out[deck][0] += truth == read
            out[deck][1] += 1
        return {k: (v[0], v[1]) for k, v in sorted(out.items())}

    def confusions(self) -> list[tuple[str, str, str | None, float]]:
        return [r for r in self.rows if r[1] != r[2]]

    def to_dict(self) -> dict:
        return {
            "photos": len(self.rows),
            "correct": sum(r[1] == r[2] for r in self.rows),
            "accuracy": round(self.accuracy, 4),
            "per_deck": {d: {"correct": c, "photos": n} for d, (c, n) in self.per_deck().items()},
            "per_card": {
                code: {"correct": c, "photos": n} for code, (c, n) in self.per_card().items()
            },
            "confusions": [
                {"deck": d, "truth": t, "read": r, "confidence": round(c, 3)}
                for d, t, r, c in self.confusions()
            ],
            "median_seconds": round(float(np.median(self.seconds)), 3) if self.seconds else None,
        }

    def per_card(self) -> dict[str, tuple[int, int]]:
        out: dict[str, list[int]] = {code: [0, 0] for code in CARD_CODES}
        for _, truth, read, _ in self.rows:
            out[truth][0] += truth == read
            out[truth][1] += 1
        return {k: (v[0], v[1]) for k, v in out.items() if v[1]}


def single_card_photos(folder: Path) -> list[tuple[str, str, Path]]:
    """(deck, code, path) for a folder laid out like real/dev: <deck>/<code>.jpg or <code>.jpg."""
    items = []
    for path in sorted(Path(folder).rglob("*")):
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        code = path.stem.upper()
        if code in CARD_CODES:
            deck = path.parent.name if path.parent != Path(folder) else Path(folder).name
            items.append((deck, code, path))
    return items


def evaluate_single_cards(
    recognizer: CardRecognizer, folder: Path, progress: Callable[[Iterable], Iterable] = iter
) -> SingleCardReport:
    """Each photo shows one card: the most confident detection must be that card."""
    report = SingleCardReport()
    for deck, code, path in progress(single_card_photos(folder)):
        try:
            started = time.perf_counter()
            result = recognizer.recognize(path)
            report.seconds.append(time.perf_counter() - started)
        except ImageError:
            report.rows.append((deck, code, None, 0.0))
            continue
        best = max(result.cards, key=lambda c: c.box_confidence, default=None)
        report.rows.append(
            (deck, code, best.card if best else None, best.confidence if best else 0.0)
        )
    return report


def evaluate_identifier_on_corners(
    recognizer: CardRecognizer, folder: Path, progress: Callable[[Iterable], Iterable] = iter
) -> SingleCardReport | None:
    """The identifier alone, on the card corners given in a `quads.json` (no detector).

    The file sits in `folder` or, when `folder` is one deck of a set like real/dev, in its parent;
    its keys are photo paths relative to where it sits.
    """
    folder = Path(folder)
    quads_file = next(
        (f for f in (folder / "quads.json", folder.parent / "quads.json") if f.is_file()), None
    )
    if quads_file is None:
        return None
    quads = json.loads(quads_file.read_text())
    report = SingleCardReport()
    for deck, code, path in progress(single_card_photos(folder)):
        quad = quads.get(path.relative_to(quads_file.parent).as_posix())
        if quad is None:
            continue
        image, scale = load_working_image(path)
        probs = recognizer.identify(image, [np.float32(quad) / scale])[0]
        best = int(probs.argmax())
        report.rows.append((deck, code, CARD_CODES[best], float(probs[best])))
    return report


@dataclass
class SceneReport:
    """Generated piles: cards found and identified, per layout."""

    per_layout: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    confusions: Counter = field(default_factory=Counter)
    seconds: list[float] = field(default_factory=list)

    def add(
        self,
        layout: str,
        truth: list[tuple[str, np.ndarray, bool]],
        result: PhotoResult,
        min_iou: float = 0.5,
    ) -> None:
        """Match detections to true cards greedily by polygon IoU.

        `truth` is (code, quad, counted): a card mostly hidden under others is not counted as one
        the program must find, but finding it is not a false card either.
        """
        stats = self.per_layout[layout]
        stats["photos"] += 1
        stats["cards"] += sum(counted for _, _, counted in truth)
        pairs = sorted(
            (
                (polygon_iou(t_quad, d.quad), ti, di)
                for ti, (_, t_quad, _) in enumerate(truth)
                for di, d in enumerate(result.cards)
            ),
            reverse=True,
        )
        used_t, used_d = set(), set()
        for iou, ti, di in pairs:
            if iou < min_iou or ti in used_t or di in used_d:
                continue
            used_t.add(ti)
            used_d.add(di)
            if not truth[ti][2]:
                continue
            stats["found"] += 1
            truth_code, read = truth[ti][0], result.cards[di].card
            if read == truth_code:
                stats["identified"] += 1
            else:
                self.confusions[(truth_code, read)] += 1
        stats["false_cards"] += len(result.cards) - len(used_d)

    def to_dict(self) -> dict:
        out = {}
        for layout, s in sorted(self.per_layout.items()):
            out[layout] = {
                "photos": s["photos"],
                "cards": s["cards"],
                "found": round(s["found"] / max(s["cards"], 1), 4),
                "identified": round(s["identified"] / max(s["cards"], 1), 4),
                "false_cards_per_100_photos": round(
                    100 * s["false_cards"] / max(s["photos"], 1), 1
                ),
            }
        return {
            "layouts": out,
            "confusions": [
                {"truth": t, "read": r, "count": n} for (t, r), n in self.confusions.most_common(20)
            ],
            "median_seconds": round(float(np.median(self.seconds)), 3) if self.seconds else None,
        }


def evaluate_scenes(
    recognizer: CardRecognizer,
    scenes: Iterable,
    min_visible: float = 0.3,
    progress: Callable[[Iterable], Iterable] = iter,
    report: SceneReport | None = None,
) -> SceneReport:
    """Scenes from `scopa_datasets.build.iter_scenes`: every card that shows enough must be read."""
    report = report or SceneReport()
    for scene in progress(scenes):
        started = time.perf_counter()
        result = recognizer.recognize(scene.image)
        report.seconds.append(time.perf_counter() - started)
        truth = [(c.code, c.quad, c.visible >= min_visible) for c in scene.cards]
        report.add(scene.layout, truth, result)
    return report
