"""Write ultralytics-format datasets from synthetic scenes, reproducibly from a seed.

- detector: `<out>/detect/images/{train,val}/*.jpg`, `labels/.../*.txt` (one class, oriented
  boxes as four normalised corners) and `data.yaml`;
- identifier: `<out>/identify/{train,val}/<code>/*.jpg`, straightened card crops in 40 folders,
  and `none/`: crops of places that are not a card (table, card backs, the gap between cards),
  so that the identifier can turn down a box the detector drew where there is no card.

Every image is drawn from its own generator seeded by (seed, split, index), so the output does not
depend on the number of worker processes or on their scheduling.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from scoring.cards import CARD_CODES
from vision.geometry import intersection_area, overlap, polygon_area, polygon_iou
from vision.types import NOT_A_CARD

from . import faces as face_lib
from . import photometric
from .scenes import (
    ANY_ANGLE_SHARE,
    LAYOUTS,
    Assets,
    PlacedCard,
    card_quad,
    draw_turn,
    render_card_crop,
    render_scene,
    warp_crop,
)

SPLIT_IDS = {"train": 0, "val": 1}
# How often each deck appears in scenes; real decks bring real paper and print.
DECK_WEIGHTS = {
    "napoletane-hires": 3,
    "napoletane": 1.5,
    "piacentine": 1.5,
    "bergamasche": 1.5,
    "francesi": 1,
    "real": 2,
}
LAYOUT_WEIGHTS = {
    "grid": 0.15,
    "rows": 0.15,
    "fan": 0.15,
    "cascade": 0.15,
    "suit_columns": 0.1,
    "hand_fan": 0.1,
    "scatter": 0.2,
}
# Cards cut from piles for the identifier: mostly from the layouts that show part of a card,
# where it reads worst (in grid and rows nearly the whole card shows, as in single-card crops).
PILE_CROP_LAYOUT_WEIGHTS = {
    "grid": 0.05,
    "rows": 0.1,
    "fan": 0.25,
    "cascade": 0.15,
    "suit_columns": 0.15,
    "hand_fan": 0.1,
    "scatter": 0.2,
}
# Share of pile photos where the pile runs past the frame and cards at its edge are cut off.
CUT_OFF_SHARE = 0.1
FEW_CARDS = 0.2  # share of detector scenes with 1-6 cards
MIN_VISIBLE = 0.25  # label a card only if at least this fraction of it shows (amodal box)
NEGATIVES_PER_SCENE = 4
# A crop counts as "no card" only if it overlaps every card at most this much (IoU): crops of a
# badly boxed real card must never be taught as "no card".
NEGATIVE_MAX_IOU = 0.1


class GeneratorSettingError(ValueError):
    """A `GeneratorConfig` setting out of its range or naming no deck; `setting` names the field."""

    def __init__(self, setting: str, message: str) -> None:
        super().__init__(message)
        self.setting = setting


@dataclass(frozen=True)
class GeneratorConfig:
    shared: Path
    seed: int = 0
    exclude_real_decks: tuple[str, ...] = ()  # real decks kept out of training, to measure on
    heaps: bool = False  # detector piles mostly cascades and scatters (PILE_CROP_LAYOUT_WEIGHTS)
    # Draw piles from these decks of DECK_WEIGHTS only (empty: all of them). ("real",) makes
    # piles of photographed physical cards: a tuning set closer to real photos than scans.
    decks: tuple[str, ...] = ()
    # Identifier pile crops: cut partly covered look-alikes (LOOKALIKE_RANKS) this many times as
    # often as other cards. 1: every card that shows is as likely.
    lookalike_weight: float = 1.0
    # Share of piles turned by any angle rather than by about a quarter turn (`draw_turn`).
    any_angle_share: float = ANY_ANGLE_SHARE
    # A hand fan's inner cards show 10-25% of themselves, under MIN_VISIBLE: labelled from
    # MIN_VISIBLE, they are cards the detector learns not to see (models/README.md, 2026-12-06,
    # sixth session). Its cards are labelled, and cut for the identifier, from this share.
    hand_fan_min_visible: float = MIN_VISIBLE
    # A cascade's and a column by suit's cards show a quarter to two thirds of their height, but
    # a card under a corner of two others shows less: the cards showing 15-25% settle hands that
    # those showing a quarter leave open (models/README.md, fourteenth session). The cards of
    # both layouts are labelled, and cut for the identifier, from this share.
    cascade_min_visible: float = MIN_VISIBLE

    def __post_init__(self) -> None:
        unknown = sorted(set(self.decks) - set(DECK_WEIGHTS))
        if unknown:
            raise GeneratorSettingError(
                "decks", f"unknown deck {unknown[0]!r}: choose from {', '.join(DECK_WEIGHTS)}"
            )
        if self.exclude_real_decks or "real" in self.decks:
            self._check_real_decks()
        if not 0 <= self.any_angle_share <= 1:
            raise GeneratorSettingError(
                "any_angle_share",
                f"the share of piles at any angle must be 0 to 1, not {self.any_angle_share}",
            )
        for setting, cards in (
            ("hand_fan_min_visible", "a hand fan's cards"),
            ("cascade_min_visible", "a cascade's cards"),
        ):
            share = getattr(self, setting)
            if not 0 < share <= 1:
                raise GeneratorSettingError(
                    setting, f"{cards} are labelled from a share above 0 and at most 1, not {share}"
                )

    def _check_real_decks(self) -> None:
        # Checked here, before anything is drawn or written: a misspelt deck to hold out would
        # otherwise be silently kept in training, spoiling a leave-deck-out measure.
        real_decks = face_lib.real_deck_names(self.shared)
        unknown = sorted(set(self.exclude_real_decks) - set(real_decks))
        if unknown:
            raise GeneratorSettingError(
                "exclude_real_decks",
                f"no deck {unknown[0]!r} in real/dev: choose from {', '.join(real_decks)}",
            )
        if "real" in self.decks and set(real_decks) <= set(self.exclude_real_decks):
            raise GeneratorSettingError(
                "decks", "piles of photographed cards asked for, but every real deck is excluded"
            )

    def min_visible(self, layout: str) -> float:
        """The share of itself a card of a `layout` pile must show to be labelled and cut."""
        if layout == "hand_fan":
            return self.hand_fan_min_visible
        if layout in ("cascade", "suit_columns"):
            return self.cascade_min_visible
        return MIN_VISIBLE


@dataclass(frozen=True)
class _WorkerState:
    """What one process draws with: the settings and the faces, backs and photos they load."""

    config: GeneratorConfig
    assets: Assets
    real_photos: list[tuple[str, np.ndarray, np.ndarray]]  # (code, photo, card corners)


_worker: _WorkerState | None = None


def _state() -> _WorkerState:
    if _worker is None:
        raise RuntimeError("the generator's worker was not initialised (init_worker)")
    return _worker


def crop_name(kind: str, split: str, index: int, k: int | None = None) -> str:
    """A crop's file name: its kind, the seed, the split, the photo and the box. The seed makes
    the crops of data sets drawn with different seeds distinct, so that they can be merged
    into one folder (by hard links) without one replacing another."""
    box = "" if k is None else f"_{k:02d}"
    return f"{kind}_s{_state().config.seed}_{split}_{index:06d}{box}.jpg"


def init_worker(config: GeneratorConfig) -> None:
    """Load faces, backs and surfaces once per process."""
    global _worker
    scan_faces = face_lib.load_scan_faces(config.shared)
    real_faces = face_lib.load_real_faces(config.shared, exclude_decks=config.exclude_real_decks)
    assets = Assets(
        scan_faces + real_faces,
        face_lib.load_backs(config.shared),
        face_lib.real_photo_margins(config.shared),
    )
    real_photos = [
        (c, p, q)
        for c, _deck, p, q in face_lib.iter_real_photos(config.shared, config.exclude_real_decks)
    ]
    _worker = _WorkerState(config, assets, real_photos)


def scene_rng(split: str, index: int, stream: int) -> np.random.Generator:
    return np.random.default_rng([_state().config.seed, stream, SPLIT_IDS[split], index])


def _pick_deck(rng: np.random.Generator) -> list[face_lib.Face]:
    chosen = _state().config.decks
    names = [n for n in DECK_WEIGHTS if not chosen or n in chosen]
    p = np.array([DECK_WEIGHTS[n] for n in names], float)
    name = names[rng.choice(len(names), p=p / p.sum())]
    if name == "real":
        real_decks = sorted({f.deck for f in _state().assets.faces if f.real})
        if not real_decks:
            name = "napoletane-hires"
        else:
            deck = real_decks[rng.integers(len(real_decks))]
            return [f for f in _state().assets.faces if f.deck == deck]
    return [f for f in _state().assets.faces if f.deck == name and not f.real]


def scene_for(
    split: str,
    index: int,
    size: tuple[int, int],
    layout: str | None = None,
    n_cards: int | None = None,
    turn: float | None = None,
):
    """The scene number `index` of a split: the same arguments always give the same scene.
    `turn`: the layout's turn in degrees (default: drawn as `draw_turn` draws it)."""
    rng = scene_rng(split, index, stream=1)
    deck = _pick_deck(rng)
    if layout is None:
        weights = PILE_CROP_LAYOUT_WEIGHTS if _state().config.heaps else LAYOUT_WEIGHTS
        layout = LAYOUTS[rng.choice(len(LAYOUTS), p=[weights[k] for k in LAYOUTS])]
    # Mostly whole piles (10-30 cards), sometimes a few big cards, as in a close-up photo.
    n = n_cards or (
        int(rng.integers(1, 7)) if rng.random() < FEW_CARDS else int(rng.integers(10, 31))
    )
    chosen = [deck[i] for i in rng.choice(len(deck), size=min(n, len(deck)), replace=False)]
    if rng.random() < 0.5:  # portrait photos as often as landscape ones
        size = (size[1], size[0])
    return render_scene(
        rng,
        _state().assets,
        chosen,
        layout,
        size=size,
        turn=draw_turn(rng, _state().config.any_angle_share) if turn is None else turn,
        overflow=CUT_OFF_SHARE,
    )


def obb_label_lines(scene, min_visible: float = MIN_VISIBLE) -> list[str]:
    h, w = scene.image.shape[:2]
    lines = []
    for card in scene.cards:
        if card.visible < min_visible:
            continue
        pts = (card.quad / np.array([w, h], np.float32)).clip(0, 1).ravel()
        lines.append("0 " + " ".join(f"{v:.6f}" for v in pts))
    return lines


def _write_detect_item(job: tuple[str, int, str, tuple[int, int]]) -> int:
    split, index, out, size = job
    scene = scene_for(split, index, size)
    stem = f"{split}_{index:05d}"
    cv2.imwrite(
        str(Path(out) / "images" / split / f"{stem}.jpg"),
        scene.image,
        [cv2.IMWRITE_JPEG_QUALITY, 92],
    )
    lines = obb_label_lines(scene, _state().config.min_visible(scene.layout))
    (Path(out) / "labels" / split / f"{stem}.txt").write_text("\n".join(lines) + "\n")
    return len(lines)


def _write_identify_item(job: tuple[str, int, str, int]) -> None:
    """One crop: a synthetic photo of a face, or a real photo cut with jittered corners."""
    split, index, out, crop_size = job
    rng = scene_rng(split, index, stream=2)
    if _state().real_photos and rng.random() < 0.25:
        code, photo, quad = _state().real_photos[rng.integers(len(_state().real_photos))]
        jitter = rng.normal(0, 0.03, (4, 2)).astype(np.float32) * np.array(
            [np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[3] - quad[0])], np.float32
        )
        corners = (
            np.roll(quad, 2 * int(rng.random() < 0.5), axis=0) + jitter
        )  # upside down half the time
        crop = warp_crop(photometric.camera(rng, photo.astype(np.float32)), corners, crop_size)
    else:
        face = _state().assets.faces[rng.integers(len(_state().assets.faces))]
        code = face.code
        crop = render_card_crop(rng, _state().assets, face, crop_size)
    path = Path(out) / split / code / crop_name("card", split, index)
    cv2.imwrite(str(path), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])


def render_pile(
    rng: np.random.Generator, layout_weights: dict[str, float], few_share: float = 0.0, **kwargs
):
    """A random pile photo: a layout drawn by `layout_weights`, 10-30 cards of one deck (1-6
    with probability `few_share`), portrait or landscape; `kwargs` go to `render_scene`."""
    layout = LAYOUTS[rng.choice(len(LAYOUTS), p=[layout_weights[k] for k in LAYOUTS])]
    deck = _pick_deck(rng)
    n = (
        int(rng.integers(1, 7))
        if few_share and rng.random() < few_share
        else int(rng.integers(10, 31))
    )
    chosen = [deck[i] for i in rng.choice(len(deck), size=min(n, len(deck)), replace=False)]
    size = (1024, 768) if rng.random() < 0.5 else (768, 1024)
    return render_scene(
        rng,
        _state().assets,
        chosen,
        layout,
        size=size,
        turn=draw_turn(rng, _state().config.any_angle_share),
        overflow=CUT_OFF_SHARE,
        **kwargs,
    )


PILE_CROPS_PER_SCENE = 6
# Ranks whose strips look alike within a suit: the 3 to the 7 show the same pips at the top, so a
# partly covered one is the identifier's commonest confusion (models/README.md).
LOOKALIKE_RANKS = ("3", "4", "5", "6", "7")
LOOKALIKE_MAX_VISIBLE = 0.67


def pile_crop_weights(cards: list[PlacedCard], lookalike_weight: float) -> np.ndarray | None:
    """How likely each showing card of a pile is to be cut (None: all equally): partly covered
    look-alikes `lookalike_weight` times as likely as the others."""
    if lookalike_weight == 1.0:
        return None  # no `p` at all, so that seeds drawn before the option cut the same cards
    weights = np.array(
        [
            lookalike_weight
            if c.code[:-1] in LOOKALIKE_RANKS and c.visible < LOOKALIKE_MAX_VISIBLE
            else 1.0
            for c in cards
        ]
    )
    return weights / weights.sum()


def pile_crop_quad(rng: np.random.Generator, quad: np.ndarray) -> np.ndarray:
    """A card's true corners as a detector might give them on a pile: a little shifted, turned,
    too big or too small, and with either short side first (it does not know the top)."""
    center = quad.mean(0)
    width = float(np.linalg.norm(quad[1] - quad[0]))
    angle = np.deg2rad(rng.normal(0, 2.0))
    rotation = np.array(
        [[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]], np.float32
    )
    scale = np.array(rng.normal(1, 0.04, 2), np.float32).clip(0.88, 1.12)
    local = (quad - center) @ rotation.T
    # Scale along the card's own axes, not the image's.
    axes = np.stack([quad[1] - quad[0], quad[3] - quad[0]]).astype(np.float32)
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    local = (local @ axes.T * scale) @ axes
    shifted = local + center + rng.normal(0, 0.03 * width, 2).astype(np.float32)
    return np.roll(shifted.astype(np.float32), 2 * int(rng.random() < 0.5), axis=0)


def _write_pile_crop_item(job: tuple[str, int, str, int]) -> int:
    """Cut a few cards out of a whole pile photo, as the recogniser cuts them.

    Single-card crops cannot show what a pile does to a card: neighbours covering a third
    (rows) or half (cascade) of it, a turned card over its corner (scatter). Only cards showing
    at least the share they are labelled from for the detector (`GeneratorConfig.min_visible`)
    are cut.
    """
    split, index, out, crop_size = job
    rng = scene_rng(split, index, stream=4)
    scene = render_pile(rng, PILE_CROP_LAYOUT_WEIGHTS)
    showing = [c for c in scene.cards if c.visible >= _state().config.min_visible(scene.layout)]
    weights = pile_crop_weights(showing, _state().config.lookalike_weight)
    picked = rng.choice(
        len(showing), size=min(PILE_CROPS_PER_SCENE, len(showing)), replace=False, p=weights
    )
    for k in picked:
        card = showing[k]
        crop = warp_crop(scene.image, pile_crop_quad(rng, card.quad), crop_size)
        path = Path(out) / split / card.code / crop_name("pile", split, index, k)
        cv2.imwrite(str(path), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return len(picked)


def _is_clear_of_cards(quad: np.ndarray, cards: list[np.ndarray], shape: tuple[int, int]) -> bool:
    """Mostly inside the photo, and no more than a sliver of any card in it."""
    h, w = shape
    inside = intersection_area(quad, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32))
    if inside < 0.7 * polygon_area(quad):
        return False
    for card in cards:
        iou, covered = overlap(quad, card)
        if iou > NEGATIVE_MAX_IOU or covered > 0.3:
            return False
    return True


def negative_quads(
    rng: np.random.Generator,
    cards: list[np.ndarray],
    lookalikes: list[np.ndarray],
    card_width: float,
    shape: tuple[int, int],
    count: int,
    pip_share: float = 0.15,
) -> list[np.ndarray]:
    """Up to `count` card-shaped quads where there is no card, as a detector might wrongly draw.

    Mostly card-sized boxes on the table (beside the cards, on a patterned cloth, in a shadow),
    on card backs and phones where there are any, and now and then a small box on a card's
    pips (what the detector draws on a close-up when it takes a pip for a card).
    """
    out: list[np.ndarray] = []
    candidates = [pile_crop_quad(rng, np.array(q, np.float32)) for q in lookalikes]
    for _ in range(count * 12):
        if len(out) >= count:
            break
        if candidates:
            quad = candidates.pop()
        elif cards and rng.random() < pip_share:
            card = cards[rng.integers(len(cards))]
            cx, cy = card.mean(0) + rng.uniform(-0.25, 0.25, 2) * card_width
            width = float(np.linalg.norm(card[1] - card[0])) * rng.uniform(0.2, 0.4)
            quad = card_quad(cx, cy, width, rng.uniform(0, 360))
            # Lying on a card by design, so only the IoU rule applies, not _is_clear_of_cards.
            if max(polygon_iou(quad, c) for c in cards) <= NEGATIVE_MAX_IOU:
                out.append(quad)
            continue
        else:
            h, w = shape
            quad = card_quad(
                rng.uniform(0, w),
                rng.uniform(0, h),
                card_width * rng.uniform(0.6, 1.4),
                rng.uniform(0, 360)
                if rng.random() < 0.5
                else rng.normal(0, 4) + 180 * rng.integers(2),
            )
        if _is_clear_of_cards(quad, cards, shape):
            out.append(quad)
    return out


def _write_negative_item(job: tuple[str, int, str, int]) -> int:
    """Crops with no card in them, from a generated pile (or, for training, a real photo)."""
    split, index, out, crop_size = job
    rng = scene_rng(split, index, stream=5)
    if split == "train" and _state().real_photos and rng.random() < 0.2:
        _code, photo, quad = _state().real_photos[rng.integers(len(_state().real_photos))]
        image = photometric.camera(rng, photo.astype(np.float32))
        cards, lookalikes = [quad], []
        card_width = float(np.linalg.norm(quad[1] - quad[0])) * rng.uniform(0.35, 0.7)
    else:
        scene = render_pile(rng, LAYOUT_WEIGHTS, few_share=FEW_CARDS, distractor_rate=0.7)
        image, lookalikes = scene.image, scene.lookalikes
        cards = [c.quad for c in scene.cards]
        card_width = float(np.median([np.linalg.norm(q[1] - q[0]) for q in cards]))
    quads = negative_quads(rng, cards, lookalikes, card_width, image.shape[:2], NEGATIVES_PER_SCENE)
    for k, quad in enumerate(quads):
        crop = warp_crop(image, quad, crop_size)
        path = Path(out) / split / NOT_A_CARD / crop_name("none", split, index, k)
        cv2.imwrite(str(path), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return len(quads)


def split_jobs(counts: tuple[int, int], *args) -> list[tuple]:
    """The jobs of `counts` = (train, val) images: (split, index, *args) each."""
    return [(split, i, *args) for split, n in zip(SPLIT_IDS, counts, strict=True) for i in range(n)]


def make_crop_folders(out: Path) -> None:
    """The identifier's class folders, one per card and `none/`, in each split."""
    for split in SPLIT_IDS:
        for code in (*CARD_CODES, NOT_A_CARD):
            (out / split / code).mkdir(parents=True, exist_ok=True)


def run_jobs(func: Callable, jobs: list, config: GeneratorConfig, workers: int, desc: str) -> list:
    results = []
    if workers <= 1:
        init_worker(config)
        for job in tqdm(jobs, desc=desc, unit="img"):
            results.append(func(job))
        return results
    with mp.get_context("fork").Pool(workers, initializer=init_worker, initargs=(config,)) as pool:
        for result in tqdm(
            pool.imap(func, jobs, chunksize=4), total=len(jobs), desc=desc, unit="img"
        ):
            results.append(result)
    return results


def make_detection_dataset(
    out: Path,
    config: GeneratorConfig,
    n_train: int,
    n_val: int,
    size: tuple[int, int] = (1024, 768),
    workers: int = 2,
) -> Path:
    """Write the one-class oriented-box dataset; returns its data.yaml."""
    out = Path(out)
    for split in SPLIT_IDS:
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    jobs = split_jobs((n_train, n_val), str(out), size)
    run_jobs(_write_detect_item, jobs, config, workers, "detector scenes")
    _write_real_detection_photos(out, config)
    yaml = out / "data.yaml"
    yaml.write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: card\n"
    )
    return yaml


def _write_real_detection_photos(out: Path, config: GeneratorConfig) -> int:
    """Add the real photos whose card corners are known to the detector's training split.

    They bring real paper, light and table cloths that no renderer imitates well, and a card
    that fills most of the photo, as in a close-up.
    """
    count = 0
    for code, deck, photo, quad in face_lib.iter_real_photos(
        config.shared, config.exclude_real_decks
    ):
        h, w = photo.shape[:2]
        stem = f"real_{deck}_{code}"
        cv2.imwrite(
            str(out / "images" / "train" / f"{stem}.jpg"), photo, [cv2.IMWRITE_JPEG_QUALITY, 95]
        )
        corners = (quad / np.array([w, h], np.float32)).clip(0, 1).ravel()
        (out / "labels" / "train" / f"{stem}.txt").write_text(
            "0 " + " ".join(f"{v:.6f}" for v in corners) + "\n"
        )
        count += 1
    return count


def _split_closeups(detect_dir: Path, max_cards: int) -> tuple[list[Path], list[Path]]:
    """The training photos of a detector dataset: (close-ups, piles). A close-up is a real photo
    or a scene of at most `max_cards` cards."""
    closeups: list[Path] = []
    piles: list[Path] = []
    for image in sorted((detect_dir / "images" / "train").glob("*.jpg")):
        label = detect_dir / "labels" / "train" / f"{image.stem}.txt"
        n = sum(1 for line in label.read_text().splitlines() if line.strip())
        (closeups if image.stem.startswith("real_") or n <= max_cards else piles).append(image)
    return closeups, piles


def _write_listing(detect_dir: Path, name: str, images: list[Path]) -> Path:
    """A training list of `images` with `detect_dir`'s validation split, as an ultralytics yaml."""
    listing = detect_dir / f"{name}.txt"
    listing.write_text("".join(f"{p.resolve()}\n" for p in images))
    yaml = detect_dir / f"{name}.yaml"
    yaml.write_text(
        f"path: {detect_dir.resolve()}\ntrain: {listing.resolve()}\nval: images/val\nnames:\n  0: card\n"
    )
    return yaml


def write_closeup_mix(
    detect_dir: Path, n_piles: int = 200, seed: int = 0, max_cards: int = 6
) -> Path:
    """A fine-tuning split for the detector where close-ups weigh as much as whole piles.

    In the full split a big card is a few percent of all card instances, and the detector
    learns close-ups poorly. This split lists every real photo and every scene of at most
    `max_cards` cards, plus `n_piles` whole piles so as not to forget them. Returns its yaml.
    """
    detect_dir = Path(detect_dir)
    closeups, piles = _split_closeups(detect_dir, max_cards)
    rng = np.random.default_rng(seed)
    chosen = closeups + [
        piles[i]
        for i in sorted(rng.choice(len(piles), size=min(n_piles, len(piles)), replace=False))
    ]
    return _write_listing(detect_dir, "closeup_mix", chosen)


def write_training_mix(detect_dirs: list[Path], closeup_repeats: int, max_cards: int = 6) -> Path:
    """One training split over several detector datasets, close-ups listed `closeup_repeats` times.

    Fine-tuning on piles alone makes the detector forget close-ups (boxes fall on the pips of
    a big card); fine-tuning on close-ups alone costs piles. Listing both, with the few
    close-ups repeated, keeps both in every epoch. Validation is the first dataset's.
    Returns its yaml, written in the first dataset's folder.
    """
    dirs = [Path(d) for d in detect_dirs]
    chosen: list[Path] = []
    for detect_dir in dirs:
        closeups, piles = _split_closeups(detect_dir, max_cards)
        chosen += piles + closeups * closeup_repeats
    return _write_listing(dirs[0], "training_mix", chosen)


def make_identification_dataset(
    out: Path,
    config: GeneratorConfig,
    n_train: int,
    n_val: int,
    crop_size: int = 160,
    workers: int = 2,
    pile_scenes: tuple[int, int] = (0, 0),
    negative_scenes: tuple[int, int] = (0, 0),
) -> Path:
    """Write the crop dataset (a folder per card, and `none/`); returns its root.

    `pile_scenes` (train, val) adds up to PILE_CROPS_PER_SCENE cards cut from that many whole
    pile photos (`pile_*.jpg`); `negative_scenes` up to NEGATIVES_PER_SCENE crops with no card
    from that many photos (`none/`). Crops cut with a trained detector's own boxes are added
    by `mining.mine_detector_crops`. With n_train = n_val = 0 they are added to an existing set.
    """
    out = Path(out)
    make_crop_folders(out)
    for write, counts, desc in (
        (_write_identify_item, (n_train, n_val), "identifier crops"),
        (_write_pile_crop_item, pile_scenes, "cards cut from piles"),
        (_write_negative_item, negative_scenes, "crops with no card"),
    ):
        jobs = split_jobs(counts, str(out), crop_size)
        if jobs:
            run_jobs(write, jobs, config, workers, desc)
    return out


def iter_scenes(
    config: GeneratorConfig, split: str, indices: Iterable[int], size=(1024, 768), **kwargs
):
    """Scenes for benchmarks and tests, in this process."""
    if _worker is None or _worker.config != config:
        init_worker(config)
    for index in indices:
        yield scene_for(split, index, size, **kwargs)


def hand_scenes(
    config: GeneratorConfig, index: int, layout: str, size=(1024, 768), n_sides: int = 2
):
    """A whole hand: the 40 cards of one deck split between `n_sides` piles, one photo each.

    Returns a list of (codes, scene) per side. Used by the hand benchmark, never for training.
    """
    if _worker is None or _worker.config != config:
        init_worker(config)
    rng = scene_rng("val", index, stream=3)
    deck = _pick_deck(rng)
    while len(deck) < 40:  # a real deck with a photo whose corners were not found: use a full one
        deck = _pick_deck(rng)
    order = rng.permutation(len(deck))
    cuts = (
        np.sort(rng.choice(np.arange(12, 29), size=n_sides - 1, replace=False))
        if n_sides == 2
        else np.sort(rng.choice(np.arange(6, 35), size=n_sides - 1, replace=False))
    )
    piles = np.split(order, cuts)
    hand = []
    for pile in piles:
        faces = [deck[i] for i in pile]
        # Both sides' photos are taken from wherever that side sits: each its own turn.
        scene = render_scene(
            rng,
            _state().assets,
            faces,
            layout,
            size=size if rng.random() < 0.5 else (size[1], size[0]),
            turn=draw_turn(rng, _state().config.any_angle_share),
        )
        hand.append(([f.code for f in faces], scene))
    return hand
