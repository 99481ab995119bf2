"""The harness side of the app: reading a harness run's page, its Results view and the calm
Factory and Fuel empty states, File > Import harness run… and Verify stored harness runs.
Reads and imports run off the GUI thread; imports write through the one Writer given.

It knows nothing of the main window: it says what happened through signals, and the
window decides what the header, the runs list and the other tabs show."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QWidget

from lattice_desktop.services.harness_import import ImportOutcome, bundled_examples
from lattice_desktop.store.pages import HarnessCheck, HarnessPage, load_harness_page
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.common.dialogs import DialogFolder, Recent, choose_harness_box, choose_harness_traces
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.harness.ops import HarnessOps, check_message
from lattice_desktop.ui.harness.results import HarnessResultsTab
from lattice_desktop.ui.harness.transcript_tab import TranscriptTab
from lattice_desktop.work import Step

NO_FACTORY = (
    "Harness runs have no factory — a harness run is scored from its recorded "
    "trace, not by replaying a Lattice scenario.\n\nIts metrics, loops and tool-call "
    "findings are on the Results tab (Ctrl+1); its box's board on the Leaderboard "
    "tab (Ctrl+4)."
)
NO_PROFILE = (
    "Profiles are for graded runs — a profile shows where a submission's wasm spends its "
    "fuel, and a harness run runs no wasm.\n\nWhat this run did, event by event, is on "
    "the Transcript tab; every metric with its formula on the Results tab (Ctrl+1)."
)
NO_FUEL = (
    "Harness runs measure no fuel — they are scored from 0 to 1 from their trace: "
    "Score first, then Execution.\n\nSee the Results tab (Ctrl+1) for every metric "
    "with its formula."
)


def empty_state(text: str) -> QLabel:
    label = QLabel(text)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    label.setMargin(40)
    return label


class HarnessSide(QObject):
    page_shown = Signal(object, bool)  # HarnessPage opened, whether to bring Results forward
    imported = Signal(object)  # ImportOutcome, after the runs list was asked to refresh
    checked = Signal(str, str)  # the message shown after Verify, and its kind
    runs_changed = Signal()  # stored harness runs were added or one went missing
    message = Signal(str, str)  # a message for the message bar, and its kind
    status = Signal(str, int)  # a status bar line, and how long it stays (ms, 0: until replaced)
    failed = Signal(str, str)  # message, traceback: a bug

    def __init__(self, writer: Writer, settings: QSettings, window: QWidget) -> None:
        super().__init__(window)
        self.dialog_parent = window
        self.page: HarnessPage | None = None
        self.results = HarnessResultsTab()
        self.transcript = TranscriptTab()
        self.no_factory = empty_state(NO_FACTORY)
        self.no_fuel = empty_state(NO_FUEL)
        self.no_profile = empty_state(NO_PROFILE)
        self.recent_boxes = Recent("harness_boxes", settings)
        self.dialog_folder = DialogFolder(settings)
        self.ops = HarnessOps(writer, self)
        self.ops.imported.connect(self._on_imported)
        self.ops.checked.connect(self._on_checked)
        self.ops.failed.connect(self._on_ops_failed)
        self._after_bundled: Callable[[], object] | None = None
        self.ops.progress.connect(self._on_import_step)
        self._page_query = LatestQuery(self._on_page, self)
        self._page_query.failed.connect(self.failed)
        self._show_results_next = False
        self.import_action = QAction("Import &harness run…", window)
        self.import_action.setShortcut(QKeySequence("Ctrl+I"))
        self.import_action.triggered.connect(self.import_runs)
        self.verify_action = QAction("&Verify stored harness runs", window)
        self.verify_action.triggered.connect(self.verify)

    @property
    def busy(self) -> bool:
        return self.ops.busy or self._page_query.busy or self.transcript.busy

    @property
    def actions(self) -> list[QAction]:
        """For the File menu."""
        return [self.import_action, self.verify_action]

    # Opening a run -------------------------------------------------------------------

    @Slot(int)
    def open(self, stored_id: int) -> None:
        """Read the run's page and, apart (it does not wait for the page), its transcript."""
        self._page_query.request(load_harness_page, stored_id)
        self.transcript.show_run(stored_id)

    @Slot(int)
    def open_from_board(self, stored_id: int) -> None:
        self._show_results_next = True
        self.open(stored_id)

    def forget_page(self) -> None:
        """A performance run is open instead."""
        self.page = None
        self.transcript.show_run(None)

    def _on_page(self, page: HarnessPage | None) -> None:
        if page is None:
            self.message.emit("That harness run is no longer in the database.", "warning")
            self.runs_changed.emit()
            return
        self.page = page
        self.results.show_page(page)
        self.transcript.set_result(page.id, page.result)
        show_results, self._show_results_next = self._show_results_next, False
        self.page_shown.emit(page, show_results)

    # Import and verify ---------------------------------------------------------------

    @Slot()
    def import_runs(self, box: Path | None = None, traces: list[Path] | None = None) -> None:
        """Score and store traces against a box; asks for the files when not given."""
        if not isinstance(box, Path):
            box = choose_harness_box(self.dialog_parent, self.dialog_folder)
            if box is None:
                return
            traces = choose_harness_traces(self.dialog_parent, self.dialog_folder)
            if not traces:
                return
        self.recent_boxes.add(box)
        count = len(traces or [])
        self.status.emit(f"Importing {count} harness run{'s' if count != 1 else ''}…", 0)
        self.ops.import_runs(box, list(traces or []))

    def import_bundled(self, *, then: Callable[[], object] | None = None) -> None:
        """The bundled example box and traces, so the harness views have something to show;
        `then` runs once they are stored (or failed): the first start grades the demo only
        after, so the demo's run ids are the same on every machine (README's examples)."""
        box, traces = bundled_examples()
        if box.is_file() and traces:
            self._after_bundled = then
            self.ops.import_runs(box, traces, open_newest=False)
        elif then is not None:
            then()

    def _run_after_bundled(self) -> None:
        then, self._after_bundled = self._after_bundled, None
        if then is not None:
            then()

    @Slot(str, str)
    def _on_ops_failed(self, message: str, details: str) -> None:
        self.failed.emit(message, details)
        self._run_after_bundled()

    @Slot(object)
    def _on_import_step(self, step: Step) -> None:
        self.status.emit(f"Harness import: {step.message}…", 0)

    @Slot(object, bool)
    def _on_imported(self, outcome: ImportOutcome, open_newest: bool) -> None:
        self.runs_changed.emit()
        self._run_after_bundled()
        stored = len(outcome.stored)
        self.status.emit(f"Imported {stored} harness run{'s' if stored != 1 else ''}", 8000)
        if outcome.errors:
            head = (
                f"Could not import {len(outcome.errors)} file"
                f"{'s' if len(outcome.errors) != 1 else ''}"
                + (f" ({stored} other{'s' if stored != 1 else ''} imported)" if stored else "")
                + ":"
            )
            self.message.emit("\n".join([head, *outcome.errors]), "error")
        if open_newest and outcome.stored:
            self._show_results_next = True
            self.open(outcome.stored[-1])
        self.imported.emit(outcome)

    @Slot()
    def verify(self) -> None:
        self.status.emit("Verifying stored harness runs…", 0)
        self.ops.check()

    @Slot(object)
    def _on_checked(self, check: HarnessCheck) -> None:
        text, kind = check_message(check)
        self.status.emit(text.splitlines()[0], 8000)
        self.message.emit(text, kind)
        self.checked.emit(text, kind)
