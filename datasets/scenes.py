"""Synthetic photos of a captured pile spread on a table, with every card's four corners.

A scene is laid out on a flat "table plane" in one of the ways players lay a pile (`LAYOUTS`:
a grid, overlapping rows, fans of strips, cascades, columns by suit, a hand fan, a loose scatter),
turned as a whole by the side of the table the photo is taken from (`draw_turn`: quarter turns
included), drawn back to front with soft shadows, then seen through a tilted camera (a
homography) and the camera chain of `photometric`. Each card keeps its amodal quad (the whole card, even where another
card covers it) and the fraction of it that shows, so the writers can decide what to label.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.geometry import warp_crop

from . import photometric
from .faces import CARD_ASPECT, FACE_HEIGHT, FACE_WIDTH, Face
from .surfaces import make_surface

LAYOUTS = ("grid", "rows", "fan", "cascade", "suit_columns", "hand_fan", "scatter")
FACE_CORNERS = np.array(
    [[0, 0], [FACE_WIDTH - 1, 0], [FACE_WIDTH - 1, FACE_HEIGHT - 1], [0, FACE_HEIGHT - 1]],
    np.float32,
)


@dataclass
class PlacedCard:
    code: str
    quad: np.ndarray  # (4, 2) float32: the card's own TL, TR, BR, BL in image pixels
    visible: float  # fraction of the card's area not covered by cards drawn above it


@dataclass
class Scene:
    image: np.ndarray  # BGR uint8
    layout: str
    cards: list[PlacedCard] = field(default_factory=list)
    # How far the whole layout is turned on the table (degrees, clockwise): 90 or 270 is a pile
    # photographed from the side of the table.
    turn: float = 0.0
    # Card-shaped things that are not face-up cards (card backs, phones), in image pixels:
    # the places a detector is most tempted to see a card that is not there.
    lookalikes: list[np.ndarray] = field(default_factory=list)


@dataclass
class Assets:
    """Everything a scene is drawn from; loaded once per worker."""

    faces: list[Face]
    backs: list[np.ndarray]
    patches: list[np.ndarray]


def card_quad(cx: float, cy: float, width: float, angle_deg: float) -> np.ndarray:
    """Corners of an upright card of `width` centred at (cx, cy), turned by angle (clockwise)."""
    height = width / CARD_ASPECT
    a = np.deg2rad(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    local = np.array(
        [
            [-width / 2, -height / 2],
            [width / 2, -height / 2],
            [width / 2, height / 2],
            [-width / 2, height / 2],
        ],
        np.float32,
    )
    return local @ rot.T + np.array([cx, cy], np.float32)


# --- layouts: each returns quads in plane coordinates inside the box (x0, y0, w, h), back to front.


def _grid(rng, n, box):
    x0, y0, w, h = box
    gap = rng.uniform(0.06, 0.35)
    # The column count that gives the widest cards.
    cw, cols, rows = max(
        [
            (
                min(w / (cols + (cols - 1) * gap), h * CARD_ASPECT / (rows + (rows - 1) * gap)),
                cols,
                rows,
            )
            for cols in range(1, n + 1)
            for rows in [-(-n // cols)]
        ],
        key=lambda option: option[0],  # the first of equals wins
    )
    ch = cw / CARD_ASPECT
    quads = []
    for i in range(n):
        r, c = divmod(i, cols)
        cx = x0 + cw / 2 + c * cw * (1 + gap) + rng.normal(0, cw * 0.04)
        cy = y0 + ch / 2 + r * ch * (1 + gap) + rng.normal(0, ch * 0.04)
        quads.append(card_quad(cx, cy, cw, rng.normal(0, 3) + 180 * (rng.random() < 0.5)))
    return quads


def _rows(rng, n, box, overlap_range=(0.08, 0.34)):
    """Rows of cards, each covering up to a third of the previous one."""
    x0, y0, w, h = box
    overlap = rng.uniform(*overlap_range)
    row_gap = rng.uniform(-0.1, 0.15)  # rows may overlap a little vertically
    # The row length that gives the widest cards.
    cw, per_row, rows = max(
        [
            (
                min(
                    w / (1 + (per_row - 1) * (1 - overlap)),
                    h * CARD_ASPECT / (rows + (rows - 1) * row_gap),
                ),
                per_row,
                rows,
            )
            for per_row in range(1, n + 1)
            for rows in [-(-n // per_row)]
        ],
        key=lambda option: option[0],  # the first of equals wins
    )
    ch = cw / CARD_ASPECT
    quads = []
    for i in range(n):
        r, c = divmod(i, per_row)
        cx = x0 + cw / 2 + c * cw * (1 - overlap) + rng.normal(0, cw * 0.02)
        cy = y0 + ch / 2 + r * ch * (1 + row_gap) + rng.normal(0, ch * 0.02)
        quads.append(card_quad(cx, cy, cw, rng.normal(0, 2.5) + 180 * (rng.random() < 0.5)))
    return quads


def _cascade(rng, n, box, groups=None):
    """Columns of cards, each showing a quarter to two thirds of its height above the next one.

    `groups` (column lengths) makes one column per group, as when a pile is sorted by suit.
    """
    x0, y0, w, h = box
    step = rng.uniform(0.25, 0.67)  # fraction of card height that stays visible
    if groups:
        return _columns(rng, groups, box, step)
    # The column count that gives the widest cards.
    cw, cols, per_col = max(
        [
            (
                min(w / (cols + (cols - 1) * 0.1), h * CARD_ASPECT / (1 + (per_col - 1) * step)),
                cols,
                per_col,
            )
            for cols in range(1, n + 1)
            for per_col in [-(-n // cols)]
        ],
        key=lambda option: option[0],  # the first of equals wins
    )
    ch = cw / CARD_ASPECT
    quads = []
    for i in range(n):
        c, r = divmod(i, per_col)
        cx = x0 + cw / 2 + c * cw * 1.1 + rng.normal(0, cw * 0.02)
        cy = y0 + ch / 2 + r * ch * step + rng.normal(0, ch * 0.02)
        quads.append(card_quad(cx, cy, cw, rng.normal(0, 2) + 180 * (rng.random() < 0.5)))
    return quads


def _columns(rng, groups, box, step):
    """One cascade column per group (`groups`: the column lengths, in drawing order)."""
    x0, y0, w, h = box
    cols, longest = len(groups), max(groups)
    cw = min(w / (cols + (cols - 1) * 0.1), h * CARD_ASPECT / (1 + (longest - 1) * step))
    ch = cw / CARD_ASPECT
    quads = []
    for c, size in enumerate(groups):
        for r in range(size):
            cx = x0 + cw / 2 + c * cw * 1.1 + rng.normal(0, cw * 0.02)
            cy = y0 + ch / 2 + r * ch * step + rng.normal(0, ch * 0.02)
            quads.append(card_quad(cx, cy, cw, rng.normal(0, 2) + 180 * (rng.random() < 0.5)))
    return quads


def _fan(rng, n, box):
    """Rows where each card shows only a strip, a quarter to two thirds of its width."""
    return _rows(rng, n, box, overlap_range=(0.33, 0.75))


def _hand_fan(rng, n, box):
    """Cards turned about a point near their lower end, each showing a wedge; a pile of more
    than ten cards makes several fans, laid in a grid."""
    fans = -(-n // 10)
    per_row = int(np.ceil(np.sqrt(fans)))
    sizes = [len(part) for part in np.array_split(np.arange(n), fans)]
    width = 100.0  # laid out at this card width, then fitted into the box
    height = width / CARD_ASPECT
    quads = []
    for k, size in enumerate(sizes):
        spread = rng.uniform(50, 150)
        reach = height * rng.uniform(0.3, 0.45)  # from the pivot to each card's centre
        row, col = divmod(k, per_row)
        pivot = np.array([col * height * 1.4, row * height * 1.3], np.float32)
        for i in range(size):
            angle = -spread / 2 + spread * i / max(size - 1, 1) + rng.normal(0, 1.5)
            a = np.deg2rad(angle)
            cx, cy = pivot + reach * np.array([np.sin(a), -np.cos(a)], np.float32)
            quads.append(card_quad(cx, cy, width, angle + 180 * (rng.random() < 0.5)))
    return fit_into(quads, box)


def fit_into(quads: list[np.ndarray], box) -> list[np.ndarray]:
    """Scale and move a layout (keeping its shape) so that it fills `box` (x0, y0, w, h)."""
    pts = np.concatenate(quads)
    low, high = pts.min(0), pts.max(0)
    x0, y0, w, h = box
    scale = min(w / max(high[0] - low[0], 1e-6), h / max(high[1] - low[1], 1e-6))
    offset = (
        np.array([x0, y0], np.float32) + (np.array([w, h], np.float32) - (high - low) * scale) / 2
    )
    return [((q - low) * scale + offset).astype(np.float32) for q in quads]


def turned(quads: list[np.ndarray], degrees: float, center) -> list[np.ndarray]:
    """The layout turned clockwise (image coordinates, y down) by `degrees` about `center`."""
    a = np.deg2rad(degrees)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    c = np.array(center, np.float32)
    return [((q - c) @ rot.T + c).astype(np.float32) for q in quads]


ANY_ANGLE_SHARE = 0.1


def draw_turn(rng: np.random.Generator, any_angle_share: float = ANY_ANGLE_SHARE) -> float:
    """How a layout lies in the photo: the photo is taken from any side of the table, so
    quarter turns are as common as the upright view; `any_angle_share` of layouts lie at
    any angle (at the default share, every seed lays the piles it always laid)."""
    kind = rng.random()
    if kind < any_angle_share:
        return float(rng.uniform(0, 360))
    base = rng.choice([0, 90, 180, 270], p=[0.4, 0.25, 0.1, 0.25])
    return float(base + rng.normal(0, 4))


def _scatter(rng, n, box):
    """Loose scatter at any angle; a card may cover part of another."""
    x0, y0, w, h = box
    cw = np.sqrt(w * h / n * CARD_ASPECT) * rng.uniform(0.55, 0.75)
    # A turned card needs a circle of its diagonal: keep that circle inside the box.
    cw = min(cw, min(w, h) / np.hypot(1, 1 / CARD_ASPECT) * 0.98)
    ch = cw / CARD_ASPECT
    r = np.hypot(cw, ch) / 2
    quads: list[np.ndarray] = []
    centers: list[tuple[float, float]] = []
    for _ in range(n):
        for _attempt in range(40):
            cx, cy = rng.uniform(x0 + r, x0 + w - r), rng.uniform(y0 + r, y0 + h - r)
            if all(np.hypot(cx - px, cy - py) > 0.55 * ch for px, py in centers):
                break
        centers.append((cx, cy))
        quads.append(card_quad(cx, cy, cw, rng.uniform(0, 360)))
    return quads


def _reversed_overlap(layout):
    """A layout drawn in the opposite order: rows laid left over right instead of right over
    left, a cascade with the lower card under instead of over."""

    def draw(rng, n, box, **kwargs):
        quads = layout(rng, n, box, **kwargs)
        return quads[::-1] if rng.random() < 0.5 else quads

    return draw


LAYOUT_FUNCS = {
    "grid": _grid,
    "rows": _reversed_overlap(_rows),
    "fan": _reversed_overlap(_fan),
    "cascade": _reversed_overlap(_cascade),
    "suit_columns": _reversed_overlap(_cascade),
    "hand_fan": _hand_fan,
    "scatter": _scatter,
}


def by_suit(faces: list[Face]) -> tuple[list[Face], list[int]]:
    """The faces sorted into suit columns (a shuffled column order), and each column's length."""
    suits = sorted({f.code[-1] for f in faces})
    columns = [[f for f in faces if f.code[-1] == suit] for suit in suits]
    ordered = [col for col in columns if col]
    return [f for col in ordered for f in col], [len(col) for col in ordered]


# --- drawing


def _wear(rng: np.random.Generator, face: np.ndarray) -> np.ndarray:
    """Old cards: a slightly yellowed, uneven paper tone and a gentle bend (curl)."""
    bgr: np.ndarray = face[..., :3].astype(np.float32)
    # Yellowing removes blue first.
    tone = 1 - rng.uniform(0, 0.12) * np.array([1.0, 0.5, 0.1], np.float32)
    bgr *= tone
    alpha = face[..., 3]
    if rng.random() < 0.3:  # curl: a smooth sideways bend of the paper
        h, w = alpha.shape
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        amp = rng.uniform(2, 8)
        map_x = xx + amp * np.sin(np.pi * yy / h)
        bgr = cv2.remap(bgr, map_x, yy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        alpha = cv2.remap(alpha, map_x, yy, cv2.INTER_LINEAR, borderValue=0)
    return np.dstack([np.clip(bgr, 0, 255), alpha.astype(np.float32)])


def paste(
    canvas: np.ndarray,
    face: np.ndarray,
    quad: np.ndarray,
    rng: np.random.Generator,
    shadow: bool = True,
) -> None:
    """Draw an upright BGRA face onto a float canvas at `quad` (in place), with a soft shadow."""
    h, w = canvas.shape[:2]
    x0, y0 = np.floor(quad.min(0)).astype(int) - 12
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 12
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    local = (quad - np.array([x0, y0], np.float32)).astype(np.float32)
    matrix = cv2.getPerspectiveTransform(FACE_CORNERS, local)
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(
        face, matrix, size, flags=cv2.INTER_AREA if _shrink(quad) > 2 else cv2.INTER_LINEAR
    )
    alpha: np.ndarray = warped[..., 3:4] / 255.0
    roi = canvas[y0:y1, x0:x1]
    if shadow:
        offset = rng.uniform(-0.02, 0.04, 2) * (y1 - y0)
        shift = np.array([[1, 0, offset[0]], [0, 1, offset[1]]], np.float32)
        soft = cv2.warpAffine(alpha[..., 0], shift, size)
        k = max(3, int((y1 - y0) * 0.04)) | 1
        soft = cv2.GaussianBlur(soft, (k, k), 0)
        roi *= 1 - rng.uniform(0.2, 0.5) * soft[..., None]
    roi[:] = roi * (1 - alpha) + warped[..., :3] * alpha


def _shrink(quad: np.ndarray) -> float:
    return FACE_HEIGHT / max(float(np.linalg.norm(quad[3] - quad[0])), 1.0)


def _distractor(
    rng: np.random.Generator, canvas: np.ndarray, assets: Assets, card_width: float
) -> np.ndarray | None:
    """Something on the table that is not a face-up card: a card back, a coin, a pen, a phone.

    Returns the outline of a card-shaped one (a back or a phone), in table-plane pixels.
    """
    h, w = canvas.shape[:2]
    kind = rng.choice(["back", "coin", "pen", "phone"], p=[0.4, 0.25, 0.2, 0.15])
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    if kind == "back" and assets.backs:
        back = assets.backs[rng.integers(len(assets.backs))].astype(np.float32)
        quad = card_quad(cx, cy, card_width, rng.uniform(0, 360))
        paste(canvas, back, quad, rng)
        return quad
    elif kind == "coin":
        r = int(card_width * rng.uniform(0.2, 0.35))
        color = (
            rng.uniform([20, 80, 120], [90, 170, 220])
            if rng.random() < 0.5
            else rng.uniform(110, 200, 3)
        )
        cv2.circle(canvas, (int(cx), int(cy)), r, color.tolist(), -1, cv2.LINE_AA)
        cv2.circle(
            canvas, (int(cx), int(cy)), int(r * 0.8), (color * 0.85).tolist(), 2, cv2.LINE_AA
        )
    elif kind == "pen":
        length, angle = card_width * rng.uniform(1.5, 2.5), rng.uniform(0, np.pi)
        p0 = (int(cx), int(cy))
        p1 = (int(cx + length * np.cos(angle)), int(cy + length * np.sin(angle)))
        cv2.line(
            canvas,
            p0,
            p1,
            rng.uniform(0, 255, 3).tolist(),
            max(2, int(card_width * 0.06)),
            cv2.LINE_AA,
        )
    else:
        box = ((cx, cy), (card_width * 1.1, card_width * 2.1), rng.uniform(0, 180))
        pts = cv2.boxPoints(box)
        cv2.fillPoly(canvas, [pts.astype(np.int32)], rng.uniform(10, 50, 3).tolist(), cv2.LINE_AA)
        return pts.astype(np.float32)
    return None


def visible_fractions(
    quads: list[np.ndarray], shape: tuple[int, int], scale: float = 0.25
) -> list[float]:
    """Fraction of each card left uncovered by the cards drawn after it (z-order = list order)."""
    h, w = int(shape[0] * scale) + 1, int(shape[1] * scale) + 1
    owner = np.full((h, w), -1, np.int32)
    areas = []
    for i, quad in enumerate(quads):
        poly = np.round(quad * scale).astype(np.int32)
        cv2.fillPoly(owner, [poly], i)
        areas.append(max(cv2.contourArea(quad * scale), 1.0))
    counts = np.bincount(owner[owner >= 0].ravel(), minlength=len(quads))
    return [float(min(1.0, c / a)) for c, a in zip(counts, areas, strict=True)]


def render_scene(
    rng: np.random.Generator,
    assets: Assets,
    faces: list[Face],
    layout: str,
    size: tuple[int, int] = (1024, 768),
    distractors: bool = True,
    distractor_rate: float = 0.35,
    turn: float = 0.0,
    overflow: float = 0.0,
) -> Scene:
    """Draw `faces` (in order, back to front) in `layout` on a random table, as a phone sees it.

    The layout is turned by `turn` degrees as a whole. With probability `overflow` the pile is
    larger than the frame and the cards at its edge are cut off."""
    out_w, out_h = size
    margin = 0.14
    plane_w, plane_h = int(out_w * (1 + 2 * margin)), int(out_h * (1 + 2 * margin))
    ox, oy = out_w * margin, out_h * margin
    # The image rectangle seen on the table plane: a trapezoid, wider at the far (top) edge.
    tilt = rng.uniform(0, margin * 0.9) * out_w
    jitter = rng.uniform(-0.35, 0.35, (4, 2)) * np.array([out_w, out_h], np.float32) * margin
    seen = (
        np.array(
            [[ox - tilt, oy], [ox + out_w + tilt, oy], [ox + out_w, oy + out_h], [ox, oy + out_h]],
            np.float32,
        )
        + jitter
    ).astype(np.float32)
    seen[:, 0] = seen[:, 0].clip(0, plane_w - 1)
    seen[:, 1] = seen[:, 1].clip(0, plane_h - 1)
    to_image = cv2.getPerspectiveTransform(
        seen, np.array([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]], np.float32)
    )

    canvas = make_surface(rng, plane_h, plane_w, assets.patches)
    cut_off = rng.random() < overflow
    fill = rng.uniform(1.0, 1.2) if cut_off else rng.uniform(0.45, 0.92)
    box_w, box_h = out_w * fill, out_h * fill
    box = (ox + (out_w - box_w) * rng.random(), oy + (out_h - box_h) * rng.random(), box_w, box_h)
    groups = None
    if layout == "suit_columns":
        faces, groups = by_suit(faces)
    sideways = abs(np.sin(np.deg2rad(turn))) > np.sin(np.deg2rad(45))
    for _attempt in range(6):
        x0, y0, w, h = box
        # A layout seen from the side is laid out along the other axis of the frame.
        laid = (x0 + (w - h) / 2, y0 + (h - w) / 2, h, w) if sideways else box
        kwargs = {"groups": groups} if groups else {}
        quads = LAYOUT_FUNCS[layout](rng, len(faces), laid, **kwargs)
        if turn % 360:
            quads = fit_into(turned(quads, turn, (x0 + w / 2, y0 + h / 2)), box)
        image_quads = [cv2.perspectiveTransform(q[None], to_image)[0] for q in quads]
        allq = np.concatenate(image_quads)
        inside = allq.min() >= 1 and allq[:, 0].max() <= out_w - 2 and allq[:, 1].max() <= out_h - 2
        if inside or cut_off:
            break
        # Shrink the layout towards its centre until the whole pile is in frame.
        x0, y0, w, h = box
        box = (x0 + w * 0.06, y0 + h * 0.06, w * 0.88, h * 0.88)
    card_width = float(np.linalg.norm(quads[0][1] - quads[0][0]))

    lookalikes = []
    if distractors and rng.random() < distractor_rate:
        for _ in range(rng.integers(1, 3)):
            outline = _distractor(rng, canvas, assets, card_width)
            if outline is not None:
                lookalikes.append(outline)
    for face, quad in zip(faces, quads, strict=True):
        paste(canvas, _wear(rng, face.image), quad, rng)

    image = cv2.warpPerspective(canvas, to_image, (out_w, out_h), flags=cv2.INTER_AREA)
    image = photometric.camera(rng, image)
    fractions = visible_fractions(image_quads, (out_h, out_w))
    cards = [
        PlacedCard(f.code, q.astype(np.float32), v)
        for f, q, v in zip(faces, image_quads, fractions, strict=True)
    ]
    seen_lookalikes = [cv2.perspectiveTransform(q[None], to_image)[0] for q in lookalikes]
    return Scene(image, layout, cards, turn=turn % 360, lookalikes=seen_lookalikes)


def render_card_crop(
    rng: np.random.Generator,
    assets: Assets,
    face: Face,
    crop_size: int,
    corner_jitter: float = 0.035,
) -> np.ndarray:
    """One card as the identifier sees it: photographed, found with an imprecise quad, straightened.

    The card lies on a table patch, sometimes partly covered by a neighbour (up to about a third,
    as in overlapping rows), tilted, lit and blurred like a photo; then it is cut out with corners
    off by a few percent (as a detector's would be) and stretched to a square.
    """
    card_h = rng.uniform(110, 420)
    card_w = card_h * CARD_ASPECT
    pad = card_h * 0.35
    w, h = int(card_w + 2 * pad), int(card_h + 2 * pad)
    canvas = make_surface(rng, h, w, assets.patches)
    quad = card_quad(w / 2, h / 2, card_w, rng.normal(0, 4) + 180 * (rng.random() < 0.5))
    if rng.random() < 0.25:  # the card below shows at the edges
        under = assets.faces[rng.integers(len(assets.faces))]
        paste(
            canvas,
            _wear(rng, under.image),
            quad + rng.normal(0, card_w * 0.25, 2).astype(np.float32),
            rng,
        )
    paste(canvas, _wear(rng, face.image), quad, rng)
    if rng.random() < 0.35:  # a neighbour on top, covering up to a third of one side
        neighbour = assets.faces[rng.integers(len(assets.faces))]
        side = int(rng.integers(4))
        cover = rng.uniform(0.08, 0.3)
        shift = {
            0: (card_w * (1 - cover), 0),
            1: (-card_w * (1 - cover), 0),
            2: (0, card_h * (1 - cover)),
            3: (0, -card_h * (1 - cover)),
        }[side]
        paste(
            canvas,
            _wear(rng, neighbour.image),
            quad + np.array(shift, np.float32) + rng.normal(0, 3, 2).astype(np.float32),
            rng,
        )
    # Camera tilt: a random homography close to identity.
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = (src + rng.uniform(-0.08, 0.08, (4, 2)) * np.array([w, h], np.float32)).astype(np.float32)
    tilt = cv2.getPerspectiveTransform(src, dst)
    image = cv2.warpPerspective(canvas, tilt, (w, h), borderMode=cv2.BORDER_REFLECT)
    image = photometric.camera(rng, image)
    seen = cv2.perspectiveTransform(quad[None], tilt)[0]
    seen += rng.normal(0, corner_jitter, (4, 2)).astype(np.float32) * np.array(
        [card_w, card_h], np.float32
    )
    return warp_crop(image, seen, crop_size)
