"""The single-match page: set up or resume a match, then enter hand after hand until it is won.

State that must survive a reload lives in the database and in the URL
(`?match=<public id>&lang=en`); `st.session_state` only remembers what is on screen (the hand
being edited, a message to show). The URL names a match only by its unguessable public id, never
by the sequential database id, so one match's address does not lead to the others.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import streamlit as st

from scopa.database import resolve_db_url
from scopa.i18n import DEFAULT_LANGUAGE, LANGUAGES, Translator
from scopa.plaintext import escape_markdown
from scopa.storage import MatchRepository, StoredHand, StoredMatch
from scopa.ui.draft import MANUAL, PHOTOS, RepositoryDraftStore
from scopa.ui.export import match_csv, replay, rules_of
from scopa.ui.hand_entry import HandSubmission, render_hand_entry
from scopa.ui.match_view import (
    render_chart,
    render_history,
    render_outcome,
    render_scoreboard,
    rules_summary,
)
from scopa.ui.photos import PhotoRejected
from scopa.ui.setup import render_match_setup
from scopa.ui.table import apply_table_style, render_phone_link
from scoring import SPAREGGIO, WON, Match, ScopaError, SideInput

MATCH = "match_id"  # the public id of the match on screen (`StoredMatch.public_id`)
EDITING = "editing"
FLASH = "flash"
CELEBRATE = "celebrate"
LANG = "lang"
UNDO_ASKED = "undo_asked"
REDO = "undone_hand"  # the hand last undone: {"match": id, "number": n, "sides": {...}}
EARLIER_MATCHES = 20  # listed on the start page, most recent first


@st.cache_resource(show_spinner=False)
def _repository(url: str) -> MatchRepository:
    return MatchRepository(url)


def repository() -> MatchRepository:
    """The database of `SCOPA_DB_URL` (default: an SQLite file), opened once per process."""
    return _repository(resolve_db_url())


@st.cache_resource(show_spinner=False)
def _loading(deck: str) -> threading.Thread:
    """The models of a deck loading in the background, started once per server process."""

    def load() -> None:
        from vision import get_recognizer

        with contextlib.suppress(Exception):  # a failure is reported when a photo needs them
            get_recognizer(deck=deck)
            import vision.reconcile  # noqa: F401  (scipy: the first photo's reconciliation)

    thread = threading.Thread(target=load, name=f"load-models-{deck}", daemon=True)
    thread.start()
    return thread


def preload_recognizer(deck: str = "napoletane") -> None:
    """Start loading the models now, so that the first photo does not wait for them."""
    _loading(deck)


@st.cache_resource(show_spinner=False)
def _recognizer(deck: str):
    from vision import get_recognizer

    _loading(deck).join()  # the background load, if still running, rather than a second one
    return get_recognizer(deck=deck)


def recognizer_loader(deck: str) -> Callable[[], object]:
    """A loader for `render_hand_entry`: the models load in the background from now on (if not
    already loaded), once per process; a photo waits only for what is left of that."""
    preload_recognizer(deck)

    def load():
        from vision.pipeline import ModelsMissingError

        try:
            return _recognizer(deck)
        except ModelsMissingError as exc:
            raise PhotoRejected("photo.no_models") from exc

    return load


def models_available() -> bool:
    from vision.pipeline import DETECTOR_FILE, IDENTIFIER_FILE, MODELS_DIR

    return all((Path(MODELS_DIR) / name).is_file() for name in (DETECTOR_FILE, IDENTIFIER_FILE))


def render_page() -> None:
    """The whole page; `app.py` calls this after `st.set_page_config`."""
    t = Translator(_language())
    apply_table_style()
    _header(t)
    for message in st.session_state.pop(FLASH, []):
        st.toast(message)
    repo = repository()
    public_id = _current_public_id()
    if public_id is None:
        _start(repo, t)
        return
    try:
        stored = repo.get_match_by_public_id(public_id)
    except ScopaError:
        # An old integer id, a mistyped or deleted match: say so, and show the start page.
        _leave_match()
        st.warning(t("match.not_found"), icon=":material/link_off:")
        _start(repo, t)
        return
    _match_page(repo, stored, t.for_deck(stored.deck))


# -- language, URL, messages ---------------------------------------------------------------


def _language() -> str:
    if LANG not in st.session_state:
        asked = st.query_params.get("lang", DEFAULT_LANGUAGE)
        st.session_state[LANG] = asked if asked in LANGUAGES else DEFAULT_LANGUAGE
    return st.session_state[LANG]


def _language_changed() -> None:
    st.query_params["lang"] = st.session_state[LANG]


def _header(t: Translator) -> None:
    st.container(horizontal=True, horizontal_alignment="right").segmented_control(
        t("app.language"),
        list(LANGUAGES),
        format_func=lambda lang: lang.upper(),
        key=LANG,
        required=True,
        label_visibility="collapsed",
        on_change=_language_changed,
    )
    st.title(t("app.title"))


def _flash(message: str) -> None:
    st.session_state.setdefault(FLASH, []).append(message)


def _current_public_id() -> str | None:
    if MATCH not in st.session_state:
        st.session_state[MATCH] = st.query_params.get("match", "").strip() or None
    return st.session_state[MATCH]


def _open_match(public_id: str) -> None:
    st.session_state[MATCH] = public_id
    st.session_state.pop(EDITING, None)
    st.query_params["match"] = public_id


def _leave_match() -> None:
    st.session_state[MATCH] = None
    st.session_state.pop(EDITING, None)
    st.query_params.pop("match", None)


# -- start: resume or set up -------------------------------------------------------------------


def _start(repo: MatchRepository, t: Translator) -> None:
    latest = repo.latest_unfinished_match()
    if latest is not None:
        match = replay(latest)
        with st.container(border=True):
            st.subheader(t("resume.title"))
            scores = " – ".join(f"{side} {match.totals[side]}" for side in latest.sides)
            st.markdown(
                t(
                    "resume.summary",
                    scores=scores,
                    hands=len(latest.hands),
                    date=_local_time(latest.updated_at),
                )
            )
            st.button(
                t("resume.button"),
                type="primary",
                key="resume",
                on_click=_open_match,
                args=(latest.public_id,),
                width="stretch",
            )
    render_phone_link(t)
    st.subheader(t("setup.title"))
    setup = render_match_setup(t)
    if setup is not None:
        stored = repo.create_match(setup.rules.to_dict(), setup.sides, deck=setup.deck)
        first = PHOTOS if models_available() else MANUAL
        repo.open_draft(stored.id, entry={"mode": first, "dealer": setup.first_dealer})
        _open_match(stored.public_id)
        st.rerun()
    _earlier_matches(repo, t, skip=latest.id if latest else None)


def _local_time(stored: datetime) -> str:
    # Stored in UTC (an aware datetime); shown in the server's time zone, the table's own.
    return stored.astimezone().strftime("%d/%m/%Y %H:%M")


def _earlier_matches(repo: MatchRepository, t: Translator, skip: int | None) -> None:
    """Older matches, to look at their hands and photos again or to resume one."""
    earlier = [m for m in repo.list_matches(limit=EARLIER_MATCHES) if m.id != skip]
    if not earlier:
        return
    with st.expander(t("earlier.title", count=len(earlier)), icon=":material/history:"):
        for stored in earlier:
            try:
                totals = replay(stored).totals
            except ScopaError:  # rules this version cannot read: still list the match
                totals = {}
            scores = " – ".join(
                f"{escape_markdown(side)} {totals.get(side, '?')}" for side in stored.sides
            )
            state = (
                t("earlier.won", side=stored.winner)
                if stored.finished and stored.winner
                else t("earlier.finished")
                if stored.finished
                else t("earlier.open")
            )
            row = st.columns([5, 1], vertical_alignment="center")
            row[0].markdown(
                f"**{scores}** · {state}  \n"
                + t("earlier.when", date=_local_time(stored.updated_at), hands=len(stored.hands))
            )
            row[1].button(
                t("earlier.open_button"),
                key=f"earlier-{stored.id}",
                on_click=_open_match,
                args=(stored.public_id,),
            )


# -- a match -----------------------------------------------------------------------------------


def _match_page(repo: MatchRepository, stored: StoredMatch, t: Translator) -> None:
    try:
        match = replay(stored)
    except ScopaError as exc:
        st.error(t("match.unreadable", detail=str(exc)))
        st.button(t("actions.new_match"), on_click=_leave_match, key="new_match")
        return
    if (stored.status, stored.winner) != (match.status, match.winner):
        repo.set_outcome(stored.id, match.status, match.winner)

    st.subheader(" – ".join(escape_markdown(side) for side in stored.sides))
    st.caption(rules_summary(match.rules, t))
    render_scoreboard(match, t)
    render_outcome(match, t)
    if st.session_state.pop(CELEBRATE, False):
        st.balloons()

    editing = st.session_state.get(EDITING)
    if editing is not None and any(hand.id == editing for hand in stored.hands):
        _edit_hand(repo, stored, editing, t)
    elif match.status != WON:
        _next_hand(repo, stored, match, t)

    if match.hands:
        st.subheader(t("chart.title"))
        render_chart(match, t)
        st.subheader(t("history.title"))
        render_history(repo, stored, match, t, on_edit=_start_edit if editing is None else None)
    _actions(repo, stored, match, t)


def _next_hand(repo: MatchRepository, stored: StoredMatch, match: Match, t: Translator) -> None:
    number = len(match.hands) + 1
    heading = t("hand.title", number=number)
    if match.status == SPAREGGIO:
        heading += " · " + t("hand.spareggio")
    st.subheader(heading)
    # A new hand is entered the way the previous one was; the first by photo when possible.
    mode = stored.hands[-1].entry.get("mode") if stored.hands else None
    mode = mode or (PHOTOS if models_available() else MANUAL)
    draft = repo.open_draft(stored.id, entry={"mode": mode, "dealer": _next_dealer(stored)})
    dealer = (draft.entry or {}).get("dealer")
    if dealer in stored.sides:
        st.caption(t("hand.dealer", side=dealer))
    store = RepositoryDraftStore(repo, draft.id, stored.sides)
    submission = render_hand_entry(
        store,
        match.rules,
        t,
        key=f"hand-{draft.id}",
        recognizer=recognizer_loader(stored.deck),
    )
    if submission is None:
        return
    after = replay(stored)
    try:
        after.add_hand(submission.sides)
    except ScopaError as exc:
        st.error(t("check.invalid", detail=str(exc)))
        return
    if not _commit(repo, draft.id, submission, after):
        st.rerun()  # saved already (a double tap, or another tab): show the match as it is
    _flash(t("hand.saved", number=number))
    if after.status == WON:
        st.session_state[CELEBRATE] = True
    st.rerun()


def _next_dealer(stored: StoredMatch) -> str | None:
    """The deal turns to the next side each hand (None when the last dealer is not known)."""
    if not stored.hands:
        return None
    last = (stored.hands[-1].entry or {}).get("dealer")
    if last not in stored.sides:
        return None
    return stored.sides[(stored.sides.index(last) + 1) % len(stored.sides)]


def _commit(repo: MatchRepository, draft_id: int, submission: HandSubmission, after: Match) -> bool:
    """Store a saved hand with the match outcome after it; False if the draft is gone."""
    try:
        repo.commit_hand(
            draft_id,
            submission.sides_json(),
            submission.result.to_dict(),
            outcome=(after.status, after.winner),
        )
    except ScopaError:
        return False
    return True


def _start_edit(hand: StoredHand) -> None:
    st.session_state[EDITING] = hand.id


def _cancel_edit(repo: MatchRepository, draft_id: int) -> None:
    st.session_state.pop(EDITING, None)
    with contextlib.suppress(ScopaError):  # already saved or discarded from another tab
        repo.discard_draft(draft_id)


def _edit_hand(repo: MatchRepository, stored: StoredMatch, hand_id: int, t: Translator) -> None:
    index, hand = next((i, h) for i, h in enumerate(stored.hands) if h.id == hand_id)
    st.subheader(t("edit.title", number=index + 1))
    # The edit starts from what was saved: its scope, and its cards for the manual grid.
    saved = hand.sides or {}
    draft = repo.open_draft(
        stored.id,
        replaces=hand_id,
        entry={
            "scope": {side: spec["scope"] for side, spec in saved.items()},
            "manual": {side: spec["cards"] for side, spec in saved.items()},
        },
    )
    store = RepositoryDraftStore(repo, draft.id, stored.sides)
    submission = render_hand_entry(
        store,
        rules_of(stored),
        t,
        key=f"edit-{draft.id}",
        recognizer=recognizer_loader(stored.deck),
        submit_label=t("edit.save"),
    )
    st.button(
        t("edit.cancel"),
        key="edit:cancel",
        on_click=_cancel_edit,
        args=(repo, draft.id),
        width="stretch",
    )
    if submission is None:
        return
    after = replay(stored)
    try:
        after.replace_hand(index, submission.sides)
    except ScopaError:
        st.error(t("edit.impossible", number=index + 1))
        return
    if _commit(repo, draft.id, submission, after):
        _flash(t("edit.saved", number=index + 1))
    st.session_state.pop(EDITING, None)
    st.rerun()


def _undo(repo: MatchRepository, match_id: int, t: Translator) -> None:
    # Read the match again: another tab, or a double tap, may have undone a hand already.
    st.session_state.pop(UNDO_ASKED, None)
    stored = repo.get_match(match_id)
    if not stored.hands:
        return
    last = stored.hands[-1]
    after = replay(stored)
    after.undo_last()
    repo.undo_last_hand(stored.id, outcome=(after.status, after.winner))
    st.session_state.pop(EDITING, None)
    st.session_state[REDO] = {
        "match": match_id,
        "number": len(stored.hands),
        "sides": last.sides,
        "dealer": (last.entry or {}).get("dealer"),
    }
    _flash(t("actions.undone", number=len(stored.hands)))


def _redo(repo: MatchRepository, match_id: int, t: Translator) -> None:
    """Record again the hand last undone (its cards and scope; its photos are gone)."""
    undone = st.session_state.pop(REDO, None)
    stored = repo.get_match(match_id)
    if not undone or undone["match"] != match_id or undone["number"] != len(stored.hands) + 1:
        return
    after = replay(stored)
    sides = undone["sides"]
    try:
        result = after.add_hand({side: SideInput.from_spec(spec) for side, spec in sides.items()})
        draft = repo.open_draft(match_id, entry={"mode": MANUAL})
        entry = {
            "mode": MANUAL,
            "manual": {side: spec["cards"] for side, spec in sides.items()},
            "scope": {side: spec["scope"] for side, spec in sides.items()},
            "dealer": undone.get("dealer"),
        }
        repo.save_entry(draft.id, entry)
        repo.commit_hand(draft.id, sides, result.to_dict(), outcome=(after.status, after.winner))
    except ScopaError:
        _flash(t("actions.redo_failed", number=undone["number"]))
        return
    _flash(t("actions.redone", number=undone["number"]))


def _can_redo(repo: MatchRepository, stored: StoredMatch) -> bool:
    undone = st.session_state.get(REDO)
    if not undone or undone["match"] != stored.id or undone["number"] != len(stored.hands) + 1:
        return False
    # Only over an untouched next hand: a redo must not drop what was entered since.
    draft = repo.draft(stored.id)
    return draft is None or not (
        draft.photos or draft.corrections or (draft.entry or {}).get("manual")
    )


def _actions(repo: MatchRepository, stored: StoredMatch, match: Match, t: Translator) -> None:
    st.subheader(t("actions.title"))
    if st.session_state.get(UNDO_ASKED) and stored.hands:
        # Undo deletes a recorded hand with its photos: ask first.
        st.warning(t("actions.undo_confirm", number=len(stored.hands)))
        row = st.container(horizontal=True)
        row.button(
            t("actions.undo_yes"),
            key="undo:yes",
            type="primary",
            on_click=_undo,
            args=(repo, stored.id, t),
        )
        row.button(
            t("actions.undo_no"), key="undo:no", on_click=st.session_state.pop, args=(UNDO_ASKED,)
        )
    else:
        st.button(
            t("actions.undo"),
            key="undo",
            on_click=st.session_state.__setitem__,
            args=(UNDO_ASKED, True),
            disabled=not stored.hands,
            icon=":material/undo:",
            width="stretch",
        )
    if _can_redo(repo, stored):
        st.button(
            t("actions.redo", number=st.session_state[REDO]["number"]),
            key="redo",
            on_click=_redo,
            args=(repo, stored.id, t),
            icon=":material/redo:",
            width="stretch",
        )
    st.download_button(
        t("actions.csv"),
        data=match_csv(stored, match, t),
        file_name=f"scopa-{stored.id}.csv",
        mime="text/csv",
        key="csv",
        disabled=not stored.hands,
        icon=":material/download:",
        width="stretch",
    )
    st.button(
        t("actions.new_match"),
        key="new_match",
        on_click=_leave_match,
        icon=":material/add:",
        width="stretch",
    )
