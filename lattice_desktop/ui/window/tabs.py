"""The tabs on the right of the main window, and what each shows for an opened page.

Results, Factory, Fuel and Profile each hold two faces in a stack: the run's and, in the
same position, the harness run's (its own Results view, empty states that say why the tab
does not apply to a harness run).
Profile shows where a run's fuel goes (docs/profiling.md); Transcript, a harness run's
events with the evidence behind each metric (its graded face says it does not apply). More tabs are added with
`add_tab` before the window builds its menus; View lists every tab with its Ctrl+number."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QStackedWidget, QTabWidget, QWidget

from lattice_desktop.store.pages import HarnessPage, RunPage
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.factory.tab import FactoryTab
from lattice_desktop.ui.fuel.tab import FuelTab
from lattice_desktop.ui.harness.side import HarnessSide, empty_state
from lattice_desktop.ui.leaderboard.tab import LeaderboardTab
from lattice_desktop.ui.profile.profile_tab import ProfileTab
from lattice_desktop.ui.results.tab import ResultsTab

RESULTS, FACTORY, FUEL, LEADERBOARD, PROFILE, TRANSCRIPT = range(6)
NO_TRANSCRIPT = (
    "Transcripts are for harness runs — a harness run's events, message by message, with "
    "the evidence behind each metric.\n\nA graded run's story is on its Results, Factory "
    "and Fuel tabs."
)


class WindowTabs(QTabWidget):
    def __init__(self, harness: HarnessSide, writer: Writer | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDocumentMode(True)
        self.results = ResultsTab()
        self.factory = FactoryTab()
        self.fuel = FuelTab()
        self.leaderboard = LeaderboardTab()
        self.profile = ProfileTab(writer)
        self.profile.follow_compare(self.fuel.compare_box)
        self.stacks: list[QStackedWidget] = []  # the tabs with a harness face
        self.add_tab(self.results, "Results", harness_face=harness.results)
        self.add_tab(self.factory, "Factory", harness_face=harness.no_factory)
        self.add_tab(self.fuel, "Fuel", harness_face=harness.no_fuel)
        self.add_tab(self.leaderboard, "Leaderboard")
        self.add_tab(self.profile, "Profile", harness_face=harness.no_profile)
        self.transcript = harness.transcript
        self.add_tab(empty_state(NO_TRANSCRIPT), "Transcript", harness_face=self.transcript)
        harness.results.evidence_requested.connect(self.show_evidence)
        self.results.diagnosis.place_chosen.connect(self.show_place)

    def add_tab(self, widget: QWidget, title: str, *, harness_face: QWidget | None = None) -> int:
        """Add a tab; with `harness_face`, that widget shows in its place while a harness
        run is open. Returns the tab's index."""
        if harness_face is None:
            return self.addTab(widget, title)
        stack = QStackedWidget()
        stack.addWidget(widget)
        stack.addWidget(harness_face)
        self.stacks.append(stack)
        return self.addTab(stack, title)

    def indexOf(self, widget: QWidget) -> int:
        """The tab that holds `widget`, whether it is the tab or one face of its stack."""
        return super().indexOf(self._tab_of(widget))

    def setCurrentWidget(self, widget: QWidget) -> None:
        """Bring `widget`'s tab forward (a run's face or a harness face, as for `indexOf`)."""
        super().setCurrentWidget(self._tab_of(widget))

    def _tab_of(self, widget: QWidget) -> QWidget:
        return next((stack for stack in self.stacks if stack.indexOf(widget) >= 0), widget)

    @Slot(str, int, int, int)
    def show_place(self, case: str, tick: int, x: int, y: int) -> None:
        """A diagnosis link on the Results tab: the Factory tab at that case, tick and cell."""
        self.setCurrentWidget(self.factory)
        self.factory.why.go_to(case, tick, x, y)

    @Slot(str)
    def show_evidence(self, metric: str) -> None:
        """A metric on the harness Results view was clicked: its events in the Transcript."""
        self.setCurrentIndex(TRANSCRIPT)
        self.transcript.show_evidence(metric)

    def add_view_actions(self, menu: QMenu) -> None:
        """View › one action per tab, Ctrl+1, Ctrl+2, …"""
        for index in range(self.count()):
            action = QAction(self.tabText(index), self)
            action.setShortcut(QKeySequence(f"Ctrl+{index + 1}"))
            action.setData(index)
            action.triggered.connect(self._show_tab)
            menu.addAction(action)

    @Slot()
    def _show_tab(self) -> None:
        action = self.sender()
        if isinstance(action, QAction):
            self.setCurrentIndex(int(action.data()))

    def show_harness_views(self, harness: bool) -> None:
        """The tabs with two faces show the harness face (True) or the run's (False)."""
        for stack in self.stacks:
            stack.setCurrentIndex(1 if harness else 0)

    def show_page(self, page: RunPage) -> None:
        """A run is open: every tab shows it."""
        self.show_harness_views(False)
        self.results.show_page(page)
        self.factory.show_run(page.run, page.case)
        self.fuel.show_run(page.run, page.case)
        self.profile.show_run(page.run, page.case)
        self.leaderboard.show_page(page)

    def show_harness(self, page: HarnessPage) -> None:
        """A harness run is open: its Results view, calm Factory and Fuel, its box's board."""
        r = page.result
        self.factory.show_run(None, None)  # stops any replay; the harness empty state shows
        self.fuel.show_run(None, None)
        self.profile.show_run(None, None)
        self.show_harness_views(True)
        self.leaderboard.show_harness(r.box, r.stage, r.model, r.harness)

    def show_scenario_files(self, listed: list[Path], current: Path) -> None:
        """Scenario files alone in the Factory tab; no run is open, so Results and Fuel empty."""
        self.show_harness_views(False)
        self.results.show_page(None)
        self.fuel.show_run(None, None)
        self.profile.show_run(None, None)
        self.factory.show_scenario_files(listed, current=current)
        self.setCurrentIndex(FACTORY)
