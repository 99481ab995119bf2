"""The main window: runs list on the left, the run header and the tabs on the right,
grading progress in the status bar. A thin client of the core: every read runs off the
GUI thread, every write goes through the one Writer. Harness runs open through
`HarnessSide` (harness_window.py), in the same tabs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QModelIndex, QSettings, QUrl, Signal, Slot
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.batch.driver import BatchResult
from lattice_desktop.batch.summary import outcome_text
from lattice_desktop.errors import UserError
from lattice_desktop.lattice.playback import prewarm
from lattice_desktop.manifest import load_submission
from lattice_desktop.resources import demo_case
from lattice_desktop.sandbox.engine import WASMTIME_VERSION
from lattice_desktop.sandbox.isolation import isolation
from lattice_desktop.services.grade_jobs import GradeJob, demo_jobs, shipped_module_job
from lattice_desktop.services.grading import StoredGrade
from lattice_desktop.store.database import default_location, describe, open_database
from lattice_desktop.store.pages import HarnessPage, RunPage, RunsListing, load_run_page, runs_listing
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui import tasks
from lattice_desktop.ui.batch_op import BatchOp, BatchStatus
from lattice_desktop.ui.dialogs import (
    BuildChoice,
    BuildConfirmDialog,
    Recent,
    UnisolatedBuildDialog,
    choose_case_file,
    choose_submission_folder,
    choose_submissions_folder,
)
from lattice_desktop.ui.errors_dialog import show_error
from lattice_desktop.ui.factory.tab import FactoryTab
from lattice_desktop.ui.fuel.tab import FuelTab
from lattice_desktop.ui.grade_op import GradeOp
from lattice_desktop.ui.grading_status import GradingStatus
from lattice_desktop.ui.harness_window import HarnessSide
from lattice_desktop.ui.latest_query import LatestQuery
from lattice_desktop.ui.leaderboard_tab import LeaderboardTab
from lattice_desktop.ui.message_bar import MessageBar
from lattice_desktop.ui.results_tab import ResultsTab
from lattice_desktop.ui.run_header import RunHeader
from lattice_desktop.ui.runs_panel import RunsPanel
from lattice_desktop.ui.window_menus import WindowMenus
from lattice_desktop.work import Work

RESULTS, FACTORY, FUEL, LEADERBOARD = range(4)


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
        self.demo_case = demo if demo is not None else demo_case()
        self._prewarm_pending = False
        self._background = Work()  # prewarm: cancelled when the window closes
        self.auto_demo = auto_demo
        self.case_path: Path | None = self._initial_case()
        self.page: RunPage | None = None
        self.error_dialogs: list[QMessageBox] = []
        self._runs_loaded = False
        self._open_after_grade = True
        self._show_results_next = False
        tasks.pool().setMaxThreadCount(max(4, tasks.pool().maxThreadCount()))

        self.grading = GradeOp(self.writer, self)
        self.grading.job_started.connect(self._on_job_started)
        self.grading.run_created.connect(self.refresh_runs)
        self.grading.graded.connect(self._on_graded)
        self.grading.failed.connect(self._on_grade_failed)
        self.grading.cancelled.connect(self._on_grade_cancelled)
        self.grading.idle.connect(self._on_grading_idle)
        self._runs_query = LatestQuery(self._on_runs, self)
        self._page_query = LatestQuery(self._on_page, self)
        self._demo_query = LatestQuery(self._on_demo_jobs, self)
        for query in (self._runs_query, self._page_query, self._demo_query):
            query.failed.connect(self.report_failure)

        self._build_widgets()
        self._build_actions()
        self._build_status_bar()
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
        self.results_tab = ResultsTab()
        self.factory_tab = FactoryTab()
        self.fuel_tab = FuelTab()
        self.leaderboard_tab = LeaderboardTab()
        self.leaderboard_tab.open_run.connect(self._open_from_board)
        self.leaderboard_tab.failed.connect(self.report_failure)
        self.harness = HarnessSide(self.writer, self.settings, self)
        self.harness.page_shown.connect(self._on_harness_page)
        self.harness.runs_changed.connect(self.refresh_runs)
        self.harness.message.connect(self._show_message)
        self.harness.status.connect(self.statusBar().showMessage)
        self.harness.failed.connect(self.report_failure)
        self.runs_panel.harness_selected.connect(self.harness.open)
        self.leaderboard_tab.open_harness_run.connect(self.harness.open_from_board)
        # A harness run shows its own Results view, and calm Factory and Fuel empty
        # states, in the same tab positions: each tab is a stack of the two faces.
        self.tab_stacks: list[QStackedWidget] = []
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        for perf, harness, title in (
            (self.results_tab, self.harness.results, "Results"),
            (self.factory_tab, self.harness.no_factory, "Factory"),
            (self.fuel_tab, self.harness.no_fuel, "Fuel"),
        ):
            stack = QStackedWidget()
            stack.addWidget(perf)
            stack.addWidget(harness)
            self.tab_stacks.append(stack)
            self.tabs.addTab(stack, title)
        self.tabs.addTab(self.leaderboard_tab, "Leaderboard")
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
        file_menu = self.menuBar().addMenu("&File")
        self.grade_action = self._action(file_menu, "&Grade submission…", "Ctrl+G", self.grade_submission)
        self._action(file_menu, "&Open case…", "Ctrl+O", self.choose_case)
        self.menus = WindowMenus(
            self.settings,
            database_in_use=describe(self.db_target),
            window=self,
            tabs=self.tabs,
            factory=self.factory_tab,
        )
        self.menus.scenarios_chosen.connect(self.open_scenarios)
        self.menus.preferences_changed.connect(self._apply_preferences)
        self.menus.message.connect(self._show_message)
        self.grading.workers = self.menus.preferences.workers
        self.menus.add_open_scenario(file_menu)
        self.recent_menu = file_menu.addMenu("Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        self._action(file_menu, "Grade the &demo samples", None, self.grade_demo)
        self._action(file_menu, "Grade &many…", None, self.grade_many)
        self.cancel_action = self._action(file_menu, "&Cancel grading", "Esc", self.cancel_grading)
        self.cancel_action.setEnabled(False)
        file_menu.addSeparator()
        file_menu.addActions(self.harness.actions)
        file_menu.addSeparator()
        self.menus.add_preferences(file_menu)
        self._action(file_menu, "&Quit", QKeySequence.StandardKey.Quit, self.close)
        view = self.menuBar().addMenu("&View")
        self._action(view, "&Filter runs", QKeySequence.StandardKey.Find, self.runs_panel.focus_filter)
        self._action(view, "&Refresh", QKeySequence.StandardKey.Refresh, self.refresh_all)
        view.addSeparator()
        for i in range(self.tabs.count()):
            action = self._action(view, self.tabs.tabText(i), f"Ctrl+{i + 1}", self._show_tab_slot)
            action.setData(i)
        self.menus.add_help(self.menuBar().addMenu("&Help"))

    def _action(self, menu, text: str, shortcut, slot) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.grading_status = GradingStatus(self.grading)
        bar.addWidget(self.grading_status)
        self.batch = BatchOp(self.writer, self)
        self.batch.landed.connect(self.refresh_runs)
        self.batch.finished.connect(self._on_batch_finished)
        self.batch.failed.connect(self.report_failure)
        self.batch_status = BatchStatus(self.batch)
        bar.addWidget(self.batch_status)
        self.db_label = QLabel(f"Database: {describe(self.db_target)}")
        self.db_label.setToolTip("Set with --db or LATTICE_DESKTOP_DB")
        self.wasmtime_label = QLabel(f"wasmtime {WASMTIME_VERSION}")
        self.wasmtime_label.setToolTip("Fuel is comparable only within one wasmtime version")
        bar.addPermanentWidget(self.db_label)
        bar.addPermanentWidget(self.wasmtime_label)

    # Runs and pages ------------------------------------------------------------------

    @Slot()
    def refresh_runs(self) -> None:
        self._runs_query.request(runs_listing)

    @Slot()
    def refresh_all(self) -> None:
        self.refresh_runs()
        self.leaderboard_tab.refresh()
        if self.page is not None:
            self.open_run(self.page.run.id)
        elif self.harness.page is not None:
            self.harness.open(self.harness.page.id)

    def _on_runs(self, listing: RunsListing) -> None:
        first = not self._runs_loaded
        self._runs_loaded = True
        selected = self.page.run.id if self.page is not None else None
        harness = self.harness.page.id if self.harness.page is not None else None
        self.runs_panel.set_runs(listing.runs, listing.harness, select=selected, select_harness=harness)
        self.leaderboard_tab.refresh()
        if first and not listing.runs and not listing.harness and self.auto_demo:
            # First start on an empty database: grade the demo and import the harness
            # examples, so every view has something to show.
            if self.demo_case.is_file():
                self.grade_demo()
                self._prewarm_pending = True
            self.harness.import_bundled()
        elif (
            first
            and self.auto_demo
            and listing.runs
            and self.page is None
            and self.harness.page is None
            and not self.factory_tab.scenario_files
        ):
            self.runs_panel.select_run(listing.runs[0].id, notify=False)
            self.open_run(listing.runs[0].id)  # a returning user sees their newest run
        self.runs_shown.emit()

    def show_harness_views(self, harness: bool) -> None:
        """Results, Factory and Fuel show the harness faces (True) or the run's (False)."""
        for stack in self.tab_stacks:
            stack.setCurrentIndex(1 if harness else 0)

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
            self.case_path = page.case.path
        self.show_harness_views(False)
        self.runs_panel.select_run(page.run.id, notify=False)  # the list may have refreshed since
        self.header.show_page(page)
        self.results_tab.show_page(page)
        self.factory_tab.show_run(page.run, page.case)
        self.fuel_tab.show_run(page.run, page.case)
        self.leaderboard_tab.show_page(page)
        if self._show_results_next:
            self._show_results_next = False
            self.tabs.setCurrentIndex(RESULTS)
        self.page_shown.emit(page)

    @Slot(object, bool)
    def _on_harness_page(self, page: HarnessPage, show_results: bool) -> None:
        """A harness run is open: its header, its Results view, calm Factory and Fuel
        empty states, and its box's board."""
        self.page = None
        r = page.result
        self.header.show_harness(page)
        self.runs_panel.select_harness_run(page.id, notify=False)
        self.factory_tab.show_run(None, None)  # stops any replay; the harness empty state shows
        self.fuel_tab.show_run(None, None)
        self.show_harness_views(True)
        self.leaderboard_tab.show_harness(r.box, r.stage, r.model, r.harness)
        if show_results:
            self.tabs.setCurrentIndex(RESULTS)

    @Slot(str, str)
    def _show_message(self, text: str, kind: str) -> None:
        self.message_bar.show_message(text, kind=kind)

    @Slot()
    def _show_tab_slot(self) -> None:
        action = self.sender()
        if isinstance(action, QAction):
            self.tabs.setCurrentIndex(int(action.data()))

    # Cases and submissions -----------------------------------------------------------

    def _initial_case(self) -> Path | None:
        for item in self.recent_cases.items():
            if Path(item).is_file():
                return Path(item)
        return self.demo_case if self.demo_case.is_file() else None

    @Slot()
    def choose_case(self) -> None:
        start = str(self.case_path.parent) if self.case_path else ""
        path = choose_case_file(self, start)
        if path is not None:
            self.open_case(path)

    def open_case(self, path: Path) -> None:
        """Make `path` the case that submissions are graded against."""
        path = path / "case.toml" if path.is_dir() else path
        if not path.is_file():
            self.message_bar.show_message(f"No case manifest at {path}.")
            return
        self.case_path = path
        self.recent_cases.add(path)
        self.message_bar.show_message(
            f"Case {path} is open: Grade submission… (Ctrl+G) grades a submission against it.", kind="info"
        )

    @Slot()
    def grade_submission(self, folder: Path | None = None) -> None:
        if self.grading.running:
            self.message_bar.show_message("Grading is already running — wait or Cancel it.", kind="warning")
            return
        if not isinstance(folder, Path):
            start = self.recent_submissions.items()[:1]
            folder = choose_submission_folder(self, start[0] if start else "")
            if folder is None:
                return
        try:
            submission = load_submission(folder)
        except UserError as exc:
            self.message_bar.show_message(f"Cannot grade this submission: {exc}")
            return
        self.recent_submissions.add(submission.folder)
        case_path = self.case_path
        if case_path is None:
            self.message_bar.show_message(
                "Open a case first (Open case…, Ctrl+O): the case to grade this submission against."
            )
            return
        if submission.commands:
            dialog = BuildConfirmDialog(submission, self)
            dialog.exec()
            if dialog.choice is BuildChoice.CANCEL:
                return
            job = (
                GradeJob(case_path, submission, allow_build=True)
                if dialog.choice is BuildChoice.BUILD
                else shipped_module_job(case_path, submission)
            )
            jail = isolation() if job.allow_build else None
            if jail is not None and not jail.available:
                second = UnisolatedBuildDialog(jail.reason, self)
                second.exec()
                if not second.allowed:
                    return
                job = replace(job, allow_unisolated=True)
        else:
            job = GradeJob(case_path, submission)
        self.start_grading([job])

    def start_grading(self, jobs: list[GradeJob], *, open_result: bool = True) -> None:
        self.message_bar.hide()
        self._open_after_grade = open_result
        self.grading.enqueue(jobs)

    @Slot()
    def grade_demo(self) -> None:
        if self.grading.running or self._demo_query.busy:
            return
        if not self.demo_case.is_file():
            self.message_bar.show_message(
                f"The bundled demo case is missing ({self.demo_case}). Open a case instead (Ctrl+O).",
                kind="warning",
            )
            return
        self._demo_query.request(demo_jobs, self.demo_case)

    def _on_demo_jobs(self, jobs: list[GradeJob]) -> None:
        if not jobs:
            self.message_bar.show_message("The demo case has no sample submissions to grade.", kind="warning")
            return
        self.start_grading(jobs, open_result=False)

    @Slot()
    def grade_many(self, folder: Path | None = None) -> None:
        """Grade a folder of submission folders against the open case on a local cluster."""
        if self.batch.running or self.case_path is None:
            self.message_bar.show_message(
                "A batch is already running."
                if self.batch.running
                else "Open a case first (Open case…, Ctrl+O).",
                kind="warning",
            )
            return
        folder = folder if isinstance(folder, Path) else choose_submissions_folder(self)
        if folder is not None:
            self.batch_status.begin(folder)
            self.batch.start(self.case_path, folder)

    @Slot(object)
    def _on_batch_finished(self, result: BatchResult) -> None:
        self.refresh_runs()
        self.message_bar.show_message(outcome_text(result), kind="warning" if result.problems else "info")

    @Slot()
    def cancel_grading(self) -> None:
        self.grading_status.cancel()

    # Grading signals -----------------------------------------------------------------

    @Slot(object)
    def _on_job_started(self, _job: GradeJob) -> None:
        self.cancel_action.setEnabled(True)
        self.runs_panel.grade_button.setEnabled(False)
        self.grade_action.setEnabled(False)

    @Slot(object)
    def _on_graded(self, stored: StoredGrade) -> None:
        report = stored.report
        self.statusBar().showMessage(f"Graded {report.submission.name}: {report.verdict.look.text}", 8000)
        if self._open_after_grade:
            self._show_results_next = True
            self.runs_panel.select_run(stored.run_id, notify=False)
            self.open_run(stored.run_id)
        self.refresh_runs()

    @Slot(str, str)
    def _on_grade_failed(self, message: str, details: str) -> None:
        self.refresh_runs()
        if details:
            self.report_failure(message, details)
        else:
            self.message_bar.show_message(f"Cannot grade: {message}")

    @Slot()
    def _on_grade_cancelled(self) -> None:
        self.refresh_runs()
        self.message_bar.show_message(
            "Grading cancelled — the run is kept as cancelled, with no results.", kind="info"
        )

    @Slot()
    def _on_grading_idle(self) -> None:
        if self._prewarm_pending:
            self._prewarm_pending = False
            self._start_prewarm()
        self.cancel_action.setEnabled(False)
        self.runs_panel.grade_button.setEnabled(True)
        self.grade_action.setEnabled(True)
        if (
            self.page is None
            and self.harness.page is None
            and self._runs_loaded
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

    # Recent, drops, closing ----------------------------------------------------------

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        for title, recent, handler in (
            ("Cases", self.recent_cases, self.open_case),
            ("Submissions", self.recent_submissions, self.grade_submission),
        ):
            self.recent_menu.addSection(title)
            for item in recent.items():
                action = self.recent_menu.addAction(item)
                action.setData((handler.__name__, item))
                action.triggered.connect(self._open_recent)
        if self.recent_menu.isEmpty():
            self.recent_menu.addAction("(nothing yet)").setEnabled(False)

    @Slot()
    def _open_recent(self) -> None:
        action = self.sender()
        if isinstance(action, QAction):
            handler, item = action.data()
            getattr(self, handler)(Path(item))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if any(_dropped_folder(u) for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        self.open_paths([p for p in map(_dropped_folder, event.mimeData().urls()) if p is not None])
        event.acceptProposedAction()

    def open_paths(self, paths: list[Path]) -> None:
        """Named or dropped paths: scenario files all together, then each case or submission."""
        scenarios = [p for p in paths if p.suffix == ".lat"]
        if scenarios:
            self.open_scenarios(scenarios)
        for path in paths:
            if path.suffix != ".lat":
                self.open_path(path)

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
        self.show_harness_views(False)
        self.results_tab.show_page(None)  # no run is open: its results and fuel go too
        self.fuel_tab.show_run(None, None)
        self.header.show_message(
            found[-1].name if len(found) == 1 else f"{len(found)} scenario files",
            "Scenario file, replayed with the reference engine — nothing is graded",
        )
        self.factory_tab.show_scenario_files(listed, current=found[-1])
        self.tabs.setCurrentIndex(FACTORY)

    @Slot(object)
    def _apply_preferences(self, preferences) -> None:
        self.grading.workers = preferences.workers

    def open_path(self, path: Path | None) -> None:
        """A dropped or named path: a scenario file (*.lat), a case (case.toml) or a
        submission (submission.toml)."""
        if path is None:
            return
        if path.suffix == ".lat":
            self.open_scenarios([path])
        elif path.name == "case.toml" or (path / "case.toml").is_file():
            self.open_case(path)
        elif path.name == "submission.toml" or (path / "submission.toml").is_file():
            self.grade_submission(path if path.is_dir() else path.parent)
        else:
            self.message_bar.show_message(
                f"{path} is not a scenario file (*.lat) and holds neither case.toml nor submission.toml."
            )

    def _start_prewarm(self) -> None:
        """After the demo is graded: walk its stress scenarios in the background so the
        Factory tab can show any tick of them at once (keyframes are kept on disk)."""
        task = tasks.Task(prewarm, self.demo_case, self._background)
        task.signals.failed.connect(self.report_failure)
        tasks.start(task)

    def cancel_all(self) -> bool:
        """Stop every background job (grading, the keyframe walks, seeks, prewarm) and wait
        for the pool; True when every worker has finished."""
        self._background.cancel()
        self.grading.cancel()
        self.batch.cancel()
        self.harness.ops.cancel()
        self.factory_tab.shutdown()
        return tasks.pool().waitForDone(30_000)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel everything before waiting for the pool, so the window closes at once and
        no worker outlives its signals."""
        self.cancel_all()
        self.writer.close()
        super().closeEvent(event)


def _dropped_folder(url: QUrl) -> Path | None:
    if not url.isLocalFile():
        return None
    return Path(url.toLocalFile())
