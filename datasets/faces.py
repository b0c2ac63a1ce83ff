"""Card faces for the generator: deck scans made to look like real cards, and real card crops.

A face is a BGRA image of a whole upright card (alpha = its rounded outline) plus its card code.
Scans in ../shared/decks are trimmed to the printed area, so a white margin and rounded corners
are added here. Real photos in ../shared/real/dev come with the card's four corners: they are
straightened into faces too, which brings real paper, print and light into training.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scoring.cards import CARD_CODES

# Width / height of a Neapolitan card (about 56 x 92 mm once the white margin is counted).
CARD_ASPECT = 0.6
FACE_HEIGHT = 720
FACE_WIDTH = round(FACE_HEIGHT * CARD_ASPECT)

SCAN_DECKS = ("napoletane-hires", "napoletane", "piacentine", "bergamasche", "francesi")


def default_shared_dir() -> Path:
    """The team's shared data folder, beside the project's checkout."""
    return Path(__file__).resolve().parent.parent.parent / "shared"


@dataclass(frozen=True)
class Face:
    code: str
    deck: str
    image: np.ndarray  # BGRA, upright, FACE_HEIGHT x FACE_WIDTH
    real: bool  # True for a straightened real photo


def rounded_mask(width: int, height: int, radius: int) -> np.ndarray:
    """A uint8 mask of a rectangle with rounded corners, anti-aliased at 4x."""
    s = 4
    big = np.zeros((height * s, width * s), np.uint8)
    r = radius * s
    cv2.rectangle(big, (r, 0), (width * s - r - 1, height * s - 1), 255, -1)
    cv2.rectangle(big, (0, r), (width * s - 1, height * s - r - 1), 255, -1)
    for cx, cy in (
        (r, r),
        (width * s - r - 1, r),
        (r, height * s - r - 1),
        (width * s - r - 1, height * s - r - 1),
    ):
        cv2.circle(big, (cx, cy), r, 255, -1, lineType=cv2.LINE_AA)
    return cv2.resize(big, (width, height), interpolation=cv2.INTER_AREA)


@cache
def _card_mask() -> np.ndarray:
    return rounded_mask(FACE_WIDTH, FACE_HEIGHT, radius=round(FACE_WIDTH * 0.07))


def scan_to_face(scan: np.ndarray, margin: float = 0.045, paper=(236, 242, 245)) -> np.ndarray:
    """Place a trimmed scan on a card blank with a white margin and rounded corners (BGRA)."""
    card = np.empty((FACE_HEIGHT, FACE_WIDTH, 3), np.uint8)
    card[:] = paper
    mx, my = round(FACE_WIDTH * margin), round(FACE_HEIGHT * margin * CARD_ASPECT)
    inner = cv2.resize(
        scan, (FACE_WIDTH - 2 * mx, FACE_HEIGHT - 2 * my), interpolation=cv2.INTER_AREA
    )
    card[my : my + inner.shape[0], mx : mx + inner.shape[1]] = inner
    return np.dstack([card, _card_mask()])


def quad_to_face(photo: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Straighten the card inside `quad` (TL, TR, BR, BL) into an upright BGRA face."""
    dst = np.array(
        [[0, 0], [FACE_WIDTH - 1, 0], [FACE_WIDTH - 1, FACE_HEIGHT - 1], [0, FACE_HEIGHT - 1]],
        dtype=np.float32,
    )
    matrix = cv2.getPerspectiveTransform(np.array(quad, dtype=np.float32), dst)
    card = cv2.warpPerspective(
        photo,
        matrix,
        (FACE_WIDTH, FACE_HEIGHT),
        flags=cv2.INTER_AREA,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.dstack([card, _card_mask()])


def load_scan_faces(shared: Path, decks: tuple[str, ...] = SCAN_DECKS) -> list[Face]:
    faces = []
    for deck in decks:
        folder = shared / "decks" / deck
        for code in CARD_CODES:
            scan = cv2.imread(str(folder / f"{code}.jpg"), cv2.IMREAD_COLOR)
            if scan is None:
                raise FileNotFoundError(f"missing card scan {folder / code}.jpg")
            faces.append(Face(code, deck, scan_to_face(scan), real=False))
    return faces


def load_backs(shared: Path) -> list[np.ndarray]:
    backs = []
    for deck in SCAN_DECKS:
        scan = cv2.imread(str(shared / "decks" / deck / "back.jpg"), cv2.IMREAD_COLOR)
        if scan is not None:
            backs.append(scan_to_face(scan, margin=0.03))
    return backs


def _known_corners(shared: Path) -> dict[str, Any]:
    """The real photos of ../shared/real/dev whose card corners are known: path -> corners."""
    quads = json.loads((shared / "real" / "dev" / "quads.json").read_text())
    return {rel: quad for rel, quad in sorted(quads.items()) if quad is not None}


def real_deck_names(shared: Path) -> list[str]:
    """The physical decks whose photos the generator uses (those with known card corners)."""
    return sorted({rel.split("/")[0] for rel in _known_corners(shared)})


def iter_real_photos(shared: Path, exclude_decks: tuple[str, ...] = ()):
    """(code, deck, photo, quad) for each real photo of ../shared/real/dev whose corners are known."""
    root = shared / "real" / "dev"
    for rel, quad in _known_corners(shared).items():
        deck, name = rel.split("/")
        if deck in exclude_decks:
            continue
        photo = cv2.imread(str(root / rel), cv2.IMREAD_COLOR)
        yield Path(name).stem.upper(), deck, photo, np.float32(quad)


def load_real_faces(shared: Path, exclude_decks: tuple[str, ...] = ()) -> list[Face]:
    """Straightened real cards of ../shared/real/dev."""
    return [
        Face(code, deck, quad_to_face(photo, quad), real=True)
        for code, deck, photo, quad in iter_real_photos(shared, exclude_decks)
    ]


def real_photo_margins(shared: Path) -> list[np.ndarray]:
    """Patches of table surface from the real photos: the photo band beside each card's quad."""
    root = shared / "real" / "dev"
    patches = []
    for rel, quad in _known_corners(shared).items():
        photo = cv2.imread(str(root / rel), cv2.IMREAD_COLOR)
        if photo is None:
            raise OSError(f"cannot read {root / rel}")
        h, w = photo.shape[:2]
        xs, ys = np.array(quad)[:, 0], np.array(quad)[:, 1]
        x0, x1, y0, y1 = int(xs.min()), int(xs.max()), int(ys.min()), int(ys.max())
        for patch in (
            photo[: max(0, y0 - 8)],
            photo[min(h, y1 + 8) :],
            photo[:, : max(0, x0 - 8)],
            photo[:, min(w, x1 + 8) :],
        ):
            if patch.shape[0] >= 64 and patch.shape[1] >= 64:
                patches.append(patch)
    return patches
