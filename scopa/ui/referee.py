"""The Arbitro (referee) page: create a tournament, pair the rounds, hand out table codes,
verify hands against their photos, accept, correct or void any recorded hand, export the results.

Everything but creating a tournament asks for that tournament's referee password. The page is
`render_referee_page()`; `pages/1_Arbitro.py` only calls it. What must survive a rerun lives in
`st.session_state` (the logged-in desk, the last verification report, a correction being made).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from scopa.i18n import Translator
from scopa.plaintext import escape_markdown
from scopa.tournament import MatchView, PairSetup, RefereeDesk, TournamentService, TournamentSetup
from scopa.tournament.export import codes_html, export_all, results_html
from scopa.tournament.records import HandView, TournamentInfo, group_label
from scopa.tournament.security import AccessDenied, format_table_code
from scopa.tournament.service import FINISHED
from scopa.tournament.text import TournamentText
from scopa.tournament.ui import (
    client_id,
    describe_error,
    describe_finding,
    header,
    language,
    matches_frame,
    pair_names,
    service,
    standings_frame,
    texts,
)
from scopa.tournament.verify import HandCheck
from scopa.ui.draft import MANUAL, HandDraft, MemoryDraftStore
from scopa.ui.hand_entry import render_hand_entry
from scopa.ui.photos import thumbnail
from scoring import PRESETS, Card, Rules, ScopaError

NEW = 0
DESK = "referee_desk"
REPORT = "verification"
CHOSEN = "chosen"
DECKS = ("napoletane", "francesi")
KNOCKOUT_SIZES = (0, 2, 4, 8, 16, 32)
TABS = ("pairs", "rounds", "standings", "verify", "hands", "exports", "audit", "settings")


def render_referee_page() -> None:
    st.set_page_config(page_title="Arbitro · Scopa", page_icon=":material/sports:", layout="wide")
    t, tr = texts()
    header(t("tour.ref.title"))
    RefereePage(service(), t, tr).render()


class RefereePage:
    """One run of the referee's page: the service and the strings, shared by its sections."""

    def __init__(self, svc: TournamentService, t: TournamentText, tr: Translator) -> None:
        self.svc = svc
        self.t = t
        self.tr = tr

    # -- the page ---------------------------------------------------------------------------------

    def render(self) -> None:
        t = self.t
        tournaments = {info.id: info for info in self.svc.tournaments()}
        options = [NEW, *tournaments]
        default = st.session_state.get(CHOSEN, next(iter(tournaments), NEW))
        chosen = st.selectbox(
            t("tour.ref.choose"),
            options,
            index=options.index(default) if default in options else 0,
            format_func=lambda i: t("tour.ref.new") if i == NEW else tournaments[i].name,
        )
        st.session_state[CHOSEN] = chosen
        if chosen == NEW:
            self.create_form()
            return
        desk = st.session_state.get(DESK)
        if desk is None or desk.tournament_id != chosen:
            self.login_form(chosen)
            return
        try:
            info = desk.info()
        except AccessDenied as exc:  # the password was changed in another session
            st.session_state.pop(DESK, None)
            st.error(describe_error(exc, t))
            self.login_form(chosen)
            return
        st.caption(f"{t(f'tour.stage.{info.stage}')} · {t(f'tour.format.{info.format}')}")
        sections: dict[str, Callable[[RefereeDesk], None]] = {
            "pairs": self.pairs_tab,
            "rounds": self.rounds_tab,
            "standings": self.standings_tab,
            "verify": self.verify_tab,
            "hands": self.hands_tab,
            "exports": self.exports_tab,
            "audit": self.audit_tab,
            "settings": self.settings_tab,
        }
        tabs = st.tabs([t(f"tour.ref.tab.{name}") for name in TABS])
        for tab, name in zip(tabs, TABS, strict=True):
            with tab:
                sections[name](desk)

    def show_error(self, action: Callable[[], Any]) -> bool:
        """Run a referee action; show its error in the page's language. True when it succeeded."""
        try:
            action()
        except ScopaError as exc:
            st.error(describe_error(exc, self.t))
            return False
        return True

    # -- creating a tournament, logging in --------------------------------------------------------

    def create_form(self) -> None:
        t, tr = self.t, self.tr
        st.subheader(t("tour.ref.new"))
        with st.form("create"):
            name = st.text_input(t("tour.ref.name"))
            date = st.date_input(t("tour.ref.date"), value=dt.date.today(), format="DD/MM/YYYY")
            left, right = st.columns(2)
            preset = left.selectbox(
                t("tour.ref.preset"),
                list(PRESETS),
                index=list(PRESETS).index("torneo-assi"),
                format_func=lambda p: tr(f"preset.{p}"),
            )
            target = right.number_input(t("tour.ref.target"), min_value=0, max_value=100, value=0)
            st.caption(t("tour.ref.target_help"))
            deck = left.selectbox(tr("setup.deck"), DECKS, format_func=lambda d: tr(f"deck.{d}"))
            fmt = right.radio(
                t("tour.ref.format"),
                ("round-robin", "swiss"),
                format_func=lambda f: t(f"tour.format.{f}"),
                horizontal=True,
            )
            groups = left.number_input(t("tour.ref.groups"), min_value=1, max_value=16, value=1)
            swiss_rounds = right.number_input(t("tour.ref.swiss_rounds"), min_value=1, value=5)
            knockout = left.selectbox(
                t("tour.ref.knockout"),
                KNOCKOUT_SIZES,
                format_func=lambda n: t("tour.ref.no_knockout") if n == 0 else str(n),
            )
            pairs_text = st.text_area(
                t("tour.ref.pairs"), height=200, help=t("tour.ref.pairs_help")
            )
            password = st.text_input(t("tour.ref.password"), type="password")
            again = st.text_input(t("tour.ref.password_again"), type="password")
            if not st.form_submit_button(t("tour.ref.create"), type="primary"):
                return
        if password != again:
            st.error(t("tour.ref.password_mismatch"))
            return
        pairs = []
        for line in pairs_text.splitlines():
            fields = [part.strip() for part in line.split(";")] + ["", ""]
            if fields[0]:
                pairs.append(PairSetup(fields[0], fields[1], fields[2]))
        rules = Rules.from_preset(preset, **({"target": int(target)} if target else {}))
        setup = TournamentSetup(
            name=name,
            pairs=pairs,
            rules=rules.to_dict(),
            date=date,
            format=fmt,
            groups=int(groups),
            swiss_rounds=int(swiss_rounds),
            knockout_size=int(knockout),
            deck=deck,
        )
        try:
            tournament_id = self.svc.create_tournament(setup, password)
        except ScopaError as exc:
            st.error(describe_error(exc, t))
            return
        st.session_state[DESK] = self.svc.referee(tournament_id, password, client=client_id())
        st.session_state[CHOSEN] = tournament_id
        st.rerun()

    def login_form(self, tournament_id: int) -> None:
        t = self.t
        with st.form("login"):
            password = st.text_input(t("tour.ref.password"), type="password")
            if not st.form_submit_button(t("tour.ref.login"), type="primary"):
                return
        try:
            st.session_state[DESK] = self.svc.referee(tournament_id, password, client=client_id())
        except AccessDenied as exc:
            # "Wrong password", or "too many attempts: try again in N s" (the secret unchecked).
            st.error(describe_error(exc, t))
            return
        st.rerun()

    # -- pairs --------------------------------------------------------------------------------------

    def pairs_tab(self, desk: RefereeDesk) -> None:
        t = self.t
        info = desk.info()
        pairs = self.svc.pairs(desk.tournament_id)
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "#": p.seed,
                        t("tour.col.pair"): p.name,
                        t("tour.col.players"): p.players,
                        t("tour.group", label=""): group_label(p.group),
                    }
                    for p in pairs
                ]
            ),
            hide_index=True,
        )
        by_id = {p.id: p for p in pairs}
        if info.stage == "setup":
            with st.form("add_pair", clear_on_submit=True):
                cols = st.columns(3)
                name = cols[0].text_input(t("tour.col.pair"))
                player1 = cols[1].text_input(t("tour.ref.player", n=1))
                player2 = cols[2].text_input(t("tour.ref.player", n=2))
                if st.form_submit_button(t("tour.ref.add_pair")) and self.show_error(
                    lambda: desk.add_pair(PairSetup(name, player1, player2))
                ):
                    st.rerun()
            if pairs:
                gone = st.selectbox(
                    t("tour.ref.remove_pair"), list(by_id), format_func=lambda i: by_id[i].name
                )
                if st.button(t("tour.ref.remove")) and self.show_error(
                    lambda: desk.remove_pair(gone)
                ):
                    st.rerun()
            if st.button(t("tour.ref.start"), type="primary") and self.show_error(desk.start):
                st.rerun()
        elif pairs:
            with st.form("rename"):
                chosen = st.selectbox(
                    t("tour.col.pair"), list(by_id), format_func=lambda i: by_id[i].name
                )
                cols = st.columns(3)
                name = cols[0].text_input(t("tour.ref.new_name"))
                player1 = cols[1].text_input(t("tour.ref.player", n=1))
                player2 = cols[2].text_input(t("tour.ref.player", n=2))
                if st.form_submit_button(t("tour.ref.rename")) and self.show_error(
                    lambda: desk.update_pair(
                        chosen,
                        PairSetup(
                            name or by_id[chosen].name,
                            player1 or by_id[chosen].player1,
                            player2 or by_id[chosen].player2,
                        ),
                    )
                ):
                    st.rerun()

    # -- rounds and tables --------------------------------------------------------------------------

    def rounds_tab(self, desk: RefereeDesk) -> None:
        t = self.t
        info = desk.info()
        if info.stage == "setup":
            st.info(t("tour.board.not_started"))
            return
        current = self.svc.current_round(desk.tournament_id)
        numbers: list[int] = sorted({m.round_number for m in self.svc.matches(desk.tournament_id)})
        number: int = st.selectbox(
            t("tour.ref.round"),
            numbers,
            index=numbers.index(current) if current in numbers else len(numbers) - 1,
            format_func=lambda n: t("tour.round", number=n),
        )
        matches = self.svc.matches(desk.tournament_id, number)
        st.dataframe(matches_frame(matches, t), hide_index=True)
        codes = desk.table_codes(number)
        with st.expander(t("tour.ref.codes"), icon=":material/key:"):
            st.dataframe(
                pd.DataFrame(
                    [
                        {
                            t("tour.col.table"): m.table_number,
                            t("tour.col.pair"): f"{m.pair_a.name} – {pair_names(m)['b']}",
                            t("tour.table.code"): format_table_code(code),
                            "URL": f"Tavolo?codice={code}",
                        }
                        for m, code in codes
                    ]
                ),
                hide_index=True,
            )
            st.download_button(
                t("tour.ref.print_codes"),
                codes_html(info, codes, lang=language()),
                file_name=f"codici-turno-{number}.html",
                mime="text/html",
            )
        playing = {m.id: m for m, _ in codes}
        if playing:
            self.table_controls(desk, playing, {m.id: code for m, code in codes})
        movable = [
            m
            for m in matches
            if m.stage in ("swiss", "knockout") and m.status in ("scheduled", "bye")
        ]
        if number == current and movable:
            self.swap_pairs_form(desk, movable)
        self.next_round_button(desk, info)

    def table_controls(
        self, desk: RefereeDesk, playing: dict[int, MatchView], code_of: dict[int, str]
    ) -> None:
        """Move a match to another table, give it a new code, open its table page."""
        t = self.t
        cols = st.columns(3)
        chosen = cols[0].selectbox(
            t("tour.col.table"),
            list(playing),
            format_func=lambda i: (
                f"{playing[i].table_number}: {' – '.join(pair_names(playing[i]).values())}"
            ),
        )
        table_number = cols[1].number_input(
            t("tour.ref.new_table"), min_value=1, value=playing[chosen].table_number or 1
        )
        if cols[1].button(t("tour.ref.move_table")) and self.show_error(
            lambda: desk.set_table_number(chosen, int(table_number))
        ):
            st.rerun()
        if cols[2].button(
            t("tour.ref.new_code"), help=t("tour.ref.new_code_help")
        ) and self.show_error(lambda: desk.regenerate_code(chosen)):
            st.rerun()
        # A relative link: it opens the Tavolo page of this same app, in a new tab.
        cols[2].link_button(
            t("tour.ref.open_table"),
            f"Tavolo?codice={code_of[chosen]}",
            help=t("tour.ref.open_table_help"),
            icon=":material/edit_note:",
        )

    def next_round_button(self, desk: RefereeDesk, info: TournamentInfo) -> None:
        """Offered only when it can work: every match so far is finished. Otherwise say which
        matches are still being played, round by round (a round robin pairs every round at once)."""
        t = self.t
        if info.stage == "finished":
            return
        playing: dict[int, list[str]] = {}
        for m in self.svc.matches(desk.tournament_id):
            if m.status not in FINISHED:
                playing.setdefault(m.round_number, []).append(str(m.table_number))
        if playing:
            where = "; ".join(
                t("tour.ref.round_tables", number=number, tables=", ".join(tables))
                for number, tables in sorted(playing.items())
            )
            st.caption(t("tour.ref.next_round_wait", where=where))
            return
        if st.button(t("tour.ref.next_round"), type="primary") and self.show_error(desk.next_round):
            st.rerun()

    def swap_pairs_form(self, desk: RefereeDesk, matches: Sequence[MatchView]) -> None:
        """Hand-made pairing: exchange two pairs whose matches have not started."""
        t = self.t
        pairs = {p.id: p.name for m in matches for p in (m.pair_a, m.pair_b) if p is not None}
        with (
            st.expander(t("tour.ref.swap"), icon=":material/swap_horiz:"),
            st.form("swap-pairs", border=False),
        ):
            cols = st.columns(2)
            ids = list(pairs)
            first: int = cols[0].selectbox(t("tour.col.pair"), ids, format_func=pairs.__getitem__)
            second: int = cols[1].selectbox(
                t("tour.col.pair"),
                ids,
                index=min(1, len(ids) - 1),
                format_func=pairs.__getitem__,
            )
            note = st.text_input(t("tour.ref.swap_note"))
            if st.form_submit_button(t("tour.ref.swap_button")) and self.show_error(
                lambda: desk.swap_pairs(first, second, note=note)
            ):
                st.rerun()

    # -- verification and the hands ------------------------------------------------------------------

    def match_label(self, m: MatchView) -> str:
        t = self.t
        return (
            f"{t('tour.round', number=m.round_number)} · {t('tour.col.table')} "
            f"{m.table_number}: {' – '.join(pair_names(m).values())}"
        )

    def verify_tab(self, desk: RefereeDesk) -> None:
        t = self.t
        matches = [m for m in self.svc.matches(desk.tournament_id) if m.pair_b is not None]
        by_id = {m.id: m for m in matches}
        scope = st.selectbox(
            t("tour.verify.scope"),
            [None, *by_id],
            format_func=lambda i: t("tour.verify.all") if i is None else self.match_label(by_id[i]),
        )
        if st.button(t("tour.verify.run"), type="primary"):
            with st.spinner(t("tour.verify.running")):
                try:
                    st.session_state[REPORT] = desk.verify(match_id=scope)
                except ScopaError as exc:  # e.g. the recognition models are missing
                    st.error(describe_error(exc, t))
        report = st.session_state.get(REPORT)
        if report is None:
            return
        st.caption(
            t("tour.verify.summary", checked=len(report.checks), flagged=len(report.flagged))
        )
        for check in report.flagged:
            self.flagged_hand(desk, check)

    def hand_title(self, m: MatchView, hand: HandView) -> str:
        t, tr = self.t, self.tr
        names = pair_names(m)
        return (
            f"{t('tour.round', number=m.round_number)} · {t('tour.col.table')} {m.table_number} · "
            f"{escape_markdown(names['a'])} – {escape_markdown(names['b'])} · "
            f"{tr('history.hand', number=hand.number)} · "
            f"{hand.points_a} – {hand.points_b} · {t(f'tour.review.{hand.review}')}"
        )

    def flagged_hand(self, desk: RefereeDesk, check: HandCheck) -> None:
        t, tr = self.t, self.tr
        m, hand = check.match, desk.hand(check.hand.id)
        names = pair_names(m)
        with st.expander(self.hand_title(m, hand), expanded=hand.review == "none"):
            for finding in check.findings:
                detail = describe_finding(finding, t, tr, names)
                st.markdown(f"- **{t(f'tour.finding.{finding.kind}')}**: {detail}")
            if check.photo_points is not None:
                st.caption(
                    t(
                        "tour.verify.photo_points",
                        a=check.photo_points["a"],
                        b=check.photo_points["b"],
                    )
                )
            self.hand_review(desk, m, hand, "", photo_cards=check.photo_cards)

    def hands_tab(self, desk: RefereeDesk) -> None:
        """Any recorded hand, flagged by the verification or not: accept, correct or void it."""
        t, tr = self.t, self.tr
        st.caption(t("tour.hands.help"))
        matches = [
            m
            for m in self.svc.matches(desk.tournament_id)
            if m.pair_b is not None and m.status != "scheduled"
        ]
        if not matches:
            st.info(t("tour.hands.no_matches"))
            return
        by_id = {m.id: m for m in matches}
        cols = st.columns(2)
        match_id = cols[0].selectbox(
            t("tour.hands.match"),
            list(by_id),
            format_func=lambda i: self.match_label(by_id[i]),
            key="hands-match",
        )
        hands = {hand.id: hand for hand in desk.hands(match_id)}
        if not hands:
            st.info(t("tour.hands.none"))
            return
        hand_id = cols[1].selectbox(
            t("tour.hands.hand"),
            list(hands),
            format_func=lambda i: (
                f"{tr('history.hand', number=hands[i].number)} · "
                f"{hands[i].points_a} – {hands[i].points_b}"
                + (f" · {t('tour.hand.void')}" if hands[i].status == "void" else "")
            ),
            key=f"hands-hand-{match_id}",
        )
        hand = hands[hand_id]
        st.markdown(f"**{self.hand_title(by_id[match_id], hand)}**")
        self.hand_review(desk, by_id[match_id], hand, "hands-")

    def hand_review(
        self,
        desk: RefereeDesk,
        m: MatchView,
        hand: HandView,
        place: str,
        *,
        photo_cards: dict[str, list[str]] | None = None,
    ) -> None:
        """A hand's photos and the referee's decisions on it. `place` prefixes the widget keys,
        keeping the hands tab's apart from the verification list's."""
        t = self.t
        names = pair_names(m)
        if hand.photos:
            cols = st.columns(min(4, len(hand.photos)))
            for column, photo in zip(cols * len(hand.photos), hand.photos, strict=False):
                with column:
                    try:
                        st.image(
                            thumbnail(desk.photo(photo.id)),
                            caption=f"{escape_markdown(names[photo.side])} · {photo.sha256[:12]}",
                        )
                    except ScopaError:
                        st.caption(photo.sha256)
        note = st.text_input(t("tour.verify.note"), key=f"{place}note-{hand.id}")
        actions = st.columns(3)
        if actions[0].button(
            t("tour.verify.accept"), key=f"{place}accept-{hand.id}"
        ) and self.show_error(lambda: desk.accept_hand(hand.id, note)):
            st.rerun()
        if (
            hand.status == "counted"
            and actions[1].button(t("tour.verify.void"), key=f"{place}void-{hand.id}")
            and self.show_error(lambda: desk.void_hand(hand.id, note))
        ):
            st.rerun()
        if actions[2].toggle(t("tour.verify.correct"), key=f"{place}fixing-{hand.id}"):
            self.correction(desk, m, hand, note, place, photo_cards)

    def correction(
        self,
        desk: RefereeDesk,
        m: MatchView,
        hand: HandView,
        note: str,
        place: str,
        photo_cards: dict[str, list[str]] | None,
    ) -> None:
        """The card grid, filled with what the photos show (else what was recorded)."""
        names = pair_names(m)
        keys = {name: side for side, name in names.items()}
        source = photo_cards or {side: hand.sides[side]["cards"] for side in ("a", "b")}
        store_key = f"{place}fix-store-{hand.id}"
        if store_key not in st.session_state:
            draft = HandDraft(
                sides=(names["a"], names["b"]),
                mode=MANUAL,
                scope={names[s]: int(hand.sides[s]["scope"]) for s in ("a", "b")},
                manual={names[s]: frozenset(Card.parse(c) for c in source[s]) for s in ("a", "b")},
            )
            st.session_state[store_key] = MemoryDraftStore(draft.sides, draft)
        rules = Rules.from_spec(desk.info().rules)
        fixed = render_hand_entry(
            st.session_state[store_key],
            rules,
            self.tr,
            key=f"{place}fix-{hand.id}",
            submit_label=self.t("tour.verify.save_correction"),
        )
        if fixed is not None:
            sides = {keys[name]: spec for name, spec in fixed.sides_json().items()}
            if self.show_error(lambda: desk.correct_hand(hand.id, sides, note)):
                st.session_state.pop(store_key, None)
                st.session_state.pop(REPORT, None)
                st.rerun()

    # -- standings, exports, the log, settings -------------------------------------------------------

    def standings_tab(self, desk: RefereeDesk) -> None:
        t = self.t
        for table in self.svc.standings(desk.tournament_id):
            if table.group is not None:
                st.markdown(f"**{t('tour.group', label=group_label(table.group))}**")
            st.dataframe(standings_frame(table, t), hide_index=True)

    def exports_tab(self, desk: RefereeDesk) -> None:
        files = export_all(desk)
        cols = st.columns(4)
        for column, (name, text) in zip(cols, files.items(), strict=False):
            column.download_button(name, text, file_name=name, mime="text/csv")
        cols[3].download_button(
            "results.html",
            results_html(self.svc, desk.tournament_id, lang=language()),
            file_name="risultati.html" if language() == "it" else "results.html",
            mime="text/html",
            help=self.t("tour.ref.print_help"),
        )

    def audit_tab(self, desk: RefereeDesk) -> None:
        entries = desk.audit()
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "when": e.at.astimezone().strftime("%d/%m %H:%M:%S"),
                        "who": e.actor,
                        "what": e.action,
                        "match": e.match_id,
                        "hand": e.hand_id,
                        "details": json.dumps(e.details, ensure_ascii=False),
                        "note": e.note,
                    }
                    for e in reversed(entries)
                ]
            ),
            hide_index=True,
        )

    def settings_tab(self, desk: RefereeDesk) -> None:
        t = self.t
        with st.form("password", clear_on_submit=True):
            new = st.text_input(t("tour.ref.new_password"), type="password")
            again = st.text_input(t("tour.ref.password_again"), type="password")
            if st.form_submit_button(t("tour.ref.change_password")):
                if new != again:
                    st.error(t("tour.ref.password_mismatch"))
                elif self.show_error(lambda: desk.change_password(new)):
                    st.success(t("tour.ref.password_changed"))
        if st.button(t("tour.ref.logout")):
            st.session_state.pop(DESK, None)
            st.rerun()
