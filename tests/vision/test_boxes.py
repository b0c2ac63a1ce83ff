"""Merging the detector's boxes: duplicates and parts of a card go, overlapping cards stay."""

import cv2
import numpy as np
import pytest

from vision.geometry import card_angle, polygon_iou, turn_photo
from vision.pipeline import ZOOMED_IMGSZ_MAX, drop_contained


def box(x, y, w, h):
    return np.float32([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])


def test_pips_inside_a_card_are_dropped():
    card = box(100, 100, 200, 330)
    pips = [box(120, 120, 50, 50), box(220, 300, 50, 50)]
    assert drop_contained([*pips, card], [0.9, 0.95, 0.6]) == [2]


def test_cards_overlapping_by_a_third_are_both_kept():
    left, right = box(100, 100, 60, 100), box(140, 100, 60, 100)
    assert sorted(drop_contained([left, right], [0.9, 0.8])) == [0, 1]


def test_the_same_card_found_twice_is_kept_once_with_the_better_score():
    a, b = box(100, 100, 60, 100), box(103, 102, 60, 100)
    assert drop_contained([a, b], [0.7, 0.9]) == [1]


def test_a_card_partly_under_another_is_not_a_part_of_it():
    # A card mostly covered by a card of the same size on top: same area, so it stays.
    under, top = box(100, 100, 60, 100), box(110, 110, 60, 100)
    assert sorted(drop_contained([under, top], [0.6, 0.9], same_card_iou=0.9)) == [0, 1]


def grid_of_cards(columns, rows, w=60, h=100, gap=6):
    return [
        box(100 + c * (w + gap), 100 + r * (h + gap), w, h)
        for r in range(rows)
        for c in range(columns)
    ]


def test_a_box_over_several_cards_of_a_pile_is_dropped_not_the_cards():
    # The coarse pass sometimes takes a block of a dense pile for one big card.
    cards = grid_of_cards(5, 3)
    merged = box(95, 95, 2 * 66 + 10, 2 * 106 + 10)  # covers the top-left 2x2 block
    kept = drop_contained([*cards, merged], [0.8] * len(cards) + [0.9])
    assert sorted(kept) == list(range(len(cards)))


def test_close_ups_of_several_cards_keep_each_card_and_drop_its_pips():
    cards = [box(100, 100, 200, 330), box(320, 100, 200, 330), box(540, 100, 200, 330)]
    pips = [box(130, 130, 60, 60), box(360, 300, 60, 60), box(580, 200, 60, 60)]
    kept = drop_contained([*cards, *pips], [0.7, 0.7, 0.7, 0.9, 0.9, 0.9])
    assert sorted(kept) == [0, 1, 2]


def test_without_other_cards_coverage_tells_two_cards_from_two_pips():
    two_cards = [box(100, 100, 60, 100), box(162, 100, 60, 100)]
    merged = box(98, 98, 126, 104)
    assert sorted(drop_contained([*two_cards, merged], [0.8, 0.8, 0.9])) == [0, 1]
    card = box(100, 100, 200, 330)
    pips = [box(130, 130, 50, 50), box(220, 350, 50, 50)]
    assert drop_contained([card, *pips], [0.6, 0.9, 0.9]) == [0]


def _recognizer_with(boxes, scores, not_a_card, weak=(), weak_scores=()):
    """A CardRecognizer whose two models are replaced by fixed answers."""
    from vision.pipeline import CardRecognizer, FoundBoxes, RecognizerSettings

    recognizer = CardRecognizer.__new__(CardRecognizer)
    recognizer.settings = RecognizerSettings(not_a_card_threshold=0.5, sure_box=0.8)
    recognizer.find_boxes = lambda image: FoundBoxes(
        list(boxes), list(scores), [[] for _ in boxes], list(weak), list(weak_scores)
    )
    n = len(boxes) + len(weak)
    probs = np.full((n, 40), 0.1 / 39, np.float32)
    probs[:, 0] = 0.9
    recognizer.classify = lambda image, quads, other_looks=None: (probs, np.float32(not_a_card))
    return recognizer


def test_a_box_the_identifier_calls_empty_is_set_apart_unless_the_detector_is_sure():
    boxes = [box(10, 10, 60, 100), box(100, 10, 60, 100), box(200, 10, 60, 100)]
    recognizer = _recognizer_with(boxes, [0.6, 0.9, 0.6], [0.9, 0.9, 0.1])
    result = recognizer.recognize(np.zeros((200, 300, 3), np.uint8))
    # The first box: unsure detector, empty crop -> doubtful. The second: the detector is sure.
    assert sorted(float(c.quad[0, 0]) for c in result.cards) == [100.0, 200.0]
    assert [float(c.quad[0, 0]) for c in result.doubtful] == [10.0]
    assert [float(c.quad[0, 0]) for c in result.detections] == [100.0, 200.0, 10.0]


def test_a_box_one_look_of_three_drew_is_a_card_only_if_read_surely():
    from dataclasses import replace

    from vision.pipeline import FoundBoxes

    boxes = [box(10, 10, 60, 100), box(100, 10, 60, 100)]
    recognizer = _recognizer_with(boxes, [0.9, 0.9], [0.0, 0.0])
    # The first box was drawn by every look, the second by one look only; both read at 0.9.
    recognizer.find_boxes = lambda image: FoundBoxes(
        boxes, [0.9, 0.9], [[boxes[0], boxes[0]], []], [], [], looks=3
    )
    image = np.zeros((200, 300, 3), np.uint8)
    for bar, lone_is_a_card in ((0.95, False), (0.5, True), (None, True)):
        recognizer.settings = replace(recognizer.settings, lone_look_min_confidence=bar)
        result = recognizer.recognize(image)
        assert [float(c.quad[0, 0]) for c in result.doubtful] == ([] if lone_is_a_card else [100.0])
        assert len(result.cards) == (2 if lone_is_a_card else 1)
    # With a single look (no zoomed pass) there is no other look to agree: the rule is idle.
    recognizer.find_boxes = lambda image: FoundBoxes(boxes, [0.9, 0.9], [[], []], [], [], looks=1)
    recognizer.settings = replace(recognizer.settings, lone_look_min_confidence=0.95)
    assert len(recognizer.recognize(image).cards) == 2


def test_a_weak_box_is_doubtful_whatever_the_identifier_says():
    recognizer = _recognizer_with(
        [box(10, 10, 60, 100)], [0.9], [0.0, 0.0], weak=[box(100, 10, 60, 100)], weak_scores=[0.4]
    )
    result = recognizer.recognize(np.zeros((200, 300, 3), np.uint8))
    assert [c.box_confidence for c in result.cards] == [0.9]
    assert [c.box_confidence for c in result.doubtful] == [0.4]
    assert result.to_dict()["doubtful"][0]["box_confidence"] == 0.4


def test_weak_boxes_repeating_or_inside_or_around_a_card_are_not_kept():
    from vision.pipeline import weak_boxes

    card = box(100, 100, 60, 100)
    weak = [
        box(104, 104, 60, 100),  # the card again, a little off
        box(110, 120, 30, 30),  # a pip of the card
        box(90, 90, 90, 130),  # the card, loosely
        box(300, 100, 60, 100),  # clear of every card: kept
        box(303, 102, 60, 100),  # that box again, scored lower
    ]
    assert weak_boxes([card], weak, [0.45, 0.4, 0.35, 0.32, 0.31]) == [3]


def test_the_detector_keeps_a_card_showing_a_quarter_of_itself_below_its_neighbour():
    """Ultralytics suppresses oriented boxes by ProbIoU, which rates cascaded cards as more alike
    than their outlines: the threshold must let a card that shows a quarter of itself through."""
    import torch
    from ultralytics.utils.metrics import probiou

    from vision.pipeline import RecognizerSettings

    nms_iou = RecognizerSettings().nms_iou
    w, h = 100.0, 170.0  # a Neapolitan card's proportions
    upper = torch.tensor([[0.0, 0.0, w, h, 0.0]])  # centre x, centre y, width, height, angle
    for shown in (0.25, 0.3, 0.45):
        lower = torch.tensor([[0.0, shown * h, w, h, 0.0]])
        assert float(probiou(upper, lower)) < nms_iou
    # ...while the same card found twice, a few pixels apart, is still one box.
    again = torch.tensor([[3.0, 4.0, w, h, 0.02]])
    assert float(probiou(upper, again)) > nms_iou


def _sizer(small_card_px=64, detector_imgsz=416, mirrored_look=False, **settings):
    from vision.pipeline import CardRecognizer, RecognizerSettings

    recognizer = CardRecognizer.__new__(CardRecognizer)
    recognizer.settings = RecognizerSettings(
        detector_imgsz=detector_imgsz,
        small_card_px=small_card_px,
        box_threshold=0.5,
        doubtful_box_floor=0.3,
        mirrored_look=mirrored_look,
        **settings,
    )
    return recognizer


def test_a_photo_of_small_cards_is_looked_at_again_larger():
    # 1024 px photo, cards 120 px long: 48.75 px at 416, so 416 * 64 / 48.75 = 546 -> 544.
    cards = [box(100 + 80 * k, 100, 72, 120) for k in range(5)]
    assert _sizer().zoomed_imgsz((768, 1024), cards) == 544
    # Tinier cards still: the zoom stops at ZOOMED_IMGSZ_MAX.
    tiny = [box(100 + 40 * k, 100, 30, 50) for k in range(5)]
    assert _sizer().zoomed_imgsz((768, 1024), tiny) == ZOOMED_IMGSZ_MAX == 800


def test_cards_big_enough_are_not_zoomed_and_no_card_at_all_is_zoomed_most():
    big = [box(100 + 170 * k, 100, 160, 260) for k in range(5)]
    assert _sizer().zoomed_imgsz((768, 1024), big) is None
    assert _sizer().zoomed_imgsz((768, 1024), []) == ZOOMED_IMGSZ_MAX
    small = [box(100 + 70 * k, 100, 60, 100) for k in range(5)]
    assert _sizer(small_card_px=None).zoomed_imgsz((768, 1024), small) is None


def test_the_larger_pass_adds_to_the_main_one_and_each_card_keeps_one_box():
    recognizer = _sizer()
    main = [box(100 + 70 * k, 100, 48, 80) for k in range(4)]  # small cards: zoom
    # The zoomed pass also scores two boxes under the bar: one clear of every card, one
    # repeating a card.
    zoomed = [box(101, 101, 48, 80), box(171, 100, 48, 80), box(400, 300, 48, 80)]
    zoomed += [box(600, 300, 48, 80), box(102, 100, 48, 80)]
    answers = {416: (main, [0.9, 0.6, 0.9, 0.9])}
    asked = []

    def predict(image, imgsz, conf=None):
        asked.append((imgsz, conf))
        found = answers.get(imgsz, (zoomed, [0.7, 0.95, 0.8, 0.4, 0.45]))
        keep = [i for i, score in enumerate(found[1]) if score >= (conf or 0.5)]
        return [found[0][i] for i in keep], [found[1][i] for i in keep]

    recognizer.predict_boxes = predict
    boxes = recognizer.find_boxes(np.zeros((768, 1024, 3), np.uint8))
    assert max(size for size, _ in asked) > 416
    assert all(conf == 0.3 for _, conf in asked)
    # Four cards from the main pass, one more only the zoomed pass saw; the two cards both
    # passes found keep their better-scored box.
    assert len(boxes.quads) == 5
    assert sorted(boxes.scores) == [0.8, 0.9, 0.9, 0.9, 0.95]
    assert boxes.weak_scores == [0.4]
    assert recognizer.detect(np.zeros((768, 1024, 3), np.uint8))[1] == boxes.scores


def test_a_card_several_fine_looks_boxed_gets_their_other_boxes():
    from vision.pipeline import _other_looks

    zoomed = [box(100, 100, 48, 80), box(400, 300, 48, 80)]
    mirrored = [box(98, 101, 48, 80), box(101, 99, 48, 80)]  # the second: a worse overlap
    main = [box(300, 100, 48, 80), box(103, 102, 48, 80)]
    quads = [*zoomed, *mirrored, *main]
    look_of = [0, 0, 1, 1, 2, 2]
    others = _other_looks(quads, look_of, 0)
    # One box from each other look, the best-overlapping one: mirrored[1], then main[1].
    assert len(others) == 2
    assert np.allclose(sorted(others[0][:, 0]), sorted(mirrored[1][:, 0]))
    assert np.allclose(sorted(others[1][:, 0]), sorted(main[1][:, 0]))
    assert _other_looks(quads, look_of, 1) == []  # only the zoomed look saw it


def test_the_mirrored_look_maps_its_boxes_back_onto_the_photo():
    recognizer = _sizer()
    card = box(100, 50, 40, 70)  # where the card is in the photo, 400 px wide

    def predict(image, imgsz, conf=None):
        # The detector sees the mirror image: the card's left edge at 399 - 140 = 259.
        assert image[60, 120].sum() == 0 and image[60, 270].sum() > 0
        return [box(259, 50, 40, 70)], [0.9]

    recognizer.predict_boxes = predict
    image = np.zeros((200, 400, 3), np.uint8)
    image[:, 100:141] = 255
    quads, scores, _, _ = recognizer._mirrored_fine_pass(image, 416)
    assert scores == [0.9]
    assert np.allclose(sorted(quads[0][:, 0]), sorted(card[:, 0]))
    # The corners keep the turning order of the detector's boxes (the signed area's sign).
    assert cv2.contourArea(quads[0], oriented=True) * cv2.contourArea(card, oriented=True) > 0


def test_a_card_with_other_looks_is_read_from_every_box_unless_its_own_is_sure():
    import threading
    from types import SimpleNamespace

    from vision.pipeline import CardRecognizer, RecognizerSettings

    def read(batch):
        """Card 0 for a dark crop, card 1 for a light one (41 classes: 40 cards + none)."""
        return np.stack([np.eye(41, dtype=np.float32)[0 if c.mean() < 128 else 1] for c in batch])

    recognizer = CardRecognizer.__new__(CardRecognizer)
    identifier = SimpleNamespace(probabilities=read, names=[str(k) for k in range(41)])
    recognizer.identifier, recognizer.crop_size = identifier, 32
    # Every read here is sure: the other looks are read only when that is not enough.
    recognizer.settings = RecognizerSettings(sure_without_other_looks=None)
    recognizer._lock = threading.Lock()
    recognizer._card_classes, recognizer._to_deck_order = np.arange(40), np.arange(40)
    recognizer._not_a_card_class = 40
    image = np.zeros((200, 400, 3), np.uint8)
    image[:, 200:] = 255  # left half dark, right half light
    dark, light = box(20, 20, 60, 100), box(250, 20, 60, 100)
    alone, _ = recognizer.classify(image, [dark])
    both, _ = recognizer.classify(image, [dark, dark], [[light], []])
    assert alone[0][0] == 1.0
    assert np.allclose(both[0][:2], [0.5, 0.5]) and both[1][0] == 1.0
    three, _ = recognizer.classify(image, [dark], [[light, light]])
    assert np.allclose(three[0][:2], [1 / 3, 2 / 3])
    recognizer.settings = RecognizerSettings(sure_without_other_looks=0.99)
    sure, _ = recognizer.classify(image, [dark], [[light]])
    assert sure[0][0] == 1.0
    recognizer.settings = RecognizerSettings(sure_without_other_looks=1.01)  # never sure enough
    unsure, _ = recognizer.classify(image, [dark], [[light]])
    assert np.allclose(unsure[0][:2], [0.5, 0.5])


def test_every_photo_gets_the_mirrored_look_at_its_finest_size():
    for card_size, mirrored, sizes in (
        ((48, 80), True, {416: 1, "zoomed": 2}),
        ((160, 260), True, {416: 2}),
        ((160, 260), False, {416: 1}),
    ):
        recognizer = _sizer(mirrored_look=mirrored)
        cards = [box(100 + 200 * k, 100, *card_size) for k in range(4)]
        asked = []

        def predict(image, imgsz, conf=None, cards=cards, asked=asked):
            asked.append(imgsz)
            return cards, [0.9] * len(cards)

        recognizer.predict_boxes = predict
        found = recognizer.find_boxes(np.zeros((768, 1024, 3), np.uint8))
        counted = {416: asked.count(416)}
        if len(asked) > counted[416]:
            counted["zoomed"] = len(asked) - counted[416]
        assert counted == sizes
        assert found.looks == len(asked)


def test_a_temperature_above_one_softens_readings_and_keeps_their_order():
    from vision.pipeline import soften

    probs = np.float32([[0.97, 0.02, 0.01], [0.5, 0.3, 0.2]])
    assert soften(probs, 1.0) is probs
    soft = soften(probs, 2.0)
    assert np.allclose(soft.sum(1), 1)
    assert (soft.argmax(1) == probs.argmax(1)).all()
    assert soft[0, 0] < probs[0, 0] and soft[1, 0] < probs[1, 0]
    # Dividing the logits by 2 is the square root of the odds.
    assert soft[0, 0] / soft[0, 1] == pytest.approx(np.sqrt(0.97 / 0.02), rel=1e-4)


def test_one_card_boxed_twice_with_the_same_reading_keeps_one_card_and_a_doubtful_box():
    from vision.pipeline import split_repeated_readings
    from vision.types import DetectedCard

    def card(code, quad, score):
        return DetectedCard(code, 0.9, np.zeros(40), quad, score)

    first = card("2B", box(100, 100, 100, 160), 0.9)
    again = card("2B", box(130, 110, 100, 160), 0.6)  # IoU about 0.5 with the first
    neighbour = card("3B", box(160, 100, 100, 160), 0.8)
    far = card("2B", box(600, 100, 100, 160), 0.7)  # a misreading elsewhere: not this rule's
    kept, repeated = split_repeated_readings([again, neighbour, first, far], min_iou=0.3)
    assert kept == [first, neighbour, far]
    assert repeated == [again]


def test_a_cascade_card_showing_under_a_third_of_itself_keeps_its_own_box():
    """Neighbours of a cascade showing a share s overlap by (1 - s) / (1 + s): 0.54 at 30%.
    Both stay cards, and neither box is taken for another look at the other card."""
    from vision.pipeline import _other_looks

    recognizer = _sizer(small_card_px=None)
    upper, lower = box(100, 100, 200, 330), box(100, 199, 200, 330)  # the lower shows 30%
    recognizer.predict_boxes = lambda image, imgsz, conf=None: ([upper, lower], [0.9, 0.8])
    boxes = recognizer.find_boxes(np.zeros((768, 1024, 3), np.uint8))
    assert sorted(boxes.scores) == [0.8, 0.9]
    assert boxes.other_looks == [[], []]
    # Another look that boxed only the upper card lends it no reading of the lower one.
    assert _other_looks([upper, lower], [0, 1], 1) == []


def test_a_crowded_box_read_unsure_is_set_apart_as_doubtful():
    from vision.pipeline import split_unsure_crowded
    from vision.types import DetectedCard

    def card(code, confidence, quad, box_confidence):
        return DetectedCard(code, confidence, np.zeros(40), quad, box_confidence)

    upper, lower = box(100, 100, 200, 330), box(100, 199, 200, 330)
    apart = box(500, 100, 200, 330)
    sure = [card("1D", 0.99, upper, 0.9), card("2D", 0.95, lower, 0.8)]
    kept, unsure = split_unsure_crowded(sure, 0.5, 0.5)
    assert [c.card for c in kept] == ["1D", "2D"] and unsure == []
    doubt = [card("1D", 0.99, upper, 0.9), card("2D", 0.3, lower, 0.8), card("3D", 0.3, apart, 0.7)]
    kept, unsure = split_unsure_crowded(doubt, 0.5, 0.5)
    assert [c.card for c in kept] == ["1D", "3D"] and [c.card for c in unsure] == ["2D"]


def turned_box(cx, cy, w, h, degrees):
    """A w x h box centred at (cx, cy), turned by `degrees` (clockwise as seen, y down)."""
    return cv2.boxPoints(((cx, cy), (w, h), degrees)).astype(np.float32)


def test_cards_lying_askew_together_are_squared_up_and_no_others():
    recognizer = _sizer()
    askew = [turned_box(100 + 80 * k, 200, 60, 100, 30) for k in range(5)]
    turn = recognizer._squaring_turn(askew)
    assert turn is not None and abs(abs(turn) - 30) < 0.5
    # The turn squares them up: on the turned photo their sides run along the photo's.
    _, back = turn_photo(np.zeros((400, 600, 3), np.uint8), turn)
    forward = cv2.invertAffineTransform(back)
    for quad in askew:
        angle = card_angle(cv2.transform(quad[None], forward)[0]) % 90
        assert min(angle, 90 - angle) < 0.5
    nearly_square = [turned_box(100 + 80 * k, 200, 60, 100, 6) for k in range(5)]
    assert recognizer._squaring_turn(nearly_square) is None
    every_which_way = [turned_box(100 + 80 * k, 200, 60, 100, 18 * k) for k in range(5)]
    assert recognizer._squaring_turn(every_which_way) is None
    # A narrow hand fan, its cards spread evenly over 30 degrees about 25 (agreement 0.79).
    narrow_fan = [turned_box(100 + 80 * k, 200, 60, 100, 10 + 7.5 * k) for k in range(5)]
    assert abs(abs(recognizer._squaring_turn(narrow_fan)) - 25) < 1
    assert _sizer(squaring_min_agreement=0.8)._squaring_turn(narrow_fan) is None
    assert recognizer._squaring_turn(askew[:1]) is None  # one card: a close-up, not a pile
    assert _sizer(squaring_turn_min_degrees=None)._squaring_turn(askew) is None


def test_a_turned_photo_keeps_all_of_itself_and_maps_back_onto_the_photo():
    image = np.zeros((300, 400, 3), np.uint8)
    turned, back = turn_photo(image, 40)
    assert turned.shape[0] > 300 and turned.shape[1] > 400
    forward = cv2.invertAffineTransform(back)
    corners = np.float32([[0, 0], [399, 0], [399, 299], [0, 299]])
    inside = cv2.transform(corners[None], forward)[0]
    assert (inside >= -1).all() and (inside <= np.array(turned.shape[1::-1]) + 1).all()
    assert np.allclose(cv2.transform(inside[None], back)[0], corners, atol=1e-3)


def test_a_turned_region_holds_its_points_and_their_margin_and_maps_back_onto_the_photo():
    image = np.zeros((300, 400, 3), np.uint8)
    whole, _ = turn_photo(image, 40)
    region = np.float32([[150, 100], [250, 100], [250, 180], [150, 180]])
    turned, back = turn_photo(image, 40, region, margin=20)
    assert turned.shape[0] < whole.shape[0] and turned.shape[1] < whole.shape[1]
    inside = cv2.transform(region[None], cv2.invertAffineTransform(back))[0]
    assert (inside >= 20 - 1).all() and (inside <= np.array(turned.shape[1::-1]) - 20 + 1).all()
    assert np.allclose(cv2.transform(inside[None], back)[0], region, atol=1e-3)
    # The margin stops at the edge of the whole turned photo.
    _, back = turn_photo(image, 40, region, margin=10_000)
    assert np.allclose(
        cv2.invertAffineTransform(back), cv2.invertAffineTransform(turn_photo(image, 40)[1])
    )


@pytest.mark.parametrize("margin_cards", [None, 1.0])
def test_a_pile_lying_askew_is_looked_at_squared_up_and_boxed_on_the_photo(margin_cards):
    recognizer = _sizer(squaring_margin_cards=margin_cards)
    image = np.zeros((400, 600, 3), np.uint8)
    cards = [turned_box(150 + 90 * k, 200, 60, 100, 35) for k in range(4)]
    for quad in cards:
        cv2.fillPoly(image, [quad.astype(np.int32)], (255, 255, 255))
    shapes = []

    def predict(photo, imgsz, conf=None):
        """The detector: askew boxes on the photo, and on the squared-up photo the upright
        bounding boxes of the white cards it shows."""
        shapes.append(photo.shape)
        if photo.shape == image.shape:
            return cards, [0.9] * len(cards)
        mask = (photo[..., 0] == 255).astype(np.uint8)
        count, _, stats, _ = cv2.connectedComponentsWithStats(mask)
        found = [box(*stats[i, :4].astype(np.float32)) for i in range(1, count)]
        return found, [0.9] * len(found)

    recognizer.predict_boxes = predict
    found = recognizer.find_boxes(image)
    assert shapes[0] == image.shape and all(s != image.shape for s in shapes[1:])
    whole, _ = turn_photo(image, 35)
    assert (shapes[1] == whole.shape) == (margin_cards is None)
    assert len(found.quads) == 4
    for quad in found.quads:
        assert max(polygon_iou(quad, card) for card in cards) > 0.9


def test_a_box_across_two_cards_of_a_grid_is_set_apart_as_doubtful():
    """Cards of a grid lie apart; a box lying across two of them overlaps each by about 0.43
    (outline IoU), which no card of such a photo does."""
    from vision.pipeline import split_straddling
    from vision.types import DetectedCard

    def card(code, quad, box_confidence):
        return DetectedCard(code, 0.9, np.zeros(40), quad, box_confidence)

    grid = [card(f"{k + 1}D", box(100 + 120 * k, 100, 100, 160), 0.95) for k in range(5)]
    grid += [card(f"{k + 1}C", box(100 + 120 * k, 300, 100, 160), 0.95) for k in range(5)]
    across = card("4C", box(160, 100, 100, 160), 0.7)  # half on 1D, half on 2D
    kept, straddling = split_straddling([*grid, across], 0.25, 0.2, 0.2)
    assert kept == grid and straddling == [across]
    # A box scored above both cards it lies across is not set apart, nor are they: the rule
    # sets apart a box only across two better-scored ones.
    sure_across = card("4C", box(160, 100, 100, 160), 0.99)
    kept, straddling = split_straddling([*grid, sure_across], 0.25, 0.2, 0.2)
    assert len(kept) == 11 and straddling == []
    # Overlapping one card only (by 0.40) is a card lying partly over another, not across two.
    partly_over = card("4C", box(130, 130, 100, 160), 0.7)
    assert split_straddling([*grid, partly_over], 0.25, 0.2, 0.2)[1] == []
    assert split_straddling(grid[:1] + [across], 0.25, 0.2, 0.2) == (grid[:1] + [across], [])


def test_the_cards_of_a_cascade_overlap_their_neighbours_and_all_stay():
    from vision.pipeline import split_straddling
    from vision.types import DetectedCard

    # Each card shows 40% of itself below the next: neighbours overlap by 0.43.
    cascade = [
        DetectedCard(
            f"{k + 1}S", 0.9, np.zeros(40), box(100, 100 + 64 * k, 100, 160), 0.9 - k / 100
        )
        for k in range(8)
    ]
    kept, straddling = split_straddling(cascade, 0.25, 0.2, 0.2)
    assert kept == cascade and straddling == []


def test_the_recogniser_keeps_a_box_across_two_cards_as_doubtful_unless_the_rule_is_off():
    from dataclasses import replace

    grid = [box(100 + 120 * k, 100 + 200 * row, 100, 160) for row in (0, 1) for k in range(4)]
    across = box(160, 100, 100, 160)
    recognizer = _recognizer_with([*grid, across], [0.95] * 8 + [0.7], [0.0] * 9)
    # Every box here reads as the same card: keep that rule out of the way.
    recognizer.settings = replace(recognizer.settings, same_reading_iou=None)
    image = np.zeros((500, 700, 3), np.uint8)
    result = recognizer.recognize(image)
    assert len(result.cards) == 8 and [c.box_confidence for c in result.doubtful] == [0.7]
    recognizer.settings = replace(recognizer.settings, straddle_iou=None)
    assert len(recognizer.recognize(image).cards) == 9
