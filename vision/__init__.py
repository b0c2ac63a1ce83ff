"""Card recognition: decode a photo, find every card, identify it (see DESIGN.md).

Knows nothing of Streamlit. Heavy modules (torch, ultralytics) load only when a recognizer is made.
"""

from .decode import ImageError, load_image
from .draw import annotate
from .types import DetectedCard, PhotoResult


def __getattr__(name: str):
    # The recognizer pulls in torch; import it on first use only.
    if name in ("CardRecognizer", "get_recognizer", "ModelsMissingError"):
        from . import pipeline

        return getattr(pipeline, name)
    raise AttributeError(name)


__all__ = [
    "CardRecognizer",
    "DetectedCard",
    "ImageError",
    "ModelsMissingError",
    "PhotoResult",
    "annotate",
    "get_recognizer",
    "load_image",
]
