"""Speed and whole-hand benchmarks (run by `scopa bench`; figures go in the model card)."""

from __future__ import annotations

import functools
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import cv2
import numpy as np


def speed(
    make_recognizer: Callable,
    photo: np.ndarray,
    repeats: int = 5,
    workdir: Path | None = None,
    hand_photos: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
    rules=None,
) -> dict:
    """Model loading time, and median time to decode + recognise one photo saved as a JPEG;
    with `hand_photos` (name -> the two sides' photos) and `rules`, also the median time of
    each whole two-photo hand: both photos decoded and recognised, and reconciled."""
    started = time.perf_counter()
    recognizer = make_recognizer()
    load_seconds = time.perf_counter() - started
    workdir = workdir or Path(".")
    path = _saved(photo, workdir / "bench-photo.jpg")
    times, result = _timed(lambda: recognizer.recognize(path), repeats)
    report = {
        "photo": f"{photo.shape[1]}x{photo.shape[0]}",
        "cards_found": len(result.cards),
        "load_seconds": round(load_seconds, 2),
        "median_seconds": round(statistics.median(times), 3),
        "times": [round(t, 3) for t in times],
    }
    path.unlink()
    hand_seconds = {}
    for name, sides in (hand_photos or {}).items():
        paths = [_saved(side, workdir / f"bench-hand-{k}.jpg") for k, side in enumerate(sides)]
        hand_times, _ = _timed(
            functools.partial(_two_photo_hand, recognizer, paths, rules), repeats
        )
        hand_seconds[name] = round(statistics.median(hand_times), 3)
        for p in paths:
            p.unlink()
    if hand_seconds:
        report["two_photo_hand_median_seconds"] = hand_seconds
    return report


def _two_photo_hand(recognizer, paths: list[Path], rules):
    from vision.reconcile import reconcile

    return reconcile({f"S{k + 1}": [recognizer.recognize(p)] for k, p in enumerate(paths)}, rules)


def _saved(photo: np.ndarray, path: Path) -> Path:
    cv2.imwrite(str(path), photo, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path


def _timed(work: Callable, repeats: int) -> tuple[list[float], Any]:
    """Seconds of each of `repeats` runs of `work` after a warm-up run (the first call
    initialises kernels), and the last run's result."""
    result = work()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
    return times, result


def hands(
    recognizer,
    hands_iter: Iterable[tuple[str, list[tuple[list[str], object]]]],
    rules,
    progress: Callable[[Iterable], Iterable] = iter,
) -> dict:
    """Two-side hands from generated photos: are the card sets, and the determinate scores, right?

    `hands_iter` gives (layout, [(codes, scene)] per side), a scene as `scopa_datasets` draws
    it; the photos' cards are also counted one by one (`SceneReport`: by visible share and lie).
    Each hand is also reconciled from its photos as a detector that found exactly the cards
    showing at least a quarter of themselves would give them (`true_outline_photo`):
    "determinate from true outlines" tells the hands lost to the boxes from those lost to the
    readings and the layout. It is no bound: the detector also finds some cards showing less.
    "advised_to_lay_out" counts the hands whose advice asks for the cards laid out otherwise
    (a quarter of the deck or more read nowhere, as a hand fan leaves it).
    """
    from scoring import SideInput, score_hand
    from scoring.provisional import ProvisionalResult
    from vision.evaluate import (
        SceneReport,
        scene_truth,
        true_outline_photo,
        true_outline_reads,
    )
    from vision.reconcile import reconcile
    from vision.reconcile.advice import LAY_OUT_ADVICE

    stats: dict[str, Counter] = {}
    photos = SceneReport()
    times = []
    for layout, hand in progress(hands_iter):
        s = stats.setdefault(layout, Counter())
        started = time.perf_counter()
        results = [recognizer.recognize(scene.image) for _, scene in hand]
        sides = {f"S{i + 1}": [result] for i, result in enumerate(results)}
        recon = reconcile(sides, rules)
        times.append(time.perf_counter() - started)
        outline_photos = []
        for side, ((_, scene), result) in enumerate(zip(hand, results, strict=True), start=1):
            truth_cards = scene_truth(scene)
            outline_photos.append(true_outline_photo(recognizer, scene.image, truth_cards))
            photos.add(
                layout,
                truth_cards,
                result,
                read_from_outlines=true_outline_reads(outline_photos[-1], truth_cards),
                photo=f"{layout} hand {s['hands'] + 1} side S{side}",
            )
        from_outlines = reconcile(
            {f"S{i + 1}": [photo] for i, photo in enumerate(outline_photos)}, rules
        )
        truth = {f"S{i + 1}": set(codes) for i, (codes, _) in enumerate(hand)}
        got = {name: {c.code for c in cards} for name, cards in recon.sides.items()}
        s["hands"] += 1
        s["cards"] += 40
        s["exact_hands"] += all(got.get(k, set()) == v for k, v in truth.items())
        s["right_side"] += sum(len(got.get(k, set()) & v) for k, v in truth.items())
        s["determinate"] += bool(recon.determinate)
        s["determinate_from_outlines"] += bool(from_outlines.determinate)
        s["advised_to_lay_out"] += any(item.key == LAY_OUT_ADVICE for item in recon.advice)
        if recon.determinate:
            true_score = score_hand(
                {k: SideInput(frozenset(_cards(v)), 0) for k, v in truth.items()}, rules
            )
            # A provisional result wraps the hand's result.
            scored = (
                recon.score.result if isinstance(recon.score, ProvisionalResult) else recon.score
            )
            s["determinate_wrong"] += any(
                scored.sides[k].points != true_score.sides[k].points for k in true_score.sides
            )
    out = {}
    for layout, s in sorted(stats.items()):
        out[layout] = {
            "hands": s["hands"],
            "exact_hands": s["exact_hands"],
            "cards_on_right_side": round(s["right_side"] / s["cards"], 4),
            "determinate": s["determinate"],
            "determinate_but_wrong": s["determinate_wrong"],
            "determinate_from_outlines": s["determinate_from_outlines"],
            "advised_to_lay_out": s["advised_to_lay_out"],
        }
    total_cards = sum(s["cards"] for s in stats.values())
    return {
        "layouts": out,
        "all_cards_on_right_side": round(
            sum(s["right_side"] for s in stats.values()) / max(total_cards, 1), 4
        ),
        "hands": sum(s["hands"] for s in stats.values()),
        "exact_hands": sum(s["exact_hands"] for s in stats.values()),
        "determinate": sum(s["determinate"] for s in stats.values()),
        "determinate_but_wrong": sum(s["determinate_wrong"] for s in stats.values()),
        "determinate_from_outlines": sum(s["determinate_from_outlines"] for s in stats.values()),
        "advised_to_lay_out": sum(s["advised_to_lay_out"] for s in stats.values()),
        "photos": photos.to_dict(),
        "median_seconds_per_hand": round(statistics.median(times), 3) if times else None,
    }


def _cards(codes):
    from scoring import parse_card

    return [parse_card(c) for c in codes]
