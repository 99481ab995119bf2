"""The main window's harness side: opening a harness run (header, the harness Results view
in the Results tab's place, calm Factory and Fuel empty states, its box's board),
File > Import harness run… and Verify stored harness runs. Reads and imports run off
the GUI thread; imports write through the window's one Writer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QLabel, QMenu

from lattice_desktop.store.ui_queries import HarnessPage, load_harness_page
from lattice_desktop.ui.dialogs import Recent, choose_harness_box, choose_harness_traces
from lattice_desktop.ui.harness_ops import HarnessOps, ImportOutcome, bundled_examples, check_message
from lattice_desktop.ui.harness_results import HarnessResultsTab
from lattice_desktop.ui.latest_query import LatestQuery

if TYPE_CHECKING:
    from lattice_desktop.ui.main_window import MainWindow

NO_FACTORY = ("Harness runs have no factory — a harness run is scored from its recorded "
              "trace, not by replaying a Lattice scenario.\n\nIts metrics, loops and tool-call "
              "findings are on the Results tab (Ctrl+1); its box's board on the Leaderboard "
              "tab (Ctrl+4).")
NO_FUEL = ("Harness runs measure no fuel — they are scored from 0 to 1 from their trace: "
           "Score first, then Execution.\n\nSee the Results tab (Ctrl+1) for every metric "
           "with its formula.")


def empty_state(text: str) -> QLabel:
    label = QLabel(text)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    label.setMargin(40)
    return label


class HarnessSide(QObject):
    page_shown = Signal(object)  # HarnessPage: a harness run is open
    imported = Signal(object)  # ImportOutcome, after the runs list was asked to refresh
    checked = Signal(str, str)  # the message shown after Verify, and its kind

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.page: HarnessPage | None = None
        self.results = HarnessResultsTab()
        self.no_factory = empty_state(NO_FACTORY)
        self.no_fuel = empty_state(NO_FUEL)
        self.recent_boxes = Recent("harness_boxes", window.settings)
        self.ops = HarnessOps(window.writer, self)
        self.ops.imported.connect(self._on_imported)
        self.ops.checked.connect(self._on_checked)
        self.ops.failed.connect(window.report_failure)
        self._page_query = LatestQuery(self._on_page, self)
        self._page_query.failed.connect(window.report_failure)
        self._show_results_next = False

    @property
    def busy(self) -> bool:
        return self.ops.busy or self._page_query.busy

    def add_actions(self, menu: QMenu) -> None:
        self.import_action = self.window._action(menu, "Import &harness run…", "Ctrl+I",
                                                 self.import_runs)
        self.verify_action = self.window._action(menu, "&Verify stored harness runs", None,
                                                 self.verify)

    # Opening a run -------------------------------------------------------------------

    @Slot(int)
    def open(self, stored_id: int) -> None:
        self._page_query.request(load_harness_page, stored_id)

    @Slot(int)
    def open_from_board(self, stored_id: int) -> None:
        self.window.runs_panel.select_harness_run(stored_id, notify=False)
        self._show_results_next = True
        self.open(stored_id)

    def _on_page(self, page: HarnessPage | None) -> None:
        w = self.window
        if page is None:
            w.message_bar.show_message("That harness run is no longer in the database.",
                                       kind="warning")
            w.refresh_runs()
            return
        w.page, self.page = None, page
        r = page.result
        w.header.show_harness(page)
        w.runs_panel.select_harness_run(page.id, notify=False)
        self.results.show_page(page)
        w.factory_tab.show_run(None, None)  # stops any replay; the harness empty state shows
        w.fuel_tab.show_run(None, None)
        w.show_harness_views(True)
        w.leaderboard_tab.show_harness(r.box, r.stage, r.model, r.harness)
        if self._show_results_next:
            self._show_results_next = False
            w.tabs.setCurrentWidget(w.tab_stacks[0])  # Results
        self.page_shown.emit(page)

    # Import and verify ---------------------------------------------------------------

    @Slot()
    def import_runs(self, box: Path | None = None, traces: list[Path] | None = None) -> None:
        """Score and store traces against a box; asks for the files when not given."""
        if not isinstance(box, Path):
            recent = self.recent_boxes.items()[:1]
            box = choose_harness_box(self.window, recent[0] if recent else "")
            if box is None:
                return
            traces = choose_harness_traces(self.window, str(box.parent))
            if not traces:
                return
        self.recent_boxes.add(box)
        self.window.statusBar().showMessage(
            f"Importing {len(traces or [])} harness run{'s' if len(traces or []) != 1 else ''}…")
        self.ops.import_runs(box, list(traces or []))

    def import_bundled(self) -> None:
        """The bundled example box and traces, so the harness views have something to show."""
        box, traces = bundled_examples()
        if box.is_file() and traces:
            self.ops.import_runs(box, traces, open_newest=False)

    @Slot(object, bool)
    def _on_imported(self, outcome: ImportOutcome, open_newest: bool) -> None:
        w = self.window
        w.refresh_runs()
        stored = len(outcome.stored)
        w.statusBar().showMessage(f"Imported {stored} harness run{'s' if stored != 1 else ''}",
                                  8000)
        if outcome.errors:
            head = (f"Could not import {len(outcome.errors)} file"
                    f"{'s' if len(outcome.errors) != 1 else ''}"
                    + (f" ({stored} other{'s' if stored != 1 else ''} imported)" if stored else "")
                    + ":")
            w.message_bar.show_message("\n".join([head, *outcome.errors]))
        if open_newest and outcome.stored:
            self._show_results_next = True
            self.open(outcome.stored[-1])
        self.imported.emit(outcome)

    @Slot()
    def verify(self) -> None:
        self.window.statusBar().showMessage("Verifying stored harness runs…")
        self.ops.check()

    @Slot(object)
    def _on_checked(self, check) -> None:
        text, kind = check_message(check)
        self.window.statusBar().showMessage(text.splitlines()[0], 8000)
        self.window.message_bar.show_message(text, kind=kind)
        self.checked.emit(text, kind)
