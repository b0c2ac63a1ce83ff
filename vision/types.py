"""What recognition returns for a photo: every card found, with its 40-way probabilities."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# The identifier's class for a crop with no card in it: the training data's folder name
# (datasets/build.py) and what the pipeline looks for among the model's class names.
NOT_A_CARD = "none"


@dataclass
class DetectedCard:
    """One card found in a photo.

    `probs` holds the identifier's probabilities over the 40 cards in `scoring.DECK` order;
    `quad` the card's corners (TL, TR, BR, BL of the card held upright, as far as the detector
    can tell) in the original photo's pixels.
    """

    card: str
    confidence: float
    probs: np.ndarray
    quad: np.ndarray
    box_confidence: float = 1.0

    def to_dict(self) -> dict:
        return {
            "card": self.card,
            "confidence": round(float(self.confidence), 4),
            "box_confidence": round(float(self.box_confidence), 4),
            "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad],
        }


@dataclass
class PhotoResult:
    """All cards found in one photo, sorted top to bottom, left to right.

    `doubtful` holds boxes that are not counted as cards of the photo: the detector scored
    them under its bar, or the identifier took the crop for no card. In a loose heap some of
    them are real cards with a poor box; the reconciliation may read one as a card that no
    other detection accounts for (each card exists once), and reports it as uncertain.
    """

    path: str | None
    width: int
    height: int
    cards: list[DetectedCard] = field(default_factory=list)
    doubtful: list[DetectedCard] = field(default_factory=list)

    @property
    def detections(self) -> list[DetectedCard]:
        """The cards, then the doubtful boxes: the order reconciliation indexes them in."""
        return [*self.cards, *self.doubtful]

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "width": self.width,
            "height": self.height,
            "cards": [c.to_dict() for c in self.cards],
            "doubtful": [c.to_dict() for c in self.doubtful],
        }
