"""Identifier crops cut with a trained detector's own boxes (mining), beside the synthetic crops
of `build.py`: the detector's boxes on generated piles, labelled with the card under them or
`none`, and its boxes where there is no card at all (hard negatives). These need a trained
detector; `build.py` needs none.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.geometry import overlap, polygon_iou
from vision.types import NOT_A_CARD

from .build import (
    LAYOUT_WEIGHTS,
    MIN_VISIBLE,
    PILE_CROP_LAYOUT_WEIGHTS,
    GeneratorConfig,
    crop_name,
    make_crop_folders,
    render_pile,
    run_jobs,
    scene_rng,
    split_jobs,
)
from .scenes import warp_crop

# Boxes the detector draws on a generated pile: one this close to a card is a reading of that
# card, one this far from every card is a box on no card; those between are left out.
DETECTOR_BOX_CARD_IOU = 0.5
DETECTOR_BOX_NONE_IOU = 0.15
_detector_recognizers: dict[str, object] = {}


def _detector_for(models_dir: str):
    """The detector a worker cuts boxes with ("": the committed one), loaded once per process."""
    if models_dir not in _detector_recognizers:
        import torch

        from vision.pipeline import CardRecognizer

        torch.set_num_threads(1)  # one thread per worker process
        _detector_recognizers[models_dir] = CardRecognizer(models_dir=models_dir or None)
    return _detector_recognizers[models_dir]


def _write_detector_box_item(job: tuple[str, int, str, int, str]) -> int:
    """Cut the boxes a trained detector draws on a pile photo, as the recogniser will: its
    card boxes and its weak boxes (see `CardRecognizer.find_boxes`), since both are read.

    Its boxes on a heap are looser than the pile crops' jittered outlines (IoU 0.5-0.8 with
    the card): the identifier must read those too. A box on a card is labelled with the card
    it overlaps most (if that card shows at least MIN_VISIBLE); a box on no card, `none`.
    """
    split, index, out, crop_size, models_dir = job
    rng = scene_rng(split, index, stream=6)
    scene = render_pile(rng, PILE_CROP_LAYOUT_WEIGHTS)
    found = _detector_for(models_dir).find_boxes(scene.image)
    boxes = found.quads + found.weak_quads
    written = 0
    for k, box in enumerate(boxes):
        ious = [polygon_iou(box, card.quad) for card in scene.cards]
        best = int(np.argmax(ious)) if ious else -1
        if best >= 0 and ious[best] >= DETECTOR_BOX_CARD_IOU:
            if scene.cards[best].visible < MIN_VISIBLE:
                continue
            label = scene.cards[best].code
        elif best < 0 or ious[best] <= DETECTOR_BOX_NONE_IOU:
            label = NOT_A_CARD
        else:
            continue
        crop = warp_crop(scene.image, box, crop_size)
        path = Path(out) / split / label / crop_name("det", split, index, k)
        cv2.imwrite(str(path), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
        written += 1
    return written


# Hard negatives: the detector's boxes, at this low a score and at these input sizes (those
# the recogniser may use), on places with no card.
HARD_NEGATIVE_SCORE = 0.1
HARD_NEGATIVE_IMGSZ = (416, 512, 640)
HARD_NEGATIVES_PER_SCENE = 8


def _write_hard_negative_item(job: tuple[str, int, str, int, str]) -> int:
    """Crops of what the detector takes for a card where there is none (a card back, a patch
    of dotted cloth), on photos of piles and of a few cards: the `none` examples the identifier
    most needs, since it is the one to turn those boxes down."""
    split, index, out, crop_size, models_dir = job
    rng = scene_rng(split, index, stream=7)
    scene = render_pile(rng, LAYOUT_WEIGHTS, few_share=0.5, distractor_rate=0.7)
    recognizer = _detector_for(models_dir)
    found: list[tuple[float, np.ndarray]] = []
    for imgsz in HARD_NEGATIVE_IMGSZ:
        boxes, scores = recognizer.predict_boxes(scene.image, imgsz, conf=HARD_NEGATIVE_SCORE)
        found += zip(scores, boxes, strict=True)
    cards = [c.quad for c in scene.cards]
    kept: list[np.ndarray] = []
    for _score, box in sorted(found, key=lambda f: -f[0]):
        if len(kept) >= HARD_NEGATIVES_PER_SCENE:
            break
        clear = all(
            iou <= DETECTOR_BOX_NONE_IOU and covered <= 0.3
            for iou, covered in (overlap(box, card) for card in cards)
        )
        if clear and all(polygon_iou(box, other) < 0.5 for other in kept):
            kept.append(box)
    for k, box in enumerate(kept):
        crop = warp_crop(scene.image, box, crop_size)
        path = Path(out) / split / NOT_A_CARD / crop_name("hard", split, index, k)
        cv2.imwrite(str(path), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return len(kept)


def mine_detector_crops(
    out: Path,
    config: GeneratorConfig,
    crop_size: int = 160,
    workers: int = 2,
    detector_box_scenes: tuple[int, int] = (0, 0),
    hard_negative_scenes: tuple[int, int] = (0, 0),
    detector_models: Path | None = None,
) -> Path:
    """Add to the crop dataset at `out` (train, val): every box the detector in `detector_models`
    (default: the committed one) draws on `detector_box_scenes` pile photos (`det_*.jpg`, cards
    and `none/`), and the boxes it draws, even at a low score, where there is no card, on
    `hard_negative_scenes` photos (`none/hard_*.jpg`). Returns `out`."""
    out = Path(out)
    make_crop_folders(out)
    models = str(detector_models) if detector_models else ""
    for write, counts, desc in (
        (_write_detector_box_item, detector_box_scenes, "detector boxes on piles"),
        (_write_hard_negative_item, hard_negative_scenes, "detector boxes on no card"),
    ):
        jobs = split_jobs(counts, str(out), crop_size, models)
        if jobs:
            run_jobs(write, jobs, config, workers, desc)
    return out
