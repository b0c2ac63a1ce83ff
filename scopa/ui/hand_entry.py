"""Entering one hand: photos or the card grid per side, the checks with one-tap fixes, the score.

`render_hand_entry` is the one function a page calls; the single-match page and the tournament's
table pages share it. Everything the players enter is written to the `HandDraftStore` at once,
so a closed tab or a killed server loses nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import streamlit as st

from scopa.i18n import Translator
from scopa.plaintext import escape_markdown
from scopa.ui.breakdown import render_breakdown
from scopa.ui.draft import (
    MANUAL,
    MODES,
    PHOTOS,
    Conflict,
    DraftPhoto,
    HandDraft,
    HandDraftStore,
    HandEvaluation,
    Uncertain,
    evaluate,
)
from scopa.ui.photos import (
    GREY,
    MAX_PHOTO_BYTES,
    PHOTO_TYPES,
    STATUS_COLORS,
    PhotoRejected,
    display_image,
    draw_marks,
    recognize_photo,
)
from scoring import DECK, Card, HandResult, Rules, SideInput, Suit

if TYPE_CHECKING:
    from vision import CardRecognizer

log = logging.getLogger(__name__)

RecognizerLoader = Callable[[], "CardRecognizer"]
# More cards than this deciding the score are listed in one line, not one row of buttons each.
DECIDING_ROWS = 4
DECIDING_LISTED = 10
ALTERNATIVES_SHOWN = 2
DOUBTS_SHOWN = 3
MISSING_ADVICE = ("reconcile.missing_card", "reconcile.missing_cards")
EVALUATIONS_KEPT = 8  # per hand entry: a tap that changes nothing is not solved again
STATE_MARKS = {"uncertain": " (?)", "conflict": " (!)", "extra": " —"}


@dataclass(frozen=True)
class HandSubmission:
    """A complete hand the players saved: its input, its score, and how it was entered.

    `draft` keeps the photos and manual corrections, `evaluation` whether the score was
    determinate: what an audit trail records beside the score.
    """

    sides: dict[str, SideInput]
    result: HandResult
    draft: HandDraft
    evaluation: HandEvaluation

    def sides_json(self) -> dict[str, dict[str, Any]]:
        """The `{"side": {"cards": [...], "scope": n}}` shape of `scopa score-hand`."""
        return {
            side: {"cards": sorted(card.code for card in value.cards), "scope": value.scope}
            for side, value in self.sides.items()
        }


def render_hand_entry(
    store: HandDraftStore,
    rules: Rules,
    t: Translator,
    *,
    key: str,
    recognizer: RecognizerLoader | None = None,
    submit_label: str | None = None,
) -> HandSubmission | None:
    """Render the entry of one hand; return it on the run where the players save it, else None.

    Args:
        store: where the draft lives (`scopa.ui.draft.RepositoryDraftStore` for a match in the
            database, `MemoryDraftStore` for a page that persists hands its own way). Its draft
            names the sides, in order.
        rules: the match's rules (they decide which categories are scored).
        t: the page's translator.
        key: unique among the hand entries on the page (e.g. `f"hand-{hand_id}"`); it prefixes
            every widget key.
        recognizer: returns the card recognizer, e.g. a `st.cache_resource` wrapper around
            `vision.get_recognizer`; called only when a photo arrives. None offers only the
            manual card grid.
        submit_label: the save button's text (default "Registra la mano").

    The caller stores the returned submission (and usually reruns the page); until then the draft
    stays in `store`, so nothing is scored twice if the save is retried.
    """
    submitted_key = f"{key}:submitted"
    submission = None
    if st.session_state.pop(submitted_key, False):
        draft = store.load()
        evaluation = evaluate_cached(draft, rules, key)
        if evaluation.ready and evaluation.result is not None:
            submission = HandSubmission(
                sides=evaluation.side_inputs(draft.scope),
                result=evaluation.result,
                draft=draft,
                evaluation=evaluation,
            )
    _hand_entry_fragment(store, rules, t, key, recognizer, submit_label)
    return submission


@st.fragment
def _hand_entry_fragment(
    store: HandDraftStore,
    rules: Rules,
    t: Translator,
    key: str,
    recognizer: RecognizerLoader | None,
    submit_label: str | None,
) -> None:
    """The entry itself. A tap in it reruns only this part of the page (a fix settles without
    redrawing the match above); saving reruns the whole page, which stores the hand."""
    draft = store.load()
    if recognizer is None and draft.mode != MANUAL:
        draft = replace(draft, mode=MANUAL)
        store.save_entry(draft)
    entry = _Entry(store, t, key, recognizer)
    entry.mode_switch(draft)
    evaluation = evaluate_cached(draft, rules, key)

    # Tab labels never change: a changed label makes the browser show the first tab again.
    tabs = st.tabs([escape_markdown(side) for side in draft.sides])  # names as typed
    for side, tab in zip(draft.sides, tabs, strict=True):
        with tab:
            if draft.mode == PHOTOS:
                entry.photo_side(draft, evaluation, side)
            else:
                entry.manual_side(draft, evaluation, side)
            entry.scope_control(draft, side)
    if draft.mode == PHOTOS:
        entry.complement(draft)

    st.markdown(f"##### {t('check.title')}")
    entry.checks(draft, evaluation)
    score = evaluation.score
    if score is not None and any(evaluation.cards.values()):
        render_breakdown(
            score,
            rules,
            t,
            provisional=not evaluation.ready,
            open_categories=frozenset() if evaluation.ready else evaluation.open_categories,
        )

    saved = st.button(
        submit_label or t("hand.save"),
        key=f"{key}:save",
        type="primary",
        disabled=not evaluation.ready,
        width="stretch",
    )
    if not evaluation.ready:
        st.caption(t("hand.save_disabled"))
    if saved and evaluation.ready:
        st.session_state[f"{key}:submitted"] = True
        st.rerun(scope="app")


def _fingerprint(draft: HandDraft, rules: Rules) -> tuple[Any, ...]:
    """Everything an evaluation depends on, hashable."""
    return (
        draft.sides,
        draft.mode,
        tuple(sorted(draft.scope.items())),
        tuple(sorted((side, tuple(sorted(cards))) for side, cards in draft.manual.items())),
        draft.complement,
        tuple((photo.id, photo.side, photo.sha256) for photo in draft.photos),
        tuple((c.id, c.action, c.card, c.side, c.to_side) for c in draft.corrections),
        json.dumps(rules.to_dict(), sort_keys=True),
    )


def evaluate_cached(draft: HandDraft, rules: Rules, key: str) -> HandEvaluation:
    """`evaluate`, remembered for the last few states of this entry in the session."""
    kept: dict[tuple[Any, ...], HandEvaluation] = st.session_state.setdefault(
        f"{key}:evaluations", {}
    )
    fingerprint = _fingerprint(draft, rules)
    if fingerprint not in kept:
        kept[fingerprint] = evaluate(draft, rules)
        while len(kept) > EVALUATIONS_KEPT:
            kept.pop(next(iter(kept)))
    return kept[fingerprint]


def render_photo_guidance(t: Translator, *, expanded: bool) -> None:
    """How to photograph a pile so that every card can be told apart."""
    with st.expander(t("guide.title"), expanded=expanded, icon=":material/photo_camera:"):
        st.markdown("\n".join(f"- {t(f'guide.{n}')}" for n in range(1, 6)))


class _Entry:
    """The widgets of one hand entry; callbacks write to the store before the page reruns."""

    def __init__(
        self, store: HandDraftStore, t: Translator, key: str, recognizer: RecognizerLoader | None
    ) -> None:
        self.store = store
        self.t = t
        self.key = key
        self.recognizer = recognizer

    def k(self, *parts: object) -> str:
        return ":".join((self.key, *map(str, parts)))

    # -- mode --------------------------------------------------------------------------------

    def mode_switch(self, draft: HandDraft) -> None:
        if self.recognizer is None:
            return
        mode_key = self.k("mode")
        st.session_state.setdefault(mode_key, draft.mode)
        st.segmented_control(
            self.t("mode.label"),
            MODES,
            format_func=lambda mode: self.t(f"mode.{mode}"),
            key=mode_key,
            required=True,
            on_change=self._mode_changed,
        )

    def _mode_changed(self) -> None:
        mode = st.session_state[self.k("mode")]
        draft = self.store.load()
        if mode in MODES and mode != draft.mode:
            self.store.save_entry(replace(draft, mode=mode))

    # -- photos ------------------------------------------------------------------------------

    def photo_side(self, draft: HandDraft, evaluation: HandEvaluation, side: str) -> None:
        t = self.t
        photos = draft.photos_of(side)
        render_photo_guidance(t, expanded=not photos)
        nonce_key = self.k("nonce", side)
        nonce = st.session_state.setdefault(nonce_key, 0)
        uploads = st.file_uploader(
            t("photo.upload", side=side),
            type=list(PHOTO_TYPES),
            accept_multiple_files=True,
            max_upload_size=MAX_PHOTO_BYTES // 2**20,  # the browser refuses bigger files at once
            key=self.k("upload", side, nonce),
        )
        # Streamlit's own uploader texts stay in English: say in ours what its button does.
        st.caption(t("photo.upload_help"))
        shot = None
        if st.toggle(t("photo.use_camera"), key=self.k("camera_on", side)):
            shot = st.camera_input(t("photo.camera", side=side), key=self.k("camera", side, nonce))
        new_files = [(f.name, f.getvalue()) for f in uploads or []]
        if shot is not None:
            new_files.append((shot.name or "camera.jpg", shot.getvalue()))
        if new_files:
            self._take_photos(side, new_files)
            st.session_state[nonce_key] = nonce + 1  # a fresh, empty uploader
            st.rerun()
        for level, text, name in st.session_state.pop(self.k("messages", side), []):
            if level == "error":
                st.error(text)
                continue
            # The count is the photo's cards in the side's final set, as in its caption.
            added = next((p for p in reversed(photos) if p.filename == name), None)
            count = len(evaluation.photo_cards(added)) if added else 0
            st.success(t.n("photo.added", count, name=name))

        for photo in photos:
            self._photo(photo, evaluation)
        if photos or evaluation.cards[side]:
            self._side_cards(draft, evaluation, side)

    def _take_photos(self, side: str, files: Sequence[tuple[str, bytes]]) -> None:
        t = self.t
        messages: list[tuple[str, str, str]] = []
        for name, data in files:
            try:
                if self.recognizer is None:
                    raise PhotoRejected("photo.no_recognizer")
                with st.spinner(t("photo.recognising", name=name)):
                    result = recognize_photo(data, name, self.recognizer)
                self.store.add_photo(side, data, name, result)
                messages.append(("success", "", name))
            except PhotoRejected as exc:
                messages.append(("error", t(exc.key, **exc.fields), name))
            except Exception:
                # The page must stay usable whatever a photo does to the recognizer.
                log.exception("recognition failed on %s", name)
                messages.append(("error", t("photo.failed", name=name), name))
        st.session_state[self.k("messages", side)] = messages

    def _photo(self, photo: DraftPhoto, evaluation: HandEvaluation) -> None:
        """The photo with a number on each card found, and the numbered list of what they are:
        numbers fit any box on a phone, where card names drawn on the photo overlap."""
        t = self.t
        numbers, colors, legend = self._marks(photo, evaluation)
        try:
            jpeg = _annotated(photo.sha256, tuple(numbers), tuple(colors), self.store, photo)
            st.image(
                jpeg,
                caption=t.n(
                    "photo.caption", len(evaluation.photo_cards(photo)), name=photo.filename
                ),
            )
        except Exception:
            log.exception("cannot draw photo %s", photo.filename)
            st.warning(t("photo.cannot_show", name=photo.filename))
        if legend:
            st.markdown(" · ".join(legend))
        st.button(
            t("photo.remove", name=photo.filename),
            key=self.k("remove_photo", photo.id),
            on_click=self.store.remove_photo,
            args=(photo.id,),
            icon=":material/delete:",
        )

    def _marks(
        self, photo: DraftPhoto, evaluation: HandEvaluation
    ) -> tuple[list[str | None], list[tuple[int, int, int]], list[str]]:
        """Per detection its number on the photo (None: not drawn) and colour (its state), and
        the legend: "**1** 7 di denari", "**2** asso di coppe (?)"."""
        assigned = evaluation.assigned.get(photo.id, ())
        states = evaluation.states.get(photo.id, ())
        numbers: list[str | None] = []
        colors: list[tuple[int, int, int]] = []
        legend: list[str] = []
        for card, state in zip(assigned, states, strict=True):
            colors.append(STATUS_COLORS.get(state, GREY))
            if state == "unused":  # a doubtful box no card needed: not drawn
                numbers.append(None)
                continue
            number = str(len(legend) + 1)
            numbers.append(number)
            name = self.t.card(card) if card is not None else self.t("photo.no_card")
            legend.append(f"**{number}** {name}{STATE_MARKS.get(state, '')}")
        return numbers, colors, legend

    def _side_cards(self, draft: HandDraft, evaluation: HandEvaluation, side: str) -> None:
        """The side's cards; picking one offers to remove it or move it to another side."""
        t = self.t
        cards = evaluation.cards[side]
        pick_key = self.k("pick", side)
        picked = st.pills(
            t("fix.side_cards", side=side, count=len(cards)),
            [card.code for card in cards],
            format_func=lambda code: t.card(Card.parse(code)),
            key=pick_key,
        )
        if not picked or Card.parse(picked) not in cards:
            return
        card = Card.parse(picked)
        st.button(
            t("fix.remove", card=t.card(card)),
            key=self.k("remove", side, card),
            on_click=self._correct,
            args=("remove", card, side, None, pick_key),
        )
        for other in draft.sides:
            if other != side:
                st.button(
                    t("fix.move", card=t.card(card), side=other),
                    key=self.k("move", side, card, other),
                    on_click=self._correct,
                    args=("move", card, side, other, pick_key),
                )

    def _correct(
        self, action: str, card: Card, side: str, to_side: str | None, clear: str | None = None
    ) -> None:
        self.store.add_correction(action, card, side, to_side)
        if clear:
            st.session_state[clear] = None

    def complement(self, draft: HandDraft) -> None:
        """Complement mode: one side is not photographed and gets the rest of the deck."""
        t = self.t
        on_key, side_key, count_key = (self.k("complement", part) for part in ("on", "side", "n"))
        side, count = draft.complement or (draft.sides[-1], 20)
        st.session_state.setdefault(on_key, draft.complement is not None)
        st.session_state.setdefault(side_key, side)
        st.session_state.setdefault(count_key, count)
        st.toggle(t("complement.toggle"), key=on_key, on_change=self._complement_changed)
        if st.session_state[on_key]:
            st.caption(t("complement.help"))
            st.selectbox(
                t("complement.side"),
                draft.sides,
                key=side_key,
                on_change=self._complement_changed,
            )
            st.number_input(
                t("complement.count"),
                min_value=0,
                max_value=40,
                step=1,
                key=count_key,
                on_change=self._complement_changed,
            )

    def _complement_changed(self) -> None:
        on, side, count = (
            st.session_state.get(self.k("complement", part)) for part in ("on", "side", "n")
        )
        draft = self.store.load()
        complement = (
            (side, int(count)) if on and side in draft.sides and count is not None else None
        )
        self.store.save_entry(replace(draft, complement=complement))

    # -- manual grid -------------------------------------------------------------------------

    def manual_side(self, draft: HandDraft, evaluation: HandEvaluation, side: str) -> None:
        t = self.t
        picked = draft.manual_of(side)
        st.caption(t("manual.help", side=side))
        for suit in Suit:
            grid_key = self.k("grid", side, suit.value)
            st.session_state.setdefault(grid_key, _codes(picked, suit))
            st.pills(
                t.suit(suit).capitalize(),
                [card.code for card in DECK if card.suit is suit],
                selection_mode="multi",
                format_func=lambda code: t(f"rank_short.{Card.parse(code).rank}"),
                key=grid_key,
                on_change=self._grid_changed,
                args=(side,),
            )
        if evaluation.missing:
            st.button(
                t.n("manual.rest", len(evaluation.missing), side=side),
                key=self.k("rest", side),
                on_click=self._add_manual,
                args=(side, evaluation.missing),
            )

    def _grid_changed(self, side: str) -> None:
        cards = frozenset(
            Card.parse(code)
            for suit in Suit
            for code in st.session_state.get(self.k("grid", side, suit.value)) or ()
        )
        self.store.save_entry(self.store.load().with_manual(side, cards))

    def _add_manual(self, side: str, cards: Sequence[Card]) -> None:
        draft = self.store.load()
        self._set_manual(draft.with_manual(side, draft.manual_of(side) | frozenset(cards)))

    def _keep_only(self, card: Card, side: str) -> None:
        """Resolve a manual conflict: the card belongs to `side` alone."""
        draft = self.store.load()
        for other in draft.sides:
            if other != side:
                draft = draft.with_manual(other, draft.manual_of(other) - {card})
        self._set_manual(draft)

    def _set_manual(self, draft: HandDraft) -> None:
        self.store.save_entry(draft)
        for side in draft.sides:  # the grid widgets show the stored cards on the next run
            for suit in Suit:
                st.session_state[self.k("grid", side, suit.value)] = _codes(
                    draft.manual_of(side), suit
                )

    # -- scope -------------------------------------------------------------------------------

    def scope_control(self, draft: HandDraft, side: str) -> None:
        t = self.t
        scope = draft.scope_of(side)
        # One row on a phone too: "Scope di Noi: 2  [−] [+]".
        row = st.container(horizontal=True, vertical_alignment="center")
        row.markdown(f"**{t('scope.label', side=side)}: {scope}**")
        row.button(
            "−",
            key=self.k("scope", side, "minus"),
            on_click=self._change_scope,
            args=(side, -1),
            disabled=scope == 0,
            help=t("scope.minus"),
        )
        row.button(
            "+",
            key=self.k("scope", side, "plus"),
            on_click=self._change_scope,
            args=(side, 1),
            help=t("scope.plus"),
        )

    def _change_scope(self, side: str, delta: int) -> None:
        draft = self.store.load()
        self.store.save_entry(draft.with_scope(side, draft.scope_of(side) + delta))

    # -- checks and one-tap fixes ------------------------------------------------------------

    def checks(self, draft: HandDraft, evaluation: HandEvaluation) -> None:
        t = self.t
        if evaluation.complement_count is not None:
            side, expected, found = evaluation.complement_count
            st.warning(t("check.complement_count", side=side, expected=expected, found=found))
        if evaluation.error is not None:
            st.error(t(evaluation.error[0], **evaluation.error[1]))
        for conflict in evaluation.conflicts:
            self._conflict(conflict)
        doubts = evaluation.uncertain
        for doubt in doubts[:DOUBTS_SHOWN]:
            self._uncertain(doubt)
        if len(doubts) > DOUBTS_SHOWN:  # a bad photo: keep the page short, the rest one tap away
            with st.expander(t.n("check.more_uncertain", len(doubts) - DOUBTS_SHOWN)):
                for doubt in doubts[DOUBTS_SHOWN:]:
                    self._uncertain(doubt)
        if evaluation.extra:
            st.info(t.n("check.extra", evaluation.extra))
        if not any(evaluation.cards.values()) and not evaluation.error:
            st.info(t(f"check.empty.{draft.mode}"))  # nothing entered yet: no alarms
        elif evaluation.missing:
            self._missing(draft, evaluation)
        elif not evaluation.conflicts and evaluation.complement_count is None:
            st.success(t("check.complete"))
        # Advice on missing cards repeats the rows above, which also offer the fix.
        advice = [a.text[t.lang] for a in evaluation.advice if a.key not in MISSING_ADVICE]
        if advice:
            st.markdown("\n".join(f"- {text}" for text in advice))
        if evaluation.ready and not evaluation.determinate:
            st.warning(t("check.not_determinate"))
        if draft.mode == PHOTOS and draft.corrections:
            self._corrections(draft)

    def _side_buttons(
        self,
        sides: Sequence[str],
        label: Callable[[str], str],
        key: str,
        on_click: Callable[..., None],
        args: Callable[[str], tuple[Any, ...]],
    ) -> None:
        row = st.container(horizontal=True)
        for side in sides:
            row.button(label(side), key=self.k(key, side), on_click=on_click, args=args(side))

    def _missing(self, draft: HandDraft, evaluation: HandEvaluation) -> None:
        t = self.t
        st.warning(t.n("check.missing", len(evaluation.missing)))
        # The missing cards that decide something (a doubtful reading may decide things too,
        # but it is not missing: its row is above).
        missing = set(evaluation.missing)
        deciding: dict[Card, list[str]] = {}
        for category, cards in evaluation.deciding.items():
            for card in cards:
                if card in missing:
                    deciding.setdefault(card, []).append(t.category(category))
        if len(deciding) <= DECIDING_ROWS:
            # Few cards decide the score: one row each, with a button per side.
            for card in sorted(deciding):
                st.markdown(
                    t("check.deciding", card=t.card(card), categories=", ".join(deciding[card]))
                )

                def add_args(side: str, card: Card = card) -> tuple[Card, str]:
                    return (card, side)

                self._side_buttons(
                    draft.sides,
                    lambda side: t("fix.add_to", side=side),
                    f"add:{card}",
                    self._add,
                    add_args,
                )
        elif len(deciding) <= DECIDING_LISTED:
            st.markdown(t("check.deciding_many", cards=t.cards(sorted(deciding))))
        else:  # most of the deck is still to come: naming every card helps nobody
            st.markdown(t("check.deciding_count", count=len(deciding)))
        others = [card for card in evaluation.missing if card not in deciding]
        if others and len(deciding) <= DECIDING_LISTED:
            # "Also missing" only after cards named above.
            key = "check.not_deciding" if deciding else "check.missing_list"
            st.caption(t(key, cards=t.cards(others)))
        add_key = self.k("add_card")
        choice = st.selectbox(
            t("fix.add_card"),
            [card.code for card in sorted(evaluation.missing, key=lambda c: c not in deciding)],
            format_func=lambda code: t.card(Card.parse(code)),
            index=None,
            placeholder=t("fix.add_placeholder"),
            key=add_key,
        )
        if choice is not None:
            card = Card.parse(choice)
            self._side_buttons(
                draft.sides,
                lambda side: t("fix.add_to", side=side),
                "add_choice",
                self._add,
                lambda side: (card, side, add_key),
            )

    def _add(self, card: Card, side: str, clear: str | None = None) -> None:
        if self.store.load().mode == MANUAL:
            self._add_manual(side, [card])
        else:
            self.store.add_correction("add", card, side, None)
        if clear:
            st.session_state[clear] = None

    def _conflict(self, conflict: Conflict) -> None:
        t = self.t
        card, sides = conflict.card, conflict.sides
        if conflict.kind == "photo":
            st.error(t("check.conflict_photo", card=t.card(card), side=sides[0]))
            return  # the advice says which photo to take again; the card's pill fixes it
        if conflict.owner is not None and conflict.shown:
            # Say what the page shows: the card is in one side; a box of another side, shown
            # as some other card, looks like it.
            shown = ", ".join(
                t(
                    "check.conflict_box",
                    side=side,
                    shown=t.card(card_shown) if card_shown else t("photo.no_card"),
                )
                for side, card_shown in conflict.shown
            )
            st.error(
                t("check.conflict_shown", card=t.card(card), owner=conflict.owner, boxes=shown)
            )
        else:
            st.error(t("check.conflict", card=t.card(card), sides=", ".join(sides)))
        self._side_buttons(
            sides,
            lambda side: t("fix.belongs_to", side=side),
            f"owner:{card}",
            self._resolve_conflict,
            lambda side: (card, side, tuple(sides)),
        )

    def _resolve_conflict(self, card: Card, side: str, claimants: tuple[str, ...]) -> None:
        if self.store.load().mode == MANUAL:
            self._keep_only(card, side)
            return
        for other in claimants:
            if other != side:
                self.store.add_correction("remove", card, other, None)

    def _uncertain(self, doubt: Uncertain) -> None:
        t = self.t
        card, side = doubt.card, doubt.side
        alternatives = doubt.alternatives[:ALTERNATIVES_SHOWN]  # a long list helps nobody
        text = t("check.uncertain", card=t.card(card), side=side)
        if alternatives:
            text += " " + t("check.alternatives", cards=t.cards(alternatives))
        st.warning(text)
        row = st.container(horizontal=True)
        row.button(
            t("fix.confirm", card=t.card(card)),
            key=self.k("confirm", side, card),
            on_click=self._correct,
            args=("confirm", card, side, None),
        )
        for alternative in alternatives:
            row.button(
                t("fix.replace", card=t.card(alternative)),
                key=self.k("replace", side, card, alternative),
                on_click=self._replace,
                args=(card, alternative, side),
            )

    def _replace(self, card: Card, alternative: Card, side: str) -> None:
        """The doubtful card is in fact `alternative`: not `card`, but `alternative`, in `side`."""
        self.store.add_correction("remove", card, side, None)
        self.store.add_correction("add", alternative, side, None)

    def _corrections(self, draft: HandDraft) -> None:
        t = self.t
        with st.expander(t("fix.corrections", count=len(draft.corrections))):
            for fix in draft.corrections:
                text = t(
                    f"fix.done.{fix.action}", card=t.card(fix.card), side=fix.side, to=fix.to_side
                )
                st.markdown(f"- {text}")
                st.button(
                    t("fix.undo"),
                    key=self.k("undo_fix", fix.id),
                    on_click=self.store.remove_correction,
                    args=(fix.id,),
                )


def _codes(cards: frozenset[Card], suit: Suit) -> list[str]:
    return [card.code for card in sorted(cards) if card.suit is suit]


@st.cache_data(max_entries=16, show_spinner=False)
def _decoded(sha256: str, _store: HandDraftStore, _photo: DraftPhoto) -> Any:
    # Decoding a phone photo is the slow part of drawing it: once per photo.
    return display_image(_store.photo_bytes(_photo.id))


@st.cache_data(max_entries=48, show_spinner=False)
def _annotated(
    sha256: str,
    labels: tuple[str | None, ...],
    colors: tuple[tuple[int, int, int], ...],
    _store: HandDraftStore,
    _photo: DraftPhoto,
) -> bytes:
    # Keyed by the photo's hash and what is drawn on it; the store and photo are not hashed.
    # JPEG bytes: far lighter than PNG on a phone connection, and encoded once.
    return draw_marks(_decoded(sha256, _store, _photo), _photo.result, labels, colors)
