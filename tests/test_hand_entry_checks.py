"""What the hand entry shows: provisional points only where settled, conflicts as shown, counts."""

from __future__ import annotations

from scopa.i18n import Translator
from scopa.ui.breakdown import breakdown_table
from scopa.ui.draft import DraftPhoto, HandDraft, evaluate
from scoring import Rules
from tests.test_app import COPPE, DENARI, detections

CLASSICA = Rules.from_preset("classica")


def test_one_photo_of_one_side_leaves_carte_and_primiera_open():
    # 16 cards of Noi seen, 24 unknown: who takes the carte or the primiera is not settled.
    photo = DraftPhoto(1, "Noi", "noi.jpg", "a", detections(DENARI + COPPE[:6]))
    evaluation = evaluate(HandDraft(sides=("Noi", "Loro"), photos=(photo,)), CLASSICA)
    assert not evaluation.ready
    assert {"carte", "primiera"} <= evaluation.open_categories
    assert "denari" not in evaluation.open_categories  # all ten denari are Noi's
    table = breakdown_table(evaluation.score, CLASSICA, Translator(), evaluation.open_categories)
    assert table.loc["Carte", "Noi"] == "16 (in gioco)"
    assert table.loc["Denari", "Noi"] == "10 (+1)"
    assert table.loc["Totale", "Noi"].endswith("+ ?")
    # The photo's one count: its cards in Noi's final set.
    assert len(evaluation.photo_cards(photo)) == len(evaluation.cards["Noi"]) == 16


def test_a_conflict_names_the_card_each_box_is_shown_as():
    # Loro's photo reads the 7 of denari too, but less surely than Noi's: it is shown otherwise.
    noi = DraftPhoto(1, "Noi", "noi.jpg", "a", detections(DENARI))
    loro_result = detections(["7D", "1C"])
    loro_result.cards[0].probs[:] = 0.0
    loro_result.cards[0].probs[[6, 17]] = [0.9, 0.1]  # 7D, else 8C
    loro = DraftPhoto(2, "Loro", "loro.jpg", "b", loro_result)
    evaluation = evaluate(HandDraft(sides=("Noi", "Loro"), photos=(noi, loro)), CLASSICA)
    (conflict,) = evaluation.conflicts
    assert conflict.card.code == "7D" and conflict.owner == "Noi"
    ((side, shown),) = conflict.shown
    assert side == "Loro" and shown is not None and shown.code != "7D"
    assert shown in evaluation.cards["Loro"]  # what the message names is what the list shows
    assert conflict.card not in evaluation.cards["Loro"]
