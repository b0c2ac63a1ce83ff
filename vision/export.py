"""`scopa export`: the trained `.pt` weights of models/ to ONNX, as ultralytics exports them.

Every `.pt` model of the folder is exported with a dynamic input size (the detector runs at
several sizes and on photos of any shape), next to its `.pt`; `onnx.json` records which `.pt`
(by hash) each `.onnx` came from, with the tool versions, and the model card's ONNX section
is rewritten from it. Needs the [train] extra (ultralytics, torch, onnx, onnxslim).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from . import yolo_env
from .backends import EXPORT_RECORD, sha256

CARD_START = "<!-- onnx-export: written by `scopa export` -->"
CARD_END = "<!-- /onnx-export -->"


def model_task(weights: Path) -> str:
    """The ultralytics task of a model of models/, by its name."""
    if weights.stem == "detector":
        return "obb"
    if weights.stem == "identifier" or weights.stem.startswith("identifier-"):
        return "classify"
    raise ValueError(f"{weights.name}: not a model of this project (detector or identifier*)")


def export_model(weights: Path) -> dict:
    """Export one `.pt` to the `.onnx` beside it; its record for onnx.json."""
    yolo_env.configure()
    import torch
    import ultralytics
    from ultralytics import YOLO

    yolo_env.keep_pillow_open_plain()
    target = weights.with_suffix(".onnx")
    # Export from a copy, so that nothing but the final .onnx is ever written into models/.
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / weights.name
        shutil.copyfile(weights, copy)
        model = YOLO(str(copy), task=model_task(weights))
        imgsz = int(getattr(model.model, "args", {}).get("imgsz", 640))
        written = Path(
            model.export(format="onnx", dynamic=True, simplify=True, imgsz=imgsz, verbose=False)
        )
        shutil.move(written, target)
    return {
        "source": weights.name,
        "source_sha256": sha256(weights),
        "sha256": sha256(target),
        "task": model_task(weights),
        "imgsz": imgsz,
        "dynamic": True,
        "ultralytics": ultralytics.__version__,
        "torch": torch.__version__.split("+")[0],
    }


def export_models(models_dir: Path) -> dict[str, dict]:
    """Export every model of `models_dir`; write onnx.json and the model card's section."""
    weights = sorted(
        p
        for p in models_dir.glob("*.pt")
        if p.stem == "detector" or p.stem.startswith("identifier")
    )
    records = {w.with_suffix(".onnx").name: export_model(w) for w in weights}
    (models_dir / EXPORT_RECORD).write_text(json.dumps(records, indent=2) + "\n")
    card = models_dir / "README.md"
    if card.is_file():
        card.write_text(with_export_section(card.read_text(), records))
    return records


def with_export_section(card: str, records: dict[str, dict]) -> str:
    """The model card with its ONNX hashes table replaced (or added at the end)."""
    rows = [
        "| file | exported from | sha256 of the `.pt` | sha256 of the `.onnx` | ultralytics |",
        "|---|---|---|---|---|",
    ]
    rows += [
        f"| `{name}` | `{r['source']}` | `{r['source_sha256']}` | `{r['sha256']}` | {r['ultralytics']} |"
        for name, r in records.items()
    ]
    section = "\n".join([CARD_START, *rows, CARD_END])
    if CARD_START in card and CARD_END in card:
        head, rest = card.split(CARD_START, 1)
        return head + section + rest.split(CARD_END, 1)[1]
    return card.rstrip("\n") + "\n\n" + section + "\n"
