"""Merging the detector's boxes: duplicates and parts of a card go, overlapping cards stay."""

import numpy as np

from vision.pipeline import drop_contained


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
