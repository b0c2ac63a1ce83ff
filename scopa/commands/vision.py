"""`scopa make-dataset`, `train`, `export`, `detect`, `eval`, `bench`: the recognition commands."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from scoring.errors import ScopaError

from .checks import output_folder

if TYPE_CHECKING:  # the vision stack is imported by the commands that use it
    from vision.pipeline import CardRecognizer, RecognizerSettings

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SHARED = PROJECT_ROOT.parent / "shared"
DEFAULT_DATA = PROJECT_ROOT / "datasets" / "generated"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "make-dataset",
        help="generate synthetic training data for the detector and the identifier",
        description="Render synthetic pile photos and card crops (reproducible from --seed).",
    )
    p.add_argument(
        "--out", type=Path, default=DEFAULT_DATA, help="output folder (default: datasets/generated)"
    )
    p.add_argument(
        "--shared",
        type=Path,
        default=DEFAULT_SHARED,
        help="folder with decks/ and real/ (default: ../shared)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scenes", type=int, default=700, help="training pile photos for the detector")
    p.add_argument("--val-scenes", type=int, default=60)
    p.add_argument("--crops", type=int, default=8000, help="training card crops for the identifier")
    p.add_argument("--val-crops", type=int, default=800)
    p.add_argument(
        "--pile-scenes",
        type=int,
        default=2000,
        help="pile photos to cut identifier crops from (6 cards each; a tenth more for validation)",
    )
    p.add_argument(
        "--negative-scenes",
        type=int,
        default=400,
        help="photos to cut crops with no card from, for the identifier's `none` class (a tenth more for validation)",
    )
    p.add_argument(
        "--detector-box-scenes",
        type=int,
        default=0,
        help="pile photos on which the detector's own boxes are cut for the identifier, cards "
        "and `none` (a tenth more for validation)",
    )
    p.add_argument(
        "--hard-negative-scenes",
        type=int,
        default=0,
        help="photos on which the detector's boxes on no card, even weak ones, are cut as "
        "`none` for the identifier (a tenth more for validation)",
    )
    p.add_argument(
        "--detector-models",
        type=Path,
        default=None,
        help="folder with the detector.pt that draws the boxes of the two options above "
        "(default: models/)",
    )
    p.add_argument(
        "--heaps",
        action="store_true",
        help="draw the detector's piles mostly as cascades and scatters (70%%, not 40%%)",
    )
    p.add_argument(
        "--any-angle-share",
        type=float,
        default=None,
        metavar="S",
        help="share of piles turned by any angle rather than by about a quarter turn, 0 to 1 "
        "(default 0.1)",
    )
    p.add_argument(
        "--hand-fan-min-visible",
        type=float,
        default=None,
        metavar="F",
        help="label a hand fan's cards, and cut them for the identifier, when they show at "
        "least this share of themselves, above 0 and at most 1 (default 0.25, as every layout)",
    )
    p.add_argument(
        "--cascade-min-visible",
        type=float,
        default=None,
        metavar="F",
        help="the same for the cards of cascades and columns by suit (default 0.25)",
    )
    p.add_argument(
        "--lookalike-weight",
        type=float,
        default=1.0,
        metavar="W",
        help="identifier pile crops: cut partly covered 3s to 7s (whose strips look alike) W "
        "times as often as other cards (default 1)",
    )
    p.add_argument(
        "--hold-out-deck",
        action="append",
        default=[],
        metavar="DECK",
        help="keep a real/dev deck out of training (repeatable)",
    )
    p.add_argument(
        "--only", choices=["detector", "identifier"], help="build one of the two datasets"
    )
    _add_piles_decks_option(p)
    p.add_argument("--workers", type=int, default=2)
    p.set_defaults(handler=make_dataset)

    p = subparsers.add_parser(
        "train",
        help="train the detector and/or identifier from their yaml (offline, resumable)",
        description="Train on datasets written by make-dataset; weights go to runs/<model>/ and, with --install, models/.",
    )
    p.add_argument("model", choices=["detector", "identifier"])
    p.add_argument(
        "--data",
        type=Path,
        action="append",
        help="dataset folder written by make-dataset (default: datasets/generated); "
        "repeat it to train the detector on several",
    )
    p.add_argument("--epochs", type=int, default=None)
    p.add_argument("--imgsz", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue the interrupted run from runs/<model>/weights/last.pt",
    )
    p.add_argument(
        "--init",
        type=Path,
        metavar="WEIGHTS",
        help="start from weights trained earlier instead of the yaml",
    )
    p.add_argument(
        "--closeup-mix",
        action="store_true",
        help="detector: train on the close-up mix (every real photo and few-card scene, 200 piles)",
    )
    p.add_argument(
        "--closeup-repeats",
        type=int,
        default=None,
        metavar="N",
        help="detector: train on every photo of every --data folder, with the real photos and "
        "few-card scenes listed N times",
    )
    p.add_argument("--device", default="cpu", help="cpu (default) or a CUDA device index such as 0")
    p.add_argument("--batch", type=int, default=None, help="images a step (default: 16 / 64)")
    p.add_argument("--workers", type=int, default=None, help="data-loading processes (default: 2)")
    p.add_argument(
        "--hours",
        type=float,
        default=None,
        help="train for this long instead of --epochs (the schedule is fitted to the time)",
    )
    p.add_argument(
        "--lr",
        type=float,
        default=None,
        help="starting learning rate (default: the recipe's; smaller suits a short fine-tune)",
    )
    p.add_argument(
        "--install",
        action="store_true",
        help="copy the best weights to models/<model>.pt when done",
    )
    p.set_defaults(handler=train)

    p = subparsers.add_parser(
        "export",
        help="export the trained models of models/ to ONNX, for the runtime (needs the [train] extra)",
        description="Export every detector*.pt and identifier*.pt of the models folder to ONNX "
        "with ultralytics (dynamic input size), beside its .pt; record the .pt each came from "
        "(by hash) in onnx.json and in the model card. Run it after every `scopa train --install`.",
    )
    p.add_argument(
        "--models", type=Path, default=None, help="folder of the .pt weights (default: models/)"
    )
    p.set_defaults(handler=export)

    p = subparsers.add_parser(
        "detect",
        help="find and identify the cards in photos",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Find and identify every card in each photo.",
        epilog="example:\n  scopa detect pile.jpg --annotate out/\n  scopa detect a.jpg b.heic --json",
    )
    p.add_argument("images", nargs="+", type=Path)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument(
        "--annotate",
        type=Path,
        metavar="DIR",
        help="write each photo with its cards outlined to DIR",
    )
    p.add_argument(
        "--deck", default="napoletane", help="deck style: napoletane (default) or francesi"
    )
    p.set_defaults(handler=detect)

    p = subparsers.add_parser(
        "eval",
        help="measure recognition accuracy on single-card photos and generated piles",
        description="Accuracy on a folder laid out like real/dev (<deck>/<code>.jpg) and on generated pile photos.",
    )
    p.add_argument(
        "--photos",
        type=Path,
        action="append",
        default=None,
        help="single-card photo folder (default: ../shared/real/dev)",
    )
    p.add_argument(
        "--scenes", type=int, default=40, help="generated pile photos per layout (0 to skip)"
    )
    p.add_argument(
        "--seed", type=int, default=1000, help="seed of the generated piles (training used 0)"
    )
    p.add_argument("--deck", default="napoletane")
    _add_piles_decks_option(p)
    _add_models_option(p)
    p.add_argument(
        "--size",
        type=_photo_size,
        default=(1024, 768),
        metavar="WxH",
        help="size of the generated pile photos (default 1024x768; portrait or landscape is drawn)",
    )
    _add_settings_option(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=evaluate)

    p = subparsers.add_parser(
        "bench",
        help="time recognition on a 12-megapixel pile photo, and score generated two-side hands",
        description="speed: model loading and median time for one 12 MP photo of 20 cards. "
        "hands: generated hands (40 cards in two piles, one photo each) through recognition and reconciliation.",
    )
    p.add_argument("what", choices=["speed", "hands"])
    p.add_argument("--hands", type=int, default=10, help="hands per layout (hands benchmark)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seed", type=int, default=2000)
    _add_piles_decks_option(p)
    _add_models_option(p)
    _add_settings_option(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=bench)


def _add_piles_decks_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--piles-deck",
        dest="piles_decks",
        action="append",
        default=[],
        metavar="DECK",
        help="draw the generated piles from this deck only (datasets/build.py: DECK_WEIGHTS); "
        "repeat for more (default: every deck, as in training). 'real': cards cut from photos "
        "of physical decks",
    )


def _generated_piles(args: argparse.Namespace):
    """The generator's settings for the piles of `scopa eval` and `scopa bench`."""
    from scopa_datasets.build import GeneratorConfig

    try:
        return GeneratorConfig(shared=DEFAULT_SHARED, seed=args.seed, decks=tuple(args.piles_decks))
    except ValueError as error:
        raise ScopaError(str(error)) from None


def _add_models_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--models",
        type=Path,
        default=None,
        help="folder with detector.pt and identifier.pt to measure instead of the committed "
        "models/ (e.g. a candidate from `scopa train`, or an identifier trained with "
        "--hold-out-deck)",
    )


def _add_settings_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--set",
        dest="settings",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="measure with a recogniser setting changed (vision/pipeline.py: RecognizerSettings), "
        "e.g. --set same_card_iou=0.5; repeat for more",
    )


def _photo_size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    if not (width.isdigit() and height.isdigit() and int(width) > 0 and int(height) > 0):
        raise argparse.ArgumentTypeError(f"not a photo size like 1600x1200: {text!r}")
    return int(width), int(height)


def _progress(desc: str, total: int | None = None):
    """A progress-bar wrapper for long loops, on stderr so that --json output stays clean."""
    from tqdm import tqdm

    return lambda items: tqdm(items, total=total, desc=desc, file=sys.stderr)


def _require_train_extra(command: str, modules: tuple[str, ...] | None = None) -> None:
    """One line, not a traceback, when the training tools are not installed."""
    from vision import yolo_env

    missing = yolo_env.missing_modules(modules or yolo_env.TRAINING_MODULES)
    if missing:
        raise ScopaError(
            f"{command} needs the training tools ({', '.join(missing)} missing): "
            "install them with `pip install -e '.[train]'`"
        )


def export(args: argparse.Namespace) -> int:
    from vision import yolo_env

    _require_train_extra("export", yolo_env.EXPORT_MODULES)
    from vision.export import export_models
    from vision.pipeline import MODELS_DIR

    models = args.models or Path(MODELS_DIR)
    if not any(models.glob("*.pt")):
        raise ScopaError(f"{models}: no .pt weights to export")
    for name, record in export_models(models).items():
        print(f"{models / name}: from {record['source']} (sha256 {record['source_sha256'][:12]})")
    return 0


# The make-dataset options whose name is not their GeneratorConfig field's.
_GENERATOR_FLAGS = {"exclude_real_decks": "hold-out-deck", "decks": "piles-deck"}


def make_dataset(args: argparse.Namespace) -> int:
    _require_train_extra("make-dataset")
    from scopa_datasets.build import (
        GeneratorConfig,
        GeneratorSettingError,
        make_detection_dataset,
        make_identification_dataset,
    )
    from scopa_datasets.mining import mine_detector_crops

    if not 0 < args.lookalike_weight < float("inf"):
        raise ScopaError(
            f"--lookalike-weight must be a number above 0, not {args.lookalike_weight}"
        )
    if not (args.shared / "decks").is_dir():
        raise ScopaError(f"{args.shared}: no decks/ folder here (give --shared)")
    # A share not given keeps GeneratorConfig's default; GeneratorConfig checks those given.
    shares = {
        name: value
        for name, value in (
            ("hand_fan_min_visible", args.hand_fan_min_visible),
            ("cascade_min_visible", args.cascade_min_visible),
            ("any_angle_share", args.any_angle_share),
        )
        if value is not None
    }
    try:
        config = GeneratorConfig(
            shared=args.shared,
            seed=args.seed,
            exclude_real_decks=tuple(args.hold_out_deck),
            heaps=args.heaps,
            lookalike_weight=args.lookalike_weight,
            decks=tuple(args.piles_decks),
            **shares,
        )
    except GeneratorSettingError as error:
        flag = _GENERATOR_FLAGS.get(error.setting, error.setting.replace("_", "-"))
        raise ScopaError(f"--{flag}: {error}") from None
    if args.only in (None, "detector"):
        yaml = make_detection_dataset(
            args.out / "detect", config, args.scenes, args.val_scenes, workers=args.workers
        )
        print(f"detector dataset: {yaml}")
    if args.only in (None, "identifier"):
        root = make_identification_dataset(
            args.out / "identify",
            config,
            args.crops,
            args.val_crops,
            workers=args.workers,
            pile_scenes=(args.pile_scenes, args.pile_scenes // 10),
            negative_scenes=(args.negative_scenes, args.negative_scenes // 10),
        )
        if args.detector_box_scenes or args.hard_negative_scenes:
            mine_detector_crops(
                root,
                config,
                workers=args.workers,
                detector_box_scenes=(args.detector_box_scenes, args.detector_box_scenes // 10),
                hard_negative_scenes=(args.hard_negative_scenes, args.hard_negative_scenes // 10),
                detector_models=args.detector_models,
            )
        print(f"identifier dataset: {root}")
    return 0


def train(args: argparse.Namespace) -> int:
    _require_train_extra("train")
    from vision import train as training

    # The options given, over the defaults of the model's TrainSpec.
    given = ("epochs", "imgsz", "batch", "workers")
    overrides = {k: getattr(args, k) for k in given if getattr(args, k) is not None}
    folders = args.data or [DEFAULT_DATA]
    if len(folders) > 1 and (args.model != "detector" or args.closeup_repeats is None):
        raise ScopaError("several --data folders need `detector --closeup-repeats N`")
    if args.closeup_repeats is not None and args.closeup_repeats < 1:
        raise ScopaError(f"--closeup-repeats {args.closeup_repeats}: give 1 or more")
    # What each folder must hold; a resumed run reads its data from its own saved arguments.
    wanted = [f / ("detect/data.yaml" if args.model == "detector" else "identify") for f in folders]
    missing = [path for path in wanted if not path.exists()]
    if missing and not args.resume:
        raise ScopaError(f"{missing[0]}: no dataset here; run `scopa make-dataset` first")
    data = wanted[0]
    if args.model == "detector":
        if args.closeup_repeats is not None and not missing:
            from scopa_datasets.build import write_training_mix

            data = write_training_mix([f / "detect" for f in folders], args.closeup_repeats)
        elif args.closeup_mix and not missing:
            from scopa_datasets.build import write_closeup_mix

            data = write_closeup_mix(folders[0] / "detect", seed=args.seed)
        spec = training.detector_spec(data, seed=args.seed)
    else:
        spec = training.identifier_spec(data, seed=args.seed)
    if args.init:
        if not args.init.is_file():
            raise ScopaError(f"{args.init}: no such weights file")
        spec = replace(spec, init_weights=str(args.init))
    if args.hours is not None and args.hours <= 0:
        raise ScopaError(f"--hours {args.hours}: give a positive number of hours")
    if args.lr is not None and not 0 < args.lr < 1:
        raise ScopaError(f"--lr {args.lr}: give a learning rate between 0 and 1")
    spec = replace(spec, device=args.device, hours=args.hours, lr0=args.lr, **overrides)
    best = training.train(spec, resume=args.resume)
    print(f"best weights: {best}")
    if args.install:
        print(f"installed: {training.install_weights(best, args.model)}")
        print("run `scopa export` for the runtime to use it (until then ultralytics runs it)")
    return 0


def _recognizer(
    deck: str, models: Path | None = None, settings: RecognizerSettings | None = None
) -> CardRecognizer:
    """The recogniser for `deck`: the committed models or those in `models`, with `settings`
    (`_chosen_settings`) if given."""
    from vision import get_recognizer
    from vision.pipeline import CardRecognizer, ModelsMissingError

    if models is not None and not models.is_dir():
        raise ScopaError(f"{models}: not a folder (give one holding detector.pt and identifier.pt)")
    try:
        if settings is not None:
            return CardRecognizer(models_dir=models, deck=deck, settings=settings)
        return get_recognizer(deck=deck, models_dir=str(models) if models else None)
    except ModelsMissingError as exc:
        raise ScopaError(
            f"{exc}; train them with `scopa train` or restore models/ from git"
        ) from None


def _chosen_settings(items: Sequence[str]) -> RecognizerSettings | None:
    """The recogniser's settings with the `--set NAME=VALUE` changes, or None for none."""
    from vision.pipeline import RecognizerSettings

    if not items:
        return None
    changes = {}
    for item in items:
        name, equals, value = item.partition("=")
        if not equals:
            raise ScopaError(f"--set {item}: give NAME=VALUE, e.g. same_card_iou=0.5")
        changes[name.strip()] = value
    try:
        return RecognizerSettings().overridden(changes)
    except ValueError as exc:
        raise ScopaError(f"--set: {exc}") from None


def detect(args: argparse.Namespace) -> int:
    import cv2
    from tqdm import tqdm

    from vision import ImageError, annotate, load_image

    if args.annotate:
        output_folder(args.annotate, "--annotate")
    recognizer = _recognizer(args.deck)
    results, failures = [], 0
    for path in tqdm(
        args.images, desc="photos", unit="photo", disable=len(args.images) < 2, file=sys.stderr
    ):
        try:
            result = recognizer.recognize(path)
        except ImageError as exc:
            failures += 1
            print(f"scopa detect: error: {exc}", file=sys.stderr)
            results.append({"path": str(path), "error": str(exc)})
            continue
        results.append(result.to_dict())
        if args.annotate:
            args.annotate.mkdir(parents=True, exist_ok=True)
            drawn = annotate(load_image(path), result)
            cv2.imwrite(
                str(args.annotate / f"{path.stem}.jpg"), drawn, [cv2.IMWRITE_JPEG_QUALITY, 90]
            )
        if not args.json:
            _print_table(result)
    if args.json:
        print(json.dumps({"images": results}, indent=2))
    return 2 if failures else 0


def _print_table(result) -> None:
    from scoring import parse_card

    doubtful = f", {len(result.doubtful)} doubtful boxes set apart" if result.doubtful else ""
    print(f"{result.path}  ({result.width}x{result.height}): {len(result.cards)} cards{doubtful}")
    for i, card in enumerate(result.cards, 1):
        x, y = card.quad.mean(0)
        print(
            f"  {i:2d}  {card.card:>3}  {parse_card(card.card).name_it:<22} {card.confidence:6.1%}   at ({x:.0f}, {y:.0f})"
        )


def evaluate(args: argparse.Namespace) -> int:
    from vision import evaluate as ev

    piles = _generated_piles(args)  # a bad --piles-deck fails before the models load
    recognizer = _recognizer(args.deck, args.models, _chosen_settings(args.settings))
    report: dict = {}
    for folder in args.photos or [DEFAULT_SHARED / "real" / "dev"]:
        if not folder.is_dir():
            raise ScopaError(f"{folder}: not a folder")
        single = ev.evaluate_single_cards(
            recognizer,
            folder,
            progress=_progress(f"photos in {folder.name}"),
        )
        report[str(folder)] = single.to_dict()
        corners = ev.evaluate_identifier_on_corners(
            recognizer, folder, progress=_progress(f"identifier on the corners of {folder.name}")
        )
        if corners is not None:
            report[f"{folder} (identifier on given corners)"] = corners.to_dict()
    if args.scenes:
        from scopa_datasets.build import iter_scenes
        from scopa_datasets.scenes import LAYOUTS

        scene_report = ev.SceneReport()
        for layout in LAYOUTS:
            scenes = iter_scenes(piles, "val", range(args.scenes), size=args.size, layout=layout)
            ev.evaluate_scenes(
                recognizer,
                scenes,
                progress=_progress(f"{layout} piles", args.scenes),
                report=scene_report,
            )
        report["generated"] = scene_report.to_dict()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print_eval(report)
    return 0


def _print_eval(report: dict) -> None:
    for name, part in report.items():
        if name == "generated":
            _print_piles("generated piles", part)
            continue
        print(f"{name}: {part['correct']}/{part['photos']} = {part['accuracy']:.2%}")
        for deck, s in part["per_deck"].items():
            print(f"  {deck:<20} {s['correct']}/{s['photos']}")
        imperfect = {k: v for k, v in part["per_card"].items() if v["correct"] < v["photos"]}
        print(
            f"  per card: {len(part['per_card']) - len(imperfect)} of {len(part['per_card'])} always right"
            + "".join(f", {k} {v['correct']}/{v['photos']}" for k, v in imperfect.items())
        )
        for c in part["confusions"]:
            print(f"    {c['deck']}: {c['truth']} read as {c['read']} ({c['confidence']:.0%})")


def _print_piles(title: str, part: dict) -> None:
    """A `SceneReport` as tables: by layout, by visible share, by how cards lie."""
    print(f"{title} (cards showing at least 25% of themselves; false cards per 100 photos):")
    for layout, s in part["layouts"].items():
        print(
            f"  {layout:<13} {s['photos']:4d} photos {s['cards']:5d} cards  found {s['found']:7.2%}"
            f"  identified {s['identified']:7.2%}  false {s['false_cards_per_100_photos']}"
            + _from_outline(s)
        )
    for heading, key in (
        ("visible share", "shares"),
        ("lie", "lies"),
        ("lie and share", "shares_by_lie"),
    ):
        print(f"  by {heading}:")
        for name, s in part[key].items():
            print(
                f"    {name:<24} {s['cards']:5d} cards  found {s['found']:7.2%}  identified {s['identified']:7.2%}"
                + _interval(s)
                + _from_outline(s)
            )
    a, cal = part["all"], part["calibration"]
    print(
        f"  all: {a['cards']} cards, found {a['found']:.2%}, identified {a['identified']:.2%}, "
        f"false {a['false_cards_per_100_photos']} per 100 photos" + _from_outline(a)
    )
    if "identified_from_outline" in a:
        print(
            "  (from its true outline: read by the identifier alone from the card's exact outline,"
            " no detector)"
        )
    print(
        f"  calibration: {cal['of_which_wrong']} wrong of {cal['read_at_0.99_or_more']} read at 0.99 or more"
    )
    if cal.get("by_confidence"):
        print("    boxes on a true card, by the confidence of their reading (right / read):")
        upper = "1"
        for row in cal["by_confidence"]:
            print(f"      {row['from']:.2f}-{upper:<4} {row['right']:5d} / {row['reads']:<5d}")
            upper = f"{row['from']:.2f}"
        print(
            f"    log loss {cal['log_loss']}; the temperature that fits them best: "
            f"{cal['fitted_temperature']} (times the recogniser's identifier_temperature)"
        )
    for c in part["confusions"][:10]:
        print(f"    {c['truth']} read as {c['read']}: {c['count']}")
    false_cards = part.get("false_cards", [])
    if false_cards:
        from vision.evaluate import SECOND_BOX

        second = sum(f["kind"] == SECOND_BOX for f in false_cards)
        print(
            f"  false cards: {len(false_cards)}, {second} of them a second box on a card, "
            f"{len(false_cards) - second} where no card is (each listed in --json)"
        )
    if part.get("median_seconds") is not None:
        print(f"  median time per photo: {part['median_seconds']} s")


def _interval(rates: dict) -> str:
    """The 95% interval of the share identified, where there are cards to make one."""
    interval = rates.get("identified_95_interval")
    if not interval:
        return ""
    low, high = interval
    return f" ({low:.1%}-{high:.1%})"


def _from_outline(rates: dict) -> str:
    """The share read from the true outlines, where the report measured it."""
    if "identified_from_outline" not in rates:
        return ""
    return f"  from its true outline {rates['identified_from_outline']:7.2%}"


def bench(args: argparse.Namespace) -> int:
    import tempfile

    from scopa_datasets.build import hand_scenes, iter_scenes
    from scopa_datasets.scenes import LAYOUTS
    from scoring import Rules
    from vision import benchmark

    config = _generated_piles(args)
    if args.what == "speed":
        twelve_mp = (4032, 3024)
        scene = next(iter_scenes(config, "val", [0], size=twelve_mp, layout="grid", n_cards=20))
        # Whole hands of 12 MP photos: two layouts as drawn, and a cascade shot at a slant on
        # both sides (the photo is then looked at turned: the slowest case).
        hand_photos = {
            layout: tuple(s.image for _, s in hand_scenes(config, 0, layout, size=twelve_mp))
            for layout in ("grid", "cascade")
        }
        hand_photos["cascade askew"] = tuple(
            scene.image
            for k in (1, 2)
            for scene in iter_scenes(
                config, "val", [k], twelve_mp, layout="cascade", n_cards=20, turn=35 + 90 * k
            )
        )
        with tempfile.TemporaryDirectory() as tmp:
            report = benchmark.speed(
                functools.partial(
                    _recognizer, "napoletane", args.models, _chosen_settings(args.settings)
                ),
                scene.image,
                repeats=args.repeats,
                workdir=Path(tmp),
                hand_photos=hand_photos,
                rules=Rules.from_preset("classica"),
            )
    else:
        recognizer = _recognizer("napoletane", args.models, _chosen_settings(args.settings))
        jobs = [(layout, i) for layout in LAYOUTS for i in range(args.hands)]
        hands_iter = ((layout, hand_scenes(config, i, layout)) for layout, i in jobs)
        report = benchmark.hands(
            recognizer,
            hands_iter,
            Rules.from_preset("classica"),
            progress=_progress("hands", len(jobs)),
        )
    if args.json or args.what == "speed":
        print(json.dumps(report, indent=2))
    else:
        _print_hands(report)
    return 0


def _print_hands(report: dict) -> None:
    print("hands (40 cards in two generated piles, one photo each):")
    print(
        f"  {'layout':<13} hands  exact  cards on right side  determinate  determinate but wrong"
        "  determinate from true outlines  advised to lay out"
    )
    every = {**report, "cards_on_right_side": report["all_cards_on_right_side"]}
    for layout, s in [*report["layouts"].items(), ("all", every)]:
        print(
            f"  {layout:<13} {s['hands']:5d}  {s['exact_hands']:5d}  {s['cards_on_right_side']:19.2%}"
            f"  {s['determinate']:11d}  {s['determinate_but_wrong']:21d}"
            f"  {s['determinate_from_outlines']:30d}  {s['advised_to_lay_out']:17d}"
        )
    print(
        "  (determinate from true outlines: the same hands reconciled from exactly the cards"
        " showing at least a quarter of themselves,\n   each read by the identifier from its"
        " exact outline; advised to lay out: a quarter of the deck or more read nowhere, and the"
        "\n   advice asks for the cards laid out otherwise or the complement mode)"
    )
    print(f"  median seconds per hand: {report['median_seconds_per_hand']}")
    _print_piles("the hands' photos, card by card", report["photos"])
