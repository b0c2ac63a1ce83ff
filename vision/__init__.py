"""Card recognition: decode a photo, find every card, identify it (the pipeline is described
in `vision/pipeline.py` and the README; the models and their figures in models/README.md).

Knows nothing of Streamlit. The models load only when a recognizer is made.
"""

from .decode import ImageError, load_image
from .draw import annotate
from .types import DetectedCard, PhotoResult


def __getattr__(name: str):
    # The recognizer loads the inference runtime; import it on first use only.
    if name in ("CardRecognizer", "RecognizerSettings", "get_recognizer", "ModelsMissingError"):
        from . import pipeline

        return getattr(pipeline, name)
    raise AttributeError(name)


__all__ = [
    "CardRecognizer",
    "DetectedCard",
    "ImageError",
    "ModelsMissingError",
    "PhotoResult",
    "RecognizerSettings",
    "annotate",
    "get_recognizer",
    "load_image",
]
