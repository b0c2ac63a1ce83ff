"""Photo in, cards out: oriented card detector, then a 40-way identifier on straightened crops.

The detector runs on a downscaled copy of the photo; each card is then cut from the decoded photo
at full working resolution (at the detector's scale a card is too small to count its pips).
The identifier sees every crop twice, upright and turned half a turn, because an oriented box
does not know which end of the card is the top; the two probability vectors are averaged. Its
41st class, `none`, says a crop holds no card (a box drawn on the cloth, a card back, a pip):
such boxes are not counted as cards unless the detector is sure of them (a card of a deck the
identifier has never seen must not be turned down for looking unfamiliar). They are kept
apart as doubtful boxes, with those the detector scores just under its bar, for the
reconciliation to fall back on (see `PhotoResult.doubtful`).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np

from scoring import CARD_CODES

from . import yolo_env
from .decode import Source, load_working_image
from .geometry import (
    card_angle,
    intersection_area,
    polygon_area,
    polygon_iou,
    portrait_corners,
    turn_photo,
    warp_crop,
)
from .types import NOT_A_CARD, DetectedCard, PhotoResult

MODELS_DIR = yolo_env.PROJECT_ROOT / "models"
DETECTOR_FILE = "detector.pt"
IDENTIFIER_FILE = "identifier.pt"
DECK_STYLES = ("napoletane", "francesi")
# The zoomed pass's largest input: 800 px brings a 1024 px photo close to its own size.
ZOOMED_IMGSZ_MAX = 800
# A box holding smaller boxes is a false merge of neighbouring cards, not one card whose pips
# were taken for cards, when it is this many times the size of the photo's other cards, or
# (with fewer than two other cards to compare with) when two or more boxes cover this share of it.
MERGE_AREA_RATIO = 1.8
MERGE_COVERAGE = 0.5


@dataclass(frozen=True)
class RecognizerSettings:
    """Every threshold and optional pass of the recogniser, in one place (chosen on generated
    piles of tuning seeds; the model card says how)."""

    # The main detector pass's input size: the size the detector was trained at.
    detector_imgsz: int = 512
    # Cards of a loose heap are small in the photo (35-70 px long at 416, 43-86 at 512); there
    # the detector misses some and draws loose boxes around others. When the photo's cards are
    # shorter than this at the main pass, it runs again at the size that brings them to this
    # length (at most ZOOMED_IMGSZ_MAX; also when it found no card at all), and the boxes of
    # both passes count. None: never.
    small_card_px: float | None = 80
    # A box scoring this much is a card.
    box_threshold: float = 0.5
    # A card box the identifier reads as `none` with this probability is set apart as
    # doubtful, unless the detector scored it at least `sure_box`.
    not_a_card_threshold: float = 0.5
    sure_box: float = 0.8
    # The detector's own non-maximum suppression. Ultralytics compares oriented boxes by
    # ProbIoU, which rates two overlapping cards far more alike than their outlines are: a card
    # showing 30% of itself below its neighbour has ProbIoU 0.65 with it (outline IoU 0.54), one
    # showing 25% 0.70. Lower, some strips of fans and cascades showing about a third of
    # themselves lose their box (models/README.md). Two boxes of one card overlap more than this
    # and still go; `same_card_iou` and `drop_contained` remove what is left.
    nms_iou: float = 0.8
    # Two boxes overlapping at least this much (outline IoU) outline the same card: the
    # better-scored stays, and the identifier reads the other too when another look drew it.
    # Neighbours of a fan or cascade showing a share s of themselves overlap by (1 - s) / (1 + s):
    # 0.5 at a third, 0.6 at a quarter (at 0.5, every card showing under a third was dropped).
    same_card_iou: float = 0.6
    # A box overlapping a better card box by from `crowded_iou` up to `same_card_iou` is a
    # neighbour showing a narrow strip, or a second box straddling two cards: it counts as a
    # card only when the identifier reads it at least this sure; otherwise it is doubtful.
    crowded_iou: float = 0.5
    crowded_min_confidence: float = 0.3
    # Boxes scored from this floor up to the box threshold are not cards of the photo, but are
    # kept as doubtful boxes: in a heap some are cards with a poor box, which the
    # reconciliation may use for a card no photo shows otherwise. None: not kept.
    doubtful_box_floor: float | None = 0.3
    # Every photo is also looked at mirrored, at the finest size looked at (the zoomed one when
    # that pass runs): the mirror image finds cards of cascades and heaps the photo itself
    # misses, and a box only one look drew faces `lone_look_min_confidence`.
    mirrored_look: bool = True
    # When the main pass finds the photo's cards lying askew together (a pile shot at a
    # slant, or a diagonal cascade), each at least this many degrees off the photo's sides,
    # every look is taken on the photo turned to square them up: the detector, trained mostly
    # on square layouts, reads more of such cards seen square (models/README.md). None: never.
    squaring_turn_min_degrees: float | None = 10.0
    # The photo's cards lie askew together when their angles (modulo a quarter turn) agree this
    # well: the length of the mean of their directions as unit vectors at four times the angle
    # (1 when they all agree; 0.79 when they spread evenly over 30 degrees, as a narrow hand
    # fan's do; models/README.md).
    squaring_min_agreement: float = 0.7
    # The squared looks see only the part of the turned photo that holds the main pass's cards,
    # and this many card lengths around them: the whole photo turned is a larger canvas, on which
    # the cards come out smaller and the looks slower (models/README.md). None: the whole photo.
    squaring_margin_cards: float | None = 1.0
    # Where a photo's cards lie apart (a grid, rows, a scatter: the median card box overlaps
    # its nearest other by under `cards_apart_iou`), a card box overlapping one better card box
    # by `straddle_iou` and another by `straddle_second_iou` lies across two cards: it is
    # doubtful. Most false cards are such boxes; in fans and cascades most true cards overlap
    # their neighbours so, and there the rule is off (models/README.md). None: no such rule.
    straddle_iou: float | None = 0.25
    straddle_second_iou: float = 0.2
    cards_apart_iou: float = 0.2
    # Two card boxes overlapping at least this much (IoU) that read as the same card are that
    # card boxed twice by two looks (a photo cannot show a card twice): the better-scored box
    # stays a card, the other becomes a doubtful box. None: both stay cards.
    same_reading_iou: float | None = 0.3
    # When the detector looked more than once, a card box that only one of the looks drew is a
    # card only when the identifier reads it at least this sure; otherwise it is doubtful. On
    # the tuning piles most false cards were such boxes (models/README.md). None: no such rule.
    lone_look_min_confidence: float | None = 0.5
    # A card read at least this sure from its own box is not read again from the boxes the
    # other looks drew around it: they would change little, and reading them took two fifths
    # of the time of a photo of whole cards (models/README.md). None: every box is read.
    sure_without_other_looks: float | None = 0.99
    # The identifier's readings are softened by this temperature (its logits divided by it),
    # so that a confidence of 0.99 is wrong about as rarely as it says.
    identifier_temperature: float = 1.0

    def overridden(self, changes: Mapping[str, str]) -> RecognizerSettings:
        """These settings with some changed, given as text (`scopa eval --set name=value`):
        a number, `true` or `false`, or `none` to turn off an optional pass or rule."""
        known = {f.name: f for f in fields(self)}
        values: dict[str, Any] = {}
        for name, text in changes.items():
            if name not in known:
                raise ValueError(f"unknown recogniser setting {name!r}: one of {', '.join(known)}")
            word = text.strip().lower()
            if word == "none" and "None" in str(known[name].type):
                values[name] = None
            elif known[name].type == "bool":
                if word not in ("true", "false"):
                    raise ValueError(f"setting {name} takes true or false, not {text!r}")
                values[name] = word == "true"
            else:
                try:
                    number = float(word)
                except ValueError:
                    raise ValueError(f"setting {name} takes a number, not {text!r}") from None
                if "float" in str(known[name].type):
                    values[name] = number
                elif number.is_integer():
                    values[name] = int(number)
                else:
                    raise ValueError(f"setting {name} takes a whole number, not {text!r}")
        return replace(self, **values)


@dataclass
class FoundBoxes:
    """What the detector passes found in a photo (see `CardRecognizer.find_boxes`): the card
    boxes (portrait-ordered corner quads in image pixels) with their scores and other looks,
    and apart the weak boxes, scored from `doubtful_box_floor` up to the box threshold. A
    card's other looks are the boxes the other fine looks drew around it."""

    quads: list[np.ndarray]
    scores: list[float]
    other_looks: list[list[np.ndarray]]
    weak_quads: list[np.ndarray]
    weak_scores: list[float]
    #: How many fine looks the detector took (the main pass, the zoomed one, the mirrored one).
    looks: int = 1


class _PassBoxes(NamedTuple):
    """One fine detector pass's boxes (raw corner quads), strong and weak apart."""

    quads: list[np.ndarray]
    scores: list[float]
    weak_quads: list[np.ndarray]
    weak_scores: list[float]


class ModelsMissingError(RuntimeError):
    """The committed weights are not where they should be (a broken checkout, not bad input)."""


class CardRecognizer:
    """Loads the committed models once; `recognize` is safe to call from several threads."""

    def __init__(
        self,
        models_dir: str | Path | None = None,
        deck: str = "napoletane",
        settings: RecognizerSettings | None = None,
        backend: str | None = None,
    ) -> None:
        if deck not in DECK_STYLES:
            from scoring.errors import ScopaError

            raise ScopaError(f"unknown deck style {deck!r}: choose one of {', '.join(DECK_STYLES)}")
        from .backends import BackendUnavailableError, load_backends

        self.models_dir = Path(models_dir) if models_dir else MODELS_DIR
        self.deck = deck
        detector_path = self.models_dir / DETECTOR_FILE
        identifier_path = self._identifier_path()
        for path in (detector_path, identifier_path):
            if not _weights_present(path):
                raise ModelsMissingError(f"model weights not found: {path}")
        # ONNX Runtime when models/*.onnx are the export of these weights, else ultralytics
        # (see vision/backends.py; `backend` forces one).
        try:
            self.detector, self.identifier = load_backends(detector_path, identifier_path, backend)
        except BackendUnavailableError as exc:
            raise ModelsMissingError(str(exc)) from None
        self.settings = settings or RecognizerSettings()
        self.crop_size = self.identifier.imgsz
        # The identifier's class order is its folder names sorted; map it onto DECK order once.
        names = list(self.identifier.names)
        self._card_classes = np.array([i for i, n in enumerate(names) if n != NOT_A_CARD])
        self._to_deck_order = np.array([CARD_CODES.index(names[i]) for i in self._card_classes])
        self._not_a_card_class = names.index(NOT_A_CARD) if NOT_A_CARD in names else None
        self._lock = threading.Lock()

    def _identifier_path(self) -> Path:
        """A deck style may have an identifier of its own; otherwise the shared one serves."""
        specific = self.models_dir / f"identifier-{self.deck}.pt"
        return specific if _weights_present(specific) else self.models_dir / IDENTIFIER_FILE

    def recognize(self, source: Source | np.ndarray, path: str | None = None) -> PhotoResult:
        """Find and identify every card in a photo (a path, bytes, a file object or a BGR array)."""
        if isinstance(source, np.ndarray):
            image, scale = source, 1.0
        else:
            image, scale = load_working_image(source, name=path)
            if path is None and isinstance(source, str | Path):
                path = str(source)
        height, width = round(image.shape[0] * scale), round(image.shape[1] * scale)
        boxes = self.find_boxes(image)
        cards: list[DetectedCard] = []
        doubtful: list[DetectedCard] = []
        quads = boxes.quads + boxes.weak_quads
        if quads:
            others = boxes.other_looks + [[] for _ in boxes.weak_quads]
            probs, not_a_card = self.classify(image, quads, others)
            scores = boxes.scores + boxes.weak_scores
            for k, (quad, box_score, p, empty) in enumerate(
                zip(quads, scores, probs, not_a_card, strict=True)
            ):
                best = int(p.argmax())
                card = DetectedCard(CARD_CODES[best], float(p[best]), p, quad * scale, box_score)
                weak = k >= len(boxes.quads)
                turned_down = (
                    empty >= self.settings.not_a_card_threshold
                    and box_score < self.settings.sure_box
                )
                lone = self._lone_unsure(boxes, k, card.confidence)
                (doubtful if weak or turned_down or lone else cards).append(card)
        settings = self.settings
        if settings.crowded_iou < settings.same_card_iou and settings.crowded_min_confidence > 0:
            cards, unsure = split_unsure_crowded(
                cards, settings.crowded_iou, settings.crowded_min_confidence
            )
            doubtful += unsure
        if settings.same_reading_iou is not None:
            cards, repeated = split_repeated_readings(cards, settings.same_reading_iou)
            doubtful += repeated
        if settings.straddle_iou is not None:
            cards, straddling = split_straddling(
                cards,
                settings.straddle_iou,
                settings.straddle_second_iou,
                settings.cards_apart_iou,
            )
            doubtful += straddling
        reading_order = lambda c: (  # noqa: E731
            round(float(c.quad[:, 1].mean()) / max(height / 12, 1)),
            float(c.quad[:, 0].mean()),
        )
        return PhotoResult(
            path,
            width,
            height,
            sorted(cards, key=reading_order),
            sorted(doubtful, key=reading_order),
        )

    def _lone_unsure(self, boxes: FoundBoxes, k: int, confidence: float) -> bool:
        """Card box `k` was drawn by one look of several and is read under the bar."""
        bar = self.settings.lone_look_min_confidence
        return (
            bar is not None
            and boxes.looks > 1
            and k < len(boxes.quads)
            and not boxes.other_looks[k]
            and confidence < bar
        )

    def detect(self, image: np.ndarray) -> tuple[list[np.ndarray], list[float]]:
        """Oriented card boxes as portrait-ordered corner quads, in `image` pixels, and their
        scores (see `find_boxes`)."""
        boxes = self.find_boxes(image)
        return boxes.quads, boxes.scores

    def find_boxes(self, image: np.ndarray) -> FoundBoxes:
        """Card boxes, their scores, and for each the boxes other fine looks drew around the
        same card; and the weak boxes.

        The main pass at `detector_imgsz` boxes every card, whichever way it lies, and the big
        one of a close-up. When it finds small cards, or none at all, the detector looks at the
        photo larger (`zoomed_imgsz`). It also looks at the photo's mirror image, at the finest
        of those sizes (`mirrored_look`): each look finds cards of a heap or a cascade the others
        miss, and the boxes of all count (measured in models/README.md). A card found by
        several looks keeps the best-scored box, and the identifier reads the others too. Boxes
        of the looks scoring from `doubtful_box_floor` up to the box threshold take no part in
        any of this: they come back apart as weak boxes, less those that repeat a card box or
        lie inside one. When the main pass finds the cards lying askew together, all of this
        is done on the photo turned to square them up (`squaring_turn_min_degrees`), on the part
        of it around the cards found (`squaring_margin_cards`), and the boxes are mapped back
        onto the photo.
        """
        main = self._fine_pass(image, self.settings.detector_imgsz)
        turn = self._squaring_turn(main.quads)
        if turn is None:
            return self._all_looks(image, main)
        margin = self.settings.squaring_margin_cards
        if margin is None:
            turned, back = turn_photo(image, turn)
        else:
            turned, back = turn_photo(
                image, turn, np.concatenate(main.quads), margin * _card_length(main.quads)
            )
        found = self._all_looks(turned, self._fine_pass(turned, self.settings.detector_imgsz))
        to_photo = lambda qs: [portrait_corners(cv2.transform(q[None], back)[0]) for q in qs]  # noqa: E731
        return FoundBoxes(
            to_photo(found.quads),
            found.scores,
            [to_photo(looks) for looks in found.other_looks],
            to_photo(found.weak_quads),
            found.weak_scores,
            found.looks,
        )

    def _squaring_turn(self, quads: list[np.ndarray]) -> float | None:
        """The turn (degrees) that squares up the cards at `quads` with the photo's sides, when
        they lie askew together by at least `squaring_turn_min_degrees`; else None."""
        least = self.settings.squaring_turn_min_degrees
        if least is None or len(quads) < 2:
            return None
        # A card's long side and its short side are a quarter turn apart: angles modulo 90.
        angles = np.deg2rad([card_angle(q) for q in quads]) * 4
        mean = complex(np.cos(angles).mean(), np.sin(angles).mean())
        if abs(mean) < self.settings.squaring_min_agreement:  # a scatter: no one turn squares it
            return None
        skew = float(np.rad2deg(np.angle(mean)) / 4)  # in (-45, 45]
        return skew if abs(skew) >= least else None

    def _all_looks(self, image: np.ndarray, main: _PassBoxes) -> FoundBoxes:
        """`find_boxes` after the main pass (`main`) on `image`."""
        zoomed = self.zoomed_imgsz(image.shape[:2], main.quads)
        # The finer looks first: on a tie drop_contained keeps the earlier box.
        looks = [] if zoomed is None else [self._fine_pass(image, zoomed)]
        if self.settings.mirrored_look:
            looks.append(self._mirrored_fine_pass(image, zoomed or self.settings.detector_imgsz))
        looks.append(main)
        quads = [q for look in looks for q in look.quads]
        scores = [s for look in looks for s in look.scores]
        look_of = [k for k, look in enumerate(looks) for _ in look.quads]
        same_card = self.settings.same_card_iou
        keep = drop_contained(quads, scores, same_card_iou=same_card)
        weak_quads = [q for look in looks for q in look.weak_quads]
        weak_scores = [s for look in looks for s in look.weak_scores]
        weak = weak_boxes([quads[i] for i in keep], weak_quads, weak_scores, same_card)
        return FoundBoxes(
            [portrait_corners(quads[i]) for i in keep],
            [scores[i] for i in keep],
            [_other_looks(quads, look_of, i, same_card) for i in keep],
            [portrait_corners(weak_quads[i]) for i in weak],
            [weak_scores[i] for i in weak],
            len(looks),
        )

    def _fine_pass(self, image: np.ndarray, imgsz: int) -> _PassBoxes:
        """One fine detector pass: the boxes scoring at least the box threshold and, apart,
        the weak ones down to `doubtful_box_floor`. (Suppression keeps the best box first, so
        the first two lists are what a pass at the threshold alone gives.)"""
        floor = self.settings.doubtful_box_floor
        if floor is None or floor >= self.settings.box_threshold:
            return _PassBoxes(*self.predict_boxes(image, imgsz), [], [])
        quads, scores = self.predict_boxes(image, imgsz, conf=floor)
        strong = [i for i, s in enumerate(scores) if s >= self.settings.box_threshold]
        weak = [i for i, s in enumerate(scores) if s < self.settings.box_threshold]
        return _PassBoxes(
            [quads[i] for i in strong],
            [scores[i] for i in strong],
            [quads[i] for i in weak],
            [scores[i] for i in weak],
        )

    def _mirrored_fine_pass(self, image: np.ndarray, imgsz: int) -> _PassBoxes:
        """`_fine_pass` on the photo's mirror image, its boxes mapped back onto the photo."""
        right = image.shape[1] - 1
        found = self._fine_pass(cv2.flip(image, 1), imgsz)  # the mirror image, left to right
        # Mirroring reverses the corners' turning order: reverse them back.
        back = lambda q: np.array(np.c_[right - q[::-1, 0], q[::-1, 1]], np.float32)  # noqa: E731
        return _PassBoxes(
            [back(q) for q in found.quads],
            found.scores,
            [back(q) for q in found.weak_quads],
            found.weak_scores,
        )

    def zoomed_imgsz(self, shape: tuple[int, int], quads: list[np.ndarray]) -> int | None:
        """The input size that brings the cards the main pass found (`quads`) to
        `small_card_px`: None if they are that big already; the largest if there are none
        (a pile too small in the photo for the main pass to see a single card)."""
        if self.settings.small_card_px is None:
            return None
        if not quads:
            return ZOOMED_IMGSZ_MAX
        card_px = _card_length(quads) * self.settings.detector_imgsz / max(shape)
        if card_px >= self.settings.small_card_px:
            return None
        wanted = self.settings.detector_imgsz * self.settings.small_card_px / card_px
        size = min(int(round(wanted / 32)) * 32, ZOOMED_IMGSZ_MAX)  # the network's stride
        return size if size > self.settings.detector_imgsz else None

    def predict_boxes(
        self, image: np.ndarray, imgsz: int, conf: float | None = None
    ) -> tuple[list[np.ndarray], list[float]]:
        """One detector pass at input size `imgsz`: corner quads and scores of the boxes scoring
        at least `conf` (default: the box threshold), before any merging."""
        conf = self.settings.box_threshold if conf is None else conf
        with self._lock:  # ultralytics predictors keep per-call state
            corners, scores = self.detector.detect(image, imgsz, conf, self.settings.nms_iou)
        return list(corners), [float(s) for s in scores]

    def identify(self, image: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
        """(N, 40) probabilities in DECK order for the cards at `quads` in `image`."""
        return self.classify(image, quads)[0]

    def classify(
        self,
        image: np.ndarray,
        quads: list[np.ndarray],
        other_looks: list[list[np.ndarray]] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """For the crops at `quads`: (N, 40) card probabilities in DECK order, each given that
        the crop is a card, and (N,) probabilities that it holds no card at all. A card with
        other boxes (`other_looks`) is read from each, the readings averaged, unless its own
        box reads it sure enough (`sure_without_other_looks`)."""
        n = len(quads)
        summed = self._read_both_ways(image, quads)
        bar = self.settings.sure_without_other_looks
        sure = summed.max(1) >= (bar if bar is not None else np.inf)
        others = [(i, q) for i, looks in enumerate(other_looks or []) if not sure[i] for q in looks]
        reads = np.ones(n, np.float32)
        extra = self._read_both_ways(image, [q for _, q in others])
        for (i, _), read in zip(others, extra, strict=True):
            summed[i] += read
            reads[i] += 1
        averaged = soften(summed / reads[:, None], self.settings.identifier_temperature)
        not_a_card = (
            averaged[:, self._not_a_card_class]
            if self._not_a_card_class is not None
            else np.zeros(n, np.float32)
        )
        probs = np.zeros((n, len(CARD_CODES)), np.float32)
        probs[:, self._to_deck_order] = averaged[:, self._card_classes]
        return probs / np.maximum(probs.sum(1, keepdims=True), 1e-12), not_a_card

    def _read_both_ways(self, image: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
        """The identifier's (N, classes) probabilities for the crops at `quads`, each read upright
        and turned half a turn, the two averaged."""
        crops = [warp_crop(image, q, self.crop_size) for q in quads]
        if not crops:
            return np.zeros((0, len(self.identifier.names)), np.float32)
        with self._lock:
            raw = self.identifier.probabilities(
                crops + [np.ascontiguousarray(c[::-1, ::-1]) for c in crops]
            )
        return (raw[: len(crops)] + raw[len(crops) :]) / 2


def _card_length(quads: list[np.ndarray]) -> float:
    """The median length of the boxes' longer sides: the photo's card length."""
    return float(
        np.median([max(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[1])) for q in quads])
    )


def _weights_present(weights: Path) -> bool:
    """The `.pt`, or the ONNX export that can stand in for it."""
    return weights.is_file() or weights.with_suffix(".onnx").is_file()


def soften(probs: np.ndarray, temperature: float) -> np.ndarray:
    """Probability rows as a softmax of the logits divided by `temperature` would give them."""
    if temperature == 1.0:
        return probs
    logits = np.log(np.maximum(probs, 1e-12)) / temperature
    logits -= logits.max(1, keepdims=True)
    out = np.exp(logits)
    return (out / out.sum(1, keepdims=True)).astype(np.float32)


def _other_looks(
    quads: list[np.ndarray],
    look_of: list[int],
    kept: int,
    same_card_iou: float = RecognizerSettings.same_card_iou,
) -> list[np.ndarray]:
    """From each fine look other than box `kept`'s own (`look_of`: the look of each of
    `quads`), the box that outlines the same card (overlapping it by `same_card_iou`), if it
    drew one."""
    best: dict[int, tuple[float, int]] = {}
    for j, look in enumerate(look_of):
        if look == look_of[kept]:
            continue
        iou = polygon_iou(quads[kept], quads[j])
        if iou >= same_card_iou and iou > best.get(look, (0.0, -1))[0]:
            best[look] = (iou, j)
    return [portrait_corners(quads[j]) for _, (_, j) in sorted(best.items())]


def drop_contained(
    quads: list[np.ndarray],
    scores: list[float],
    max_area_ratio: float = 0.6,
    min_inside: float = 0.75,
    same_card_iou: float = RecognizerSettings.same_card_iou,
) -> list[int]:
    """Indices of the boxes to keep, best first: no duplicates, no parts of a card, no merges.

    A box that overlaps a better one by `same_card_iou` is the same card found twice (by two
    looks). Boxes lying mostly inside a much larger box are one of two things: parts
    of one card (pips or a figure taken for cards, as on close-ups), or the large box is several
    neighbouring cards taken for one (as the detector now and then does on a dense pile). Every card of a
    deck has the same size, so the other cards of the photo settle it: a box much larger than
    they are is a merge. Without two other cards to compare with, pips leave most of their card
    bare while cards side by side cover most of the box (`MERGE_COVERAGE`).
    """
    polys = [np.array(q, np.float32).reshape(4, 2) for q in quads]
    areas = [polygon_area(p) for p in polys]
    keep: list[int] = []
    for i in sorted(range(len(polys)), key=lambda k: -scores[k]):
        if areas[i] <= 0:
            continue
        duplicate = False
        for j in keep:
            shared = intersection_area(polys[i], polys[j])
            if shared / (areas[i] + areas[j] - shared) >= same_card_iou:
                duplicate = True
                break
        if not duplicate:
            keep.append(i)

    inside: dict[int, list[int]] = {j: [] for j in keep}  # j -> the boxes lying inside j
    for j in keep:
        for i in keep:
            if (
                i != j
                and areas[i] <= max_area_ratio * areas[j]
                and intersection_area(polys[i], polys[j]) >= min_inside * areas[i]
            ):
                inside[j].append(i)
    contained = set().union(*inside.values())
    outermost = [j for j in keep if j not in contained]

    dropped: set[int] = set()
    # Largest first, so that nested boxes resolve from the outside in.
    for j in sorted(keep, key=lambda k: -areas[k]):
        inner = [i for i in inside[j] if i not in dropped]
        if j in dropped or not inner:
            continue
        peers = [areas[k] for k in outermost if k != j]
        if len(peers) >= 2:
            merge = areas[j] >= MERGE_AREA_RATIO * float(np.median(peers))
        else:
            merge = (
                len(inner) >= 2
                and covered_fraction(polys[j], [polys[i] for i in inner]) >= MERGE_COVERAGE
            )
        dropped.update([j] if merge else inner)
    return [i for i in keep if i not in dropped]


def split_repeated_readings(
    cards: list[DetectedCard], min_iou: float
) -> tuple[list[DetectedCard], list[DetectedCard]]:
    """The cards, and apart those that overlap a better-scored box by `min_iou` and read as the
    same card: mostly one card boxed twice, a little differently, by two looks of the detector;
    sometimes a neighbour in a fan misread as that card, so they are kept as doubtful boxes."""
    return _set_apart(
        cards,
        lambda kept, card: any(
            better.card == card.card and polygon_iou(better.quad, card.quad) >= min_iou
            for better in kept
        ),
    )


def split_unsure_crowded(
    cards: list[DetectedCard], min_iou: float, min_confidence: float
) -> tuple[list[DetectedCard], list[DetectedCard]]:
    """The cards, and apart those that overlap a better-scored card box by `min_iou` and are
    read under `min_confidence`: as likely a second box across two cards as a strip of one."""
    return _set_apart(
        cards,
        lambda kept, card: (
            card.confidence < min_confidence
            and any(polygon_iou(better.quad, card.quad) >= min_iou for better in kept)
        ),
    )


def split_straddling(
    cards: list[DetectedCard], first_iou: float, second_iou: float, apart_iou: float
) -> tuple[list[DetectedCard], list[DetectedCard]]:
    """The cards, and apart those lying across two better-scored cards (overlapping one by
    `first_iou` and another by `second_iou`), in a photo whose cards lie apart: the median
    card box overlaps its nearest other by under `apart_iou`. In a fan or a cascade most
    cards overlap their neighbours so, and the rule stays off."""
    if len(cards) < 3:
        return cards, []
    overlaps = np.zeros((len(cards), len(cards)), np.float32)
    for i, j in itertools.combinations(range(len(cards)), 2):
        overlaps[i, j] = overlaps[j, i] = polygon_iou(cards[i].quad, cards[j].quad)
    if float(np.median(overlaps.max(1))) >= apart_iou:
        return cards, []
    index = {id(card): i for i, card in enumerate(cards)}

    def across_two(kept: list[DetectedCard], card: DetectedCard) -> bool:
        row = overlaps[index[id(card)]]
        nearest = sorted((row[index[id(better)]] for better in kept), reverse=True)
        return len(nearest) >= 2 and nearest[0] >= first_iou and nearest[1] >= second_iou

    return _set_apart(cards, across_two)


def _set_apart(
    cards: list[DetectedCard], clashes: Callable[[list[DetectedCard], DetectedCard], bool]
) -> tuple[list[DetectedCard], list[DetectedCard]]:
    """Best box first, each card is kept unless it `clashes` with the better cards kept
    before it."""
    kept: list[DetectedCard] = []
    apart: list[DetectedCard] = []
    for card in sorted(cards, key=lambda c: -c.box_confidence):
        (apart if clashes(kept, card) else kept).append(card)
    return kept, apart


def weak_boxes(
    card_quads: list[np.ndarray],
    weak_quads: list[np.ndarray],
    weak_scores: list[float],
    same_card_iou: float = RecognizerSettings.same_card_iou,
    min_inside: float = 0.75,
) -> list[int]:
    """Indices of the weak boxes worth a look, best first: none that repeats a card box or a
    better weak box, lies mostly inside a card box (a part of that card), or holds most of a
    card box (that card boxed loosely, or with its neighbours)."""
    cards = [np.array(q, np.float32).reshape(4, 2) for q in card_quads]
    card_areas = [polygon_area(q) for q in cards]
    kept: list[int] = []
    for i in sorted(range(len(weak_quads)), key=lambda k: -weak_scores[k]):
        box = np.array(weak_quads[i], np.float32).reshape(4, 2)
        area = polygon_area(box)
        if area <= 0:
            continue
        clear = True
        for card, card_area in zip(cards, card_areas, strict=True):
            shared = intersection_area(box, card)
            if (
                shared / (area + card_area - shared) >= same_card_iou
                or shared >= min_inside * area
                or shared >= min_inside * card_area
            ):
                clear = False
                break
        if clear and all(polygon_iou(box, weak_quads[j]) < same_card_iou for j in kept):
            kept.append(i)
    return kept


def covered_fraction(outer: np.ndarray, inner: list[np.ndarray], grid: int = 64) -> float:
    """Share of the polygon `outer` covered by the union of the `inner` polygons (rasterised)."""
    x0, y0 = outer.min(0)
    span = max(float((outer.max(0) - outer.min(0)).max()), 1e-6)
    to_grid = lambda p: np.round((p - (x0, y0)) / span * (grid - 1)).astype(np.int32)  # noqa: E731
    outer_mask = np.zeros((grid, grid), np.uint8)
    cv2.fillPoly(outer_mask, [to_grid(outer)], 1)
    inner_mask = np.zeros_like(outer_mask)
    cv2.fillPoly(inner_mask, [to_grid(p) for p in inner], 1)
    total = int(outer_mask.sum())
    return float((outer_mask & inner_mask).sum()) / total if total else 0.0


@cache
def get_recognizer(deck: str = "napoletane", models_dir: str | None = None) -> CardRecognizer:
    """The process-wide recognizer for a deck style (models are loaded once)."""
    return CardRecognizer(models_dir=models_dir, deck=deck)
