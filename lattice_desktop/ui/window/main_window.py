"""The main window: runs list on the left, the run header and the tabs on the right,
grading progress in the status bar. Its one job is the layout and handing each opened
page to the tabs: the grading commands live in `GradingActions` (ui/grading/actions.py),
the menus' dialogs in `WindowMenus`, harness runs open through `HarnessSide`
(ui/harness/side.py) in the same tabs. Every read runs off the GUI thread, every write
goes through the one Writer; closing cancels every op (`tasks.cancel_all`)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex, QSettings, Signal, Slot
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QGuiApplication
from PySide6.QtWidgets import (
    QMainWindow,
    QMessageBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.resources import demo_case
from lattice_desktop.sandbox.engine import WASMTIME_VERSION
from lattice_desktop.services.grade_jobs import GradeJob
from lattice_desktop.services.grading import StoredGrade
from lattice_desktop.store.database import default_location, open_database
from lattice_desktop.store.database_url import describe
from lattice_desktop.store.pages import HarnessPage, RunPage, RunsListing, load_run_page, runs_listing
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.common import tasks
from lattice_desktop.ui.common.dialogs import Recent
from lattice_desktop.ui.common.errors_dialog import show_error
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.common.message_bar import MessageBar
from lattice_desktop.ui.common.tasks import Changed
from lattice_desktop.ui.grading.actions import GradingActions
from lattice_desktop.ui.grading.batch_op import BatchStatus
from lattice_desktop.ui.grading.status import GradingStatus
from lattice_desktop.ui.harness.side import HarnessSide
from lattice_desktop.ui.runs.actions import RunActions
from lattice_desktop.ui.runs.header import RunHeader
from lattice_desktop.ui.runs.panel import RunsPanel
from lattice_desktop.ui.window.demo_resume import DemoResume
from lattice_desktop.ui.window.menu_bar import build_menu_bar
from lattice_desktop.ui.window.menus import WindowMenus
from lattice_desktop.ui.window.opened_paths import local_paths, route_paths
from lattice_desktop.ui.window.status_bar import StatusBar
from lattice_desktop.ui.window.tabs import RESULTS, WindowTabs


class MainWindow(QMainWindow):
    runs_shown = Signal()  # the runs list was refreshed from the database
    page_shown = Signal(object)  # RunPage: a run is open in the header and every tab

    def __init__(
        self,
        db_target: str | None = None,
        *,
        demo: Path | None = None,
        auto_demo: bool = True,
        settings: QSettings | None = None,
    ) -> None:
        super().__init__()
        self.setWindowTitle("Lattice Desktop")
        self.setAcceptDrops(True)
        screen = QGuiApplication.primaryScreen().availableGeometry()  # never start past the screen
        self.resize(min(1400, screen.width()), min(860, screen.height()))
        self.db_target = str(db_target or default_location())
        self.db = open_database(self.db_target)
        self.writer = Writer(self.db)
        self.settings = settings or QSettings()
        self.recent_cases = Recent("cases", self.settings)
        self.recent_submissions = Recent("submissions", self.settings)
        self.recent_scenarios = Recent("scenarios", self.settings)  # those that opened
        self.demo_case = demo if demo is not None else demo_case()
        self.auto_demo = auto_demo
        self.page: RunPage | None = None
        self.error_dialogs: list[QMessageBox] = []
        self.runs_loaded = False  # the runs list has been read once
        self._show_results_next = False
        tasks.pool().setMaxThreadCount(max(4, tasks.pool().maxThreadCount()))

        actions = self.grading_actions = GradingActions(
            self.writer, self, demo_case=self.demo_case, recent_cases=self.recent_cases,
            recent_submissions=self.recent_submissions,
        )  # fmt: skip
        actions.message.connect(self._show_message)
        actions.failed.connect(self.report_failure)
        actions.graded.connect(self._on_graded)
        actions.changed.connect(self._on_changed)
        # The grading commands, as menus, drops, the runs panel and scripts call them.
        self.grading, self.batch, self.start_grading = actions.queue, actions.batch, actions.start_grading
        self.grade_submission, self.grade_demo = actions.grade_submission, actions.grade_demo
        self.open_case, self.choose_case = actions.open_case, actions.choose_case
        self.grading.job_started.connect(self._on_job_started)
        self.grading.idle.connect(self._on_grading_idle)
        self.demo_resume = DemoResume(self)  # an interrupted first-start demo resumes on the next start
        self._runs_query = LatestQuery(self._on_runs, self)
        self._page_query = LatestQuery(self._on_page, self)
        for query in (self._runs_query, self._page_query):
            query.failed.connect(self.report_failure)

        self.status_bar = StatusBar()  # one message at a time (ui/window/status_bar.py)
        self.setStatusBar(self.status_bar)
        self._build_widgets()
        self._build_actions()
        self._build_status_bar()
        for query in self.findChildren(LatestQuery):  # every read says which database: this window's
            query.db = self.db
        self.refresh_runs()

    # Layout --------------------------------------------------------------------------

    def _build_widgets(self) -> None:
        self.message_bar = MessageBar()
        self.runs_panel = RunsPanel()
        self.runs_panel.run_selected.connect(self.open_run)
        self.runs_panel.grade_requested.connect(self.grade_submission)
        self.runs_panel.open_case_requested.connect(self.choose_case)
        self.runs_panel.demo_requested.connect(self.grade_demo)
        self.header = RunHeader()
        self.harness = HarnessSide(self.writer, self.settings, self)
        self.harness.page_shown.connect(self._on_harness_page)
        self.harness.runs_changed.connect(self._harness_stored)
        self.harness.message.connect(self._show_message)
        self.harness.status.connect(self.statusBar().showMessage)
        self.harness.failed.connect(self.report_failure)
        self.runs_panel.harness_selected.connect(self.harness.open)
        self.tabs = WindowTabs(self.harness, self.writer)
        # More tabs go here, as self.tabs.add_tab(widget, title): before the menus, which list them.
        self.results_tab, self.factory_tab = self.tabs.results, self.tabs.factory
        self.fuel_tab, self.leaderboard_tab = self.tabs.fuel, self.tabs.leaderboard
        self.profile_tab = self.tabs.profile
        self.tab_stacks = self.tabs.stacks
        self.leaderboard_tab.open_run.connect(self._open_from_board)
        self.leaderboard_tab.failed.connect(self.report_failure)
        self.leaderboard_tab.open_harness_run.connect(self.harness.open_from_board)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 6, 6, 0)
        right_layout.addWidget(self.header)
        right_layout.addWidget(self.tabs, 1)
        splitter = QSplitter()
        splitter.addWidget(self.runs_panel)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([470, 930])
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.message_bar)
        layout.addWidget(splitter, 1)
        self.setCentralWidget(central)

    def _build_actions(self) -> None:
        self.menus = WindowMenus(
            self.settings,
            database_in_use=describe(self.db_target),
            window=self,
            tabs=self.tabs,
            factory=self.factory_tab,
        )
        self.menus.scenarios_chosen.connect(self.open_scenarios)
        self.factory_tab.scenario_file_opened.connect(self.recent_scenarios.add)
        self.menus.preferences_changed.connect(self._apply_preferences)
        self.menus.message.connect(self._show_message)
        self.grading.workers = self.menus.preferences.workers
        self.run_actions = RunActions(self)  # the runs list's context menu, and File › Export
        bar = build_menu_bar(self)
        self.grade_action, self.cancel_action, self.recent_menu = bar.grade, bar.cancel, bar.recent

    def _build_status_bar(self) -> None:
        bar = self.status_bar
        self.grading_status = GradingStatus(self.grading)
        bar.addWidget(self.grading_status)
        self.batch_status = BatchStatus(self.batch)
        bar.addWidget(self.batch_status)
        bar.add_facts(
            (f"Database: {describe(self.db_target)}", "Set with --db or LATTICE_DESKTOP_DB"),
            (f"wasmtime {WASMTIME_VERSION}", "Fuel is comparable only within one wasmtime version"),
        )

    # Runs and pages ------------------------------------------------------------------

    @property
    def case_path(self) -> Path | None:
        """The case submissions are graded against: the one opened last, or the open run's."""
        return self.grading_actions.case_path

    @case_path.setter
    def case_path(self, path: Path | None) -> None:
        self.grading_actions.case_path = path

    @property
    def reading(self) -> bool:
        """The runs list or a run's page is being read."""
        return self._runs_query.busy or self._page_query.busy

    @Slot()
    def refresh_runs(self) -> None:
        self._runs_query.request(runs_listing, self.run_actions.show_hidden)

    @Slot()
    def refresh_scores(self) -> None:
        """What ranks runs changed (a run was hidden, shown again or deleted): the leaderboard."""
        self.leaderboard_tab.refresh()

    def refresh_all(self) -> None:
        self.refresh_runs()
        self.refresh_scores()
        if self.page is not None:
            self.open_run(self.page.run.id)
        elif self.harness.page is not None:
            self.harness.open(self.harness.page.id)

    def _on_runs(self, listing: RunsListing) -> None:
        first = not self.runs_loaded
        self.runs_loaded = True
        selected = self.page.run.id if self.page is not None else None
        harness = self.harness.page.id if self.harness.page is not None else None
        self.runs_panel.set_runs(listing.runs, listing.harness, select=selected, select_harness=harness)
        if first:
            self.leaderboard_tab.refresh()
        if first and self.auto_demo:
            self.demo_resume.first_listing(listing)
        self.runs_shown.emit()

    @Slot(int)
    def open_run(self, run_id: int) -> None:
        self._page_query.request(load_run_page, run_id)

    @Slot(int)
    def _open_from_board(self, run_id: int) -> None:
        self.runs_panel.select_run(run_id, notify=False)
        self._show_results_next = True
        self.open_run(run_id)

    def _on_page(self, page: RunPage | None) -> None:
        if page is None:
            self.message_bar.show_message("That run is no longer in the database.", kind="warning")
            self.refresh_runs()
            return
        self.page = page
        self.harness.forget_page()
        if page.case is not None:
            self.grading_actions.case_path = page.case.path
        self.runs_panel.select_run(page.run.id, notify=False)  # the list may have refreshed since
        self.header.show_page(page)
        self.tabs.show_page(page)
        if self._show_results_next:
            self._show_results_next = False
            self.tabs.setCurrentIndex(RESULTS)
        self.page_shown.emit(page)

    @Slot(object, bool)
    def _on_harness_page(self, page: HarnessPage, show_results: bool) -> None:
        """A harness run is open: its header, its Results view, calm Factory and Fuel
        empty states, and its box's board."""
        self.page = None
        self.header.show_harness(page)
        self.runs_panel.select_harness_run(page.id, notify=False)
        self.tabs.show_harness(page)
        if show_results:
            self.tabs.setCurrentIndex(RESULTS)

    @Slot(str, str)
    def _show_message(self, text: str, kind: str) -> None:
        self.message_bar.show_message(text, kind=kind)

    # Grading ------------------------------------------------------------------------

    @Slot()
    def grade_many(self, folder: Path | None = None) -> None:
        chosen = self.grading_actions.grade_many(folder)
        if chosen is not None:
            self.batch_status.begin(chosen)

    @Slot()
    def cancel_grading(self) -> None:
        self.grading_status.cancel()

    # Grading signals -----------------------------------------------------------------

    @Slot(object)
    def _on_job_started(self, _job: GradeJob) -> None:
        self._set_grading(True)

    def _set_grading(self, busy: bool) -> None:
        self.cancel_action.setEnabled(busy)
        self.runs_panel.grade_button.setEnabled(not busy)
        self.grade_action.setEnabled(not busy)

    @Slot(object, bool)
    def _on_graded(self, stored: StoredGrade, open_it: bool) -> None:
        report = stored.report
        self.statusBar().showMessage(f"Graded {report.submission.name}: {report.verdict.look.text}", 8000)
        if open_it:
            self._show_results_next = True
            self.runs_panel.select_run(stored.run_id, notify=False)
            self.open_run(stored.run_id)

    @Slot(object)
    def _on_changed(self, changed: Changed) -> None:
        """An op stored something: refresh the views whose data it changed."""
        if Changed.RUNS in changed:
            self.refresh_runs()
        if Changed.SCORES in changed:
            self.leaderboard_tab.refresh()

    @Slot()
    def _harness_stored(self) -> None:
        self._on_changed(Changed.RUNS | Changed.SCORES)

    @Slot()
    def _on_grading_idle(self) -> None:
        self._set_grading(False)
        if (
            self.page is None
            and self.harness.page is None
            and self.runs_loaded
            and not self.factory_tab.scenario_files
        ):
            newest = self.runs_panel.model.summaries[:1]
            if newest:
                self.open_run(newest[0].id)

    @Slot(str, str)
    def report_failure(self, message: str, details: str) -> None:
        """One place for errors from background work: user errors inline, bugs with traceback."""
        if not details:
            self.message_bar.show_message(message)
            return
        self.error_dialogs.append(show_error(self, message, details))

    # Drops, paths, closing ----------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if local_paths(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        self.open_paths(local_paths(event.mimeData()))
        event.acceptProposedAction()

    def open_paths(self, paths: list[Path]) -> None:
        """Named or dropped paths: scenario files all together, then each case or submission."""
        route_paths(
            paths,
            scenarios=self.open_scenarios,
            case=self.open_case,
            submission=self.grade_submission,
            say=self.message_bar.show_message,
        )

    @Slot(list)
    def open_scenarios(self, paths: list[Path]) -> None:
        """Show scenario files in the Factory tab with the reference engine (nothing is
        graded), beside those already open there; the last one named is shown."""
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            self.message_bar.show_message(f"No such scenario file: {', '.join(missing)}")
        found = [p.resolve() for p in paths if p.is_file()]
        if not found:
            return
        listed = [p for p in self.factory_tab.scenario_files if p not in found] + found
        self.page, self.harness.page = None, None
        self.runs_panel.tree.setCurrentIndex(QModelIndex())  # no run is open now
        self.runs_panel.tree.clearSelection()
        self.header.show_message(
            found[-1].name if len(found) == 1 else f"{len(found)} scenario files",
            "Scenario file, replayed with the reference engine — nothing is graded",
        )
        self.tabs.show_scenario_files(listed, found[-1])

    @Slot(object)
    def _apply_preferences(self, preferences) -> None:
        self.grading.workers = preferences.workers

    def cancel_all(self) -> bool:
        """Stop every op of this window (grading, a batch, prewarm, imports, the keyframe
        walk, seeks, searches, reads) and wait for the pool; True when every worker ended."""
        return tasks.cancel_all(self)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel everything before waiting for the pool, so the window closes at once and
        no worker outlives its signals."""
        self.factory_tab.shutdown()
        self.cancel_all()
        self.writer.close()
        super().closeEvent(event)
