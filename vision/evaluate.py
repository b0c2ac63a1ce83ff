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
from .geometry import card_angle, polygon_iou
from .pipeline import CardRecognizer, soften
from .types import DetectedCard, PhotoResult

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
        probs = recognizer.identify(image, [np.array(quad, np.float32) / scale])[0]
        best = int(probs.argmax())
        report.rows.append((deck, code, CARD_CODES[best], float(probs[best])))
    return report


# How much of a card shows, in the bins the bars are set for (the lower bound of each).
SHARE_BINS = ((2 / 3, "at least 2/3"), (0.45, "45-67%"), (0.30, "30-45%"), (0.0, "under 30%"))
SHARE_NAMES = [name for _, name in SHARE_BINS]
LIES = ("upright", "sideways", "diagonal")
# A card on a pile photo must be found when at least this share of it shows (see datasets/).
MIN_VISIBLE = 0.25
# Confidence from which a reading counts as sure, for the calibration figure.
SURE = 0.99
# The confidence bins of the reliability table (the lower bound of each), surest first.
CONFIDENCE_BINS = (SURE, 0.9, 0.7, 0.5, 0.0)


def share_bin(visible: float) -> str:
    return next(name for low, name in SHARE_BINS if visible >= low)


def card_lie(quad: np.ndarray, tolerance: float = 20.0) -> str:
    """How a card lies in the photo: `upright` (long side within `tolerance` degrees of the
    vertical, either end up), `sideways` (of the horizontal) or `diagonal`."""
    angle = abs(card_angle(quad)) % 180
    angle = min(angle, 180 - angle)  # 0 horizontal, 90 vertical
    if angle >= 90 - tolerance:
        return "upright"
    return "sideways" if angle <= tolerance else "diagonal"


@dataclass
class CardOutcome:
    """One true card of a pile photo: how it lay and showed, and what became of it."""

    layout: str
    share: str
    lie: str
    found: bool
    identified: bool
    # Read right by the identifier alone from the card's true outline (None: not measured).
    # Against `identified`, it tells a card lost to its box from one lost to its reading.
    identified_from_outline: bool | None = None


# The two kinds of false card, as the report names them.
SECOND_BOX = "second box on a card"
NO_CARD_THERE = "no card there"


@dataclass(frozen=True)
class FalseCard:
    """A box read as a card that no true card is left for: the report lists each one, so that
    a false card can be found again and looked at without a script of one's own."""

    layout: str
    photo: str
    read: str
    confidence: float
    box_confidence: float
    # The true card whose outline the box fits best, and how well (outline IoU). At or above
    # the matching bar it is a second box on a card that another box already stands for;
    # below it, a box where no card is (across two cards, on the cloth).
    nearest: str | None
    nearest_iou: float
    second_box: bool

    def to_dict(self) -> dict:
        return {
            "photo": self.photo,
            "read": self.read,
            "confidence": round(self.confidence, 3),
            "box_confidence": round(self.box_confidence, 3),
            "nearest_card": self.nearest,
            "nearest_iou": round(self.nearest_iou, 3),
            "kind": SECOND_BOX if self.second_box else NO_CARD_THERE,
        }


@dataclass
class SceneReport:
    """Generated or bench piles: cards found and identified by layout, by the share of each card
    that shows and by how it lies; false cards per photo; and how sure readings turn out."""

    outcomes: list[CardOutcome] = field(default_factory=list)
    photos: Counter = field(default_factory=Counter)  # per layout
    false_cards: list[FalseCard] = field(default_factory=list)
    confusions: Counter = field(default_factory=Counter)
    sure_reads: int = 0  # detections read at confidence >= SURE ...
    sure_wrong: int = 0  # ... of which the card is wrong, or there is no card
    # Card boxes outlining a true card: their 40 probabilities and the true card's index, for
    # the reliability table and the temperature that fits them (`calibration`).
    matched_probs: list[np.ndarray] = field(default_factory=list)
    matched_truth: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def add(
        self,
        layout: str,
        truth: list[tuple[str, np.ndarray, float]],
        result: PhotoResult,
        *,
        min_iou: float = 0.5,
        read_from_outlines: list[str | None] | None = None,
        photo: str | None = None,
    ) -> None:
        """Match detections to true cards greedily by polygon IoU, those reading the card first.

        `truth` is (code, quad, visible share): a card showing under MIN_VISIBLE is not one the
        program must find, but finding it is not a false card either. Matching by outline
        alone would pair a box with the wrong card where outlines nearly coincide (neighbours
        of a hand fan overlap by IoU 0.9), so, as COCO matches within a class, a box outlining
        a card and reading it is that card's; the boxes left are then matched by outline
        alone, to tell misread cards from false ones.

        `read_from_outlines`, when given, holds what the identifier alone read from each true
        card's outline (None for a card not read so), in the order of `truth`. `photo` names
        the photo in the list of false cards (default: the layout and the photo's number in it).
        """
        self.photos[layout] += 1
        photo = photo or f"{layout} photo {self.photos[layout]}"
        pairs = sorted(
            (
                (polygon_iou(t_quad, d.quad), ti, di)
                for ti, (_, t_quad, _) in enumerate(truth)
                for di, d in enumerate(result.cards)
            ),
            reverse=True,
        )
        match: dict[int, int] = {}
        used_d: set[int] = set()
        for same_reading in (True, False):
            for iou, ti, di in pairs:
                if iou < min_iou or ti in match or di in used_d:
                    continue
                if same_reading and result.cards[di].card != truth[ti][0]:
                    continue
                match[ti] = di
                used_d.add(di)
        for ti, (code, quad, visible) in enumerate(truth):
            read = result.cards[match[ti]].card if ti in match else None
            from_outline = read_from_outlines[ti] if read_from_outlines is not None else None
            if visible >= MIN_VISIBLE:
                self.outcomes.append(
                    CardOutcome(
                        layout,
                        share_bin(visible),
                        card_lie(quad),
                        read is not None,
                        read == code,
                        None if from_outline is None else from_outline == code,
                    )
                )
                if read is not None and read != code:
                    self.confusions[(code, read)] += 1
        for di, card in enumerate(result.cards):
            if di not in used_d:
                iou, nearest = max(
                    ((iou, truth[ti][0]) for iou, ti, d in pairs if d == di), default=(0.0, None)
                )
                self.false_cards.append(
                    FalseCard(
                        layout,
                        photo,
                        card.card,
                        card.confidence,
                        card.box_confidence,
                        nearest,
                        iou,
                        iou >= min_iou,
                    )
                )
        true_card_of_box = {di: truth[ti][0] for ti, di in match.items()}
        for di, code in true_card_of_box.items():
            self.matched_probs.append(np.asarray(result.cards[di].probs, np.float32))
            self.matched_truth.append(CARD_CODES.index(code))
        for di, card in enumerate(result.cards):
            if card.confidence >= SURE:
                self.sure_reads += 1
                self.sure_wrong += true_card_of_box.get(di) != card.card

    def calibration(self) -> dict:
        """The card boxes outlining a true card: how often each confidence is right, their log
        loss, and the temperature that would fit them (None without such boxes)."""
        if not self.matched_truth:
            return {"by_confidence": [], "log_loss": None, "fitted_temperature": None}
        probs, truth = np.stack(self.matched_probs), np.asarray(self.matched_truth)
        return {
            "by_confidence": reliability(probs, truth),
            "log_loss": round(mean_log_loss(probs, truth), 5),
            "fitted_temperature": round(fitted_temperature(probs, truth), 3),
        }

    def _false_in(self, layout: str) -> int:
        return sum(false.layout == layout for false in self.false_cards)

    @staticmethod
    def _rates(outcomes: list[CardOutcome]) -> dict:
        n = len(outcomes)
        identified = sum(o.identified for o in outcomes)
        rates = {
            "cards": n,
            "found": round(sum(o.found for o in outcomes) / max(n, 1), 4),
            "identified": round(identified / max(n, 1), 4),
            "identified_95_interval": identified_interval(identified, n),
        }
        from_outline = [o.identified_from_outline for o in outcomes]
        if from_outline and all(read is not None for read in from_outline):
            rates["identified_from_outline"] = round(sum(bool(r) for r in from_outline) / n, 4)
        return rates

    def _by(self, key) -> dict:
        groups: dict[str, list[CardOutcome]] = defaultdict(list)
        for o in self.outcomes:
            groups[key(o)].append(o)
        return groups

    def to_dict(self) -> dict:
        by_layout = self._by(lambda o: o.layout)
        layouts = {}
        for layout in sorted(self.photos):
            layouts[layout] = {
                "photos": self.photos[layout],
                **self._rates(by_layout.get(layout, [])),
                "false_cards_per_100_photos": round(
                    100 * self._false_in(layout) / max(self.photos[layout], 1), 1
                ),
            }
        by_share = self._by(lambda o: o.share)
        by_lie = self._by(lambda o: o.lie)
        return {
            "layouts": layouts,
            "shares": {
                name: self._rates(by_share[name]) for _, name in SHARE_BINS if name in by_share
            },
            "lies": {lie: self._rates(by_lie[lie]) for lie in LIES if lie in by_lie},
            "shares_by_lie": {
                f"{lie}, {name}": self._rates(group)
                for (lie, name), group in sorted(
                    self._by(lambda o: (o.lie, o.share)).items(),
                    key=lambda item: (LIES.index(item[0][0]), SHARE_NAMES.index(item[0][1])),
                )
            },
            "all": {
                **self._rates(self.outcomes),
                "photos": sum(self.photos.values()),
                "false_cards_per_100_photos": round(
                    100 * len(self.false_cards) / max(sum(self.photos.values()), 1), 1
                ),
            },
            "calibration": {
                "read_at_0.99_or_more": self.sure_reads,
                "of_which_wrong": self.sure_wrong,
                **self.calibration(),
            },
            "confusions": [
                {"truth": t, "read": r, "count": n} for (t, r), n in self.confusions.most_common(20)
            ],
            "false_cards": [false.to_dict() for false in self.false_cards],
            "median_seconds": round(float(np.median(self.seconds)), 3) if self.seconds else None,
        }


def reliability(probs: np.ndarray, truth: np.ndarray) -> list[dict]:
    """Readings by their confidence (CONFIDENCE_BINS): how many, and how many right. A reading
    calibrated as it says is right about as often as its confidence."""
    confidence, right = probs.max(1), probs.argmax(1) == truth
    rows, high = [], np.inf
    for low in CONFIDENCE_BINS:
        in_bin = (confidence >= low) & (confidence < high)
        rows.append(
            {
                "from": low,
                "reads": int(in_bin.sum()),
                "right": int(right[in_bin].sum()),
                "mean_confidence": round(float(confidence[in_bin].mean()), 4)
                if in_bin.any()
                else None,
            }
        )
        high = low
    return rows


def mean_log_loss(probs: np.ndarray, truth: np.ndarray) -> float:
    """The readings' mean negative log-probability of the true card."""
    return float(-np.log(np.maximum(probs[np.arange(len(truth)), truth], 1e-12)).mean())


def fitted_temperature(probs: np.ndarray, truth: np.ndarray) -> float:
    """The temperature that, softening these readings (`vision.pipeline.soften`), gives the
    true cards the least mean log loss: temperature scaling (Guo et al., 2017). Under 1 the
    readings are less sure than they are right; the recogniser's setting that would fit them
    is its `identifier_temperature` times this. A fit of the log loss, not a recommendation:
    sharper readings also push more readings over the reconciliation's conflict bar, and two
    ways of sharpening made fewer hands determinate (models/README.md)."""
    from scipy.optimize import minimize_scalar

    fit = minimize_scalar(
        lambda t: mean_log_loss(soften(probs, t), truth), bounds=(0.1, 10.0), method="bounded"
    )
    return float(fit.x)


def identified_interval(identified: int, cards: int) -> list[float] | None:
    """The 95% Wilson interval of the share read: a set's few hundred cards of one share give
    a figure that moves by several points from one seed to another, and a bar is judged on it."""
    if cards == 0:
        return None
    from scipy.stats import binomtest

    interval = binomtest(identified, cards).proportion_ci(confidence_level=0.95, method="wilson")
    return [round(float(interval.low), 4), round(float(interval.high), 4)]


def evaluate_scenes(
    recognizer: CardRecognizer,
    scenes: Iterable,
    progress: Callable[[Iterable], Iterable] = iter,
    report: SceneReport | None = None,
) -> SceneReport:
    """Scenes from `scopa_datasets.build.iter_scenes`: every card that shows enough must be read.

    Each card that must be read is also read by the identifier alone from its true outline
    (untimed), so that the report can tell the cards lost to their boxes from those lost to
    their reading."""
    report = report or SceneReport()
    for scene in progress(scenes):
        started = time.perf_counter()
        result = recognizer.recognize(scene.image)
        report.seconds.append(time.perf_counter() - started)
        truth = scene_truth(scene)
        report.add(
            scene.layout,
            truth,
            result,
            read_from_outlines=true_outline_reads(
                true_outline_photo(recognizer, scene.image, truth), truth
            ),
        )
    return report


def true_outline_photo(
    recognizer: CardRecognizer, image: np.ndarray, truth: list[tuple[str, np.ndarray, float]]
) -> PhotoResult:
    """The photo as a detector that found exactly the cards it must find would hand it to the
    identifier: every card of `truth` that shows at least MIN_VISIBLE of itself, at its true
    outline and with box confidence 1, read by the identifier alone; no other box. Its cards
    keep the order of `truth`, so that `true_outline_reads` can pair them back.

    Reconciled like the recogniser's own result, it tells the hands the boxes lose from those
    the readings and the layout lose."""
    height, width = image.shape[:2]
    photo = PhotoResult(None, width, height)
    quads = [np.asarray(quad, np.float32) for _, quad, visible in truth if visible >= MIN_VISIBLE]
    if quads:
        for quad, probs in zip(quads, recognizer.identify(image, quads), strict=True):
            best = int(probs.argmax())
            photo.cards.append(DetectedCard(CARD_CODES[best], float(probs[best]), probs, quad))
    return photo


def true_outline_reads(
    photo: PhotoResult, truth: list[tuple[str, np.ndarray, float]]
) -> list[str | None]:
    """What `true_outline_photo` read for each card of `truth` (None for a card showing under
    MIN_VISIBLE, which it does not read)."""
    cards = iter(photo.cards)
    return [next(cards).card if visible >= MIN_VISIBLE else None for _, _, visible in truth]


def scene_truth(scene) -> list[tuple[str, np.ndarray, float]]:
    """A generated scene's cards as `SceneReport.add` takes them."""
    return [(c.code, c.quad, c.visible) for c in scene.cards]
