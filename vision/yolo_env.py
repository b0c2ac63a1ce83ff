"""Settings that keep ultralytics offline; call `configure()` before importing ultralytics.

Ultralytics downloads weights for any `*.pt` name it does not find, tries to install missing
packages, and fetches Arial.ttf for its plots. None of that can work here, so: offline mode, no
auto-install, a config folder of our own with a local font already in place.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _config_dir() -> Path:
    preferred = PROJECT_ROOT / ".config"
    try:
        preferred.mkdir(parents=True, exist_ok=True)
        if os.access(preferred, os.W_OK):
            return preferred
    except OSError:
        pass
    fallback = Path.home() / ".cache" / "scopa"
    fallback.mkdir(parents=True, exist_ok=True)
    return fallback


def configure() -> None:
    config = _config_dir()
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "False")
    os.environ.setdefault("YOLO_VERBOSE", "False")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(config / "ultralytics"))
    os.environ.setdefault("MPLCONFIGDIR", str(config / "matplotlib"))
    fonts = Path(os.environ["YOLO_CONFIG_DIR"]) / "Ultralytics"
    fonts.mkdir(parents=True, exist_ok=True)
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (fonts / name).exists():
            source = _local_font()
            if source is not None:
                shutil.copyfile(source, fonts / name)


# What `scopa make-dataset`, `train` and `export` need beyond the runtime: the [train] extra.
TRAINING_MODULES = ("torch", "torchvision", "ultralytics")
EXPORT_MODULES = (*TRAINING_MODULES, "onnx", "onnxslim")


def missing_modules(names: tuple[str, ...] = TRAINING_MODULES) -> list[str]:
    """Which of these modules are not installed (looked up, not imported: torch is slow)."""
    import importlib.util

    return [name for name in names if importlib.util.find_spec(name) is None]


def keep_pillow_open_plain() -> None:
    """Undo the side effect of importing ultralytics on `PIL.Image.open`.

    Ultralytics wraps `Image.open` so that the first unidentified file makes it install and
    register pi-heif. Offline that fails with ModuleNotFoundError instead of Pillow's
    UnidentifiedImageError, and a junk upload would escape our decoder's error handling.
    HEIC is already handled here by pillow-heif, so mark ultralytics' plugin as done. Does
    nothing if ultralytics is not imported (the decoder calls it before every open, whatever
    imported ultralytics first).
    """
    patches = sys.modules.get("ultralytics.utils.patches")
    if patches is not None:
        setattr(patches, "_pil_plugins_registered", True)  # noqa: B010 (a private flag)


def _local_font() -> Path | None:
    try:
        import matplotlib

        path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        return path if path.exists() else None
    except ImportError:
        return None
