"""The Factory tab's Diff view and its way around a divergence: the submission's records
diffed at the tick shown, previous/next differing cell and divergent snapshot, the
minimap, the heatmap, the list and the map in step, and the background search for the
first wrong tick. A mixin of `FactoryTab` (it uses the tab's canvas, diff
list, snapshots and playback)."""

from __future__ import annotations

from bisect import bisect_left

import shiboken6
from PySide6.QtCore import QEvent, Slot

from lattice_desktop.services.submission_diff import SubmissionDiff, search_divergence, submission_diff
from lattice_desktop.ui import tasks
from lattice_desktop.ui.factory.divergence_bar import DivergenceBar
from lattice_desktop.ui.factory.minimap import Minimap
from lattice_desktop.ui.tasks import Task


class DivergenceNavigation:
    """State and slots for finding one's way around where a submission went wrong."""

    def _init_divergence(self) -> None:
        self.cells: list[int] = []  # the differing cells shown, in grid order
        self.cell_index: int | None = None  # which of them is focused
        self.divergence = None  # lattice.divergence.Divergence once the first wrong tick is found
        self._auto_diff = False  # open the Diff view at the first divergence once the records exist
        self._focus_pending = False  # zoom to the first differing cell when the next diff arrives
        self._search_from: int | None = None  # the divergent snapshot's tick the search started at
        self._search_queued: tuple[int, int] | None = None  # (agrees, differs) to search once shown
        self._search = tasks.Background(self)  # the running search, to cancel it

    def _build_divergence(self) -> None:
        """The bar over the map and the minimap in its corner (after the canvas exists)."""
        self.canvas.clicked.connect(self._cell_clicked)
        self.canvas.moved.connect(self._view_moved)
        self.canvas.installEventFilter(self)
        self.minimap = Minimap(self.canvas)
        self.minimap.centre.connect(self.canvas.centre_at)
        self.bar = DivergenceBar(self)
        self.bar.hide()
        self.bar.previous_cell.clicked.connect(lambda: self.step_cell(-1))
        self.bar.next_cell.clicked.connect(lambda: self.step_cell(+1))
        self.bar.previous_snapshot.clicked.connect(lambda: self.step_divergent_snapshot(-1))
        self.bar.next_snapshot.clicked.connect(lambda: self.step_divergent_snapshot(+1))
        self.bar.heatmap.toggled.connect(self.canvas.set_heatmap)
        self.bar.first_tick.clicked.connect(self.go_to_first_tick)

    def _reset_divergence(self) -> None:
        """Another run is being opened: forget this one's divergence and stop its search."""
        self.stop_search()
        self.divergence, self._search_from, self._auto_diff = None, None, False
        self._search_queued = None
        self.bar.first_tick.setEnabled(False)
        self.transport.timeline.set_first_wrong(None)
        self.bar.status.setText("")
        self.bar.hide()

    def step_cell(self, direction: int) -> None:
        """Focus the previous/next differing cell (wrapping around)."""
        if self.cells:
            index = (
                -1
                if self.cell_index is None and direction < 0
                else (0 if self.cell_index is None else self.cell_index + direction)
            )
            self.focus_cell(index % len(self.cells), zoom=True)

    def focus_cell(self, index: int, *, zoom: bool) -> None:
        """Ring the index-th differing cell, select its records; `zoom`: centre the map on it."""
        self.cell_index = index
        cell = self.cells[index]
        if zoom:
            visible = self.canvas.visible_cells()
            span = visible.width() if visible.width() <= 120 else 40.0
            self.canvas.focus_cell(cell, span=span)
        else:
            self.canvas.focus_cell(cell, span=None)
        self.diff_list.select_cell(cell)
        width = self.playback.scenario.width if self.playback else 1
        self.bar.show_cell(index, len(self.cells), f"({cell % width}, {cell // width})")

    def step_divergent_snapshot(self, direction: int) -> None:
        """Go to the previous/next snapshot whose checksums differ."""
        if self.snapshots is None:
            return
        rows = [int(r) for r in (self.snapshots.status() == 0).nonzero()[0]]
        ticks = [self.snapshots.tick(r) for r in rows]
        targets = [t for t in ticks if (t > self.tick if direction > 0 else t < self.tick)]
        if targets:
            target = targets[0] if direction > 0 else targets[-1]
            self._stop_playing()
            self._focus_pending = True
            self._select_row(self.snapshots.row_of(target))
            self.show_tick(target)

    def go_to_first_tick(self) -> None:
        """Show the first tick whose state departs from the reference's (once found)."""
        if self.divergence is not None:
            self._focus_pending = True
            self._stop_playing()
            self.show_tick(self.divergence.tick)

    def _start_diff_view(self) -> None:
        """A wrong run with records: open the Diff view and look for the first wrong tick."""
        if not self._auto_diff or self._submission is None or self.snapshots is None:
            return
        self._auto_diff = False
        first = self.snapshots.first_divergence
        if first is None:
            return
        agrees, differs = first * self.snapshots.interval, self.snapshots.tick(first)
        self._search_from = differs
        self._search_queued = (agrees, differs)
        self.bar.status.setText(f"Looking for the first wrong tick between {agrees:,} and {differs:,}…")
        self.modes.buttons["Diff"].setChecked(True)

    def _start_search(self) -> None:
        """Once the divergent snapshot's diff is on screen (the two would share the CPU),
        search for the first wrong tick in the background."""
        if self._search_queued is None or self._submission is None or self.playback is None:
            return
        agrees, differs = self._search_queued
        self._search_queued = None
        task = Task(search_divergence, self._submission, self.playback, agrees, differs, work=True)
        task.signals.progress.connect(self._search_progress)
        task.signals.done.connect(self._search_done)
        task.signals.failed.connect(self._search_failed)
        self._search.start(task)

    def stop_search(self) -> None:
        """Cancel a search still running (another run or scenario is being opened)."""
        self._search.cancel()

    def _searching(self) -> bool:
        """Whether a search is still wanted: a stopped one (another run opened, the window
        closed) may have queued progress or its answer before it saw the cancel, and a tab
        deleted without closing (a test's) may still be sent them."""
        return shiboken6.isValid(self) and self._search.work is not None

    @Slot(object)
    def _search_progress(self, step) -> None:
        if not self._searching():
            return
        if self.divergence is None and self._search_from is not None and step.message:
            self.bar.status.setText(f"Looking for the first wrong tick: {step.message}")

    @Slot(object)
    def _search_done(self, result) -> None:
        playback, found = result
        if not self._searching() or playback is not self.playback:
            return
        self._search.work = None
        self.divergence = found
        width = playback.scenario.width
        first = found.cells[0] if found.cells else 0
        self.bar.status.setText(
            f"First wrong tick: {found.tick:,} (agrees through {found.agreed:,}) · "
            f"{len(found.diffs):,} records in {len(found.cells):,} cells, first at "
            f"({first % width}, {first // width}) · found by {found.how}"
        )
        self.bar.first_tick.setEnabled(True)
        self.transport.timeline.set_first_wrong(found.tick)
        if self.tick == self._search_from and not self.timer.isActive():
            self.go_to_first_tick()  # the reviewer has not moved: show the moment it went wrong

    @Slot(str, str)
    def _search_failed(self, message: str, trace: str) -> None:
        if not self._searching():
            return
        self._search.work = None
        self.bar.status.setText(f"⚠ Could not find the first wrong tick: {message}")
        self.bar.status.setToolTip(trace or message)

    def _request_diff(self, tick: int) -> None:
        if self._submission is None or self.playback is None or self._diff_pending == tick:
            return
        self._diff_pending = tick
        self.diff_list.set_message(f"Running the submission to tick {tick:,}…")
        self._diff_query.request(submission_diff, self._submission, self.playback, tick)

    def _diff_done(self, result: SubmissionDiff) -> None:
        tick, state, diffs = result.tick, result.state, result.diffs
        if self._diff_pending == tick:
            self._diff_pending = None
        if tick != self.tick or self.playback is None:
            return
        index = self.cell_index
        focused = self.cells[index] if index is not None and index < len(self.cells) else None
        self.cells = list(result.counts)  # grid order, worked out on the worker
        self._diff_tick, self._marked, self._counts = tick, frozenset(self.cells), result.counts
        shown = state if self.modes.mode == "Submission" else self._reference
        if shown is not None:
            self.canvas.set_state(shown)
        self.canvas.set_marked(self.cells, self._counts)
        self.minimap.set_grid(self.playback.grid[0] if self._big() else None, self.canvas.counts)
        self._place_minimap()
        self.diff_list.set_diffs(diffs, self.playback.scenario.width, tick, self.playback.scenario.items)
        self.cell_index = None
        self.bar.show_cell(None, len(self.cells))
        if self._focus_pending and self.cells:
            self._focus_pending = False
            self.focus_cell(0, zoom=True)
        elif focused is not None and focused in self._marked:  # still differs: keep it focused
            self.focus_cell(bisect_left(self.cells, focused), zoom=False)
        else:
            self.canvas.focus_cell(None)
        self._start_search()

    @Slot(str, str)
    def _diff_failed(self, message: str, trace: str) -> None:
        self._diff_pending = None
        self._start_search()
        self.diff_list.set_message(message + (f"\n{trace}" if trace else ""))
        if self._reference is not None:
            self.canvas.set_state(self._reference)

    def _mode_changed(self, mode: str) -> None:
        self.diff_list.setVisible(mode != "Reference")
        if mode == "Reference":
            self.canvas.set_marked(())
            self.cells, self.cell_index = [], None
            self.bar.show_cell(None, 0)
            if self.playback is not None and self._big():
                self.minimap.set_grid(self.playback.grid[0], None)
            if self._reference is not None:
                self.canvas.set_state(self._reference)
        else:
            self._stop_playing()
            self._request_diff(self.tick)

    def _big(self) -> bool:
        return (
            self.playback is not None
            and max(self.playback.scenario.width, self.playback.scenario.height) >= 64
        )

    def _cell_clicked(self, cell: int) -> None:
        """A click on a marked cell selects its records."""
        if cell in self._marked and self.cells:
            self.focus_cell(bisect_left(self.cells, cell), zoom=False)

    def _row_cell_chosen(self, cell: int) -> None:
        """A record chosen in the diff list: centre its cell."""
        if cell in self._marked and self.cells:
            self.focus_cell(bisect_left(self.cells, cell), zoom=True)

    def _view_moved(self) -> None:
        self.minimap.set_visible_region(self.canvas.visible_cells())

    def _place_minimap(self) -> None:
        margin = 8
        self.minimap.fit_to(self.canvas.width())
        self.minimap.move(self.canvas.width() - self.minimap.width() - margin, margin)
        self.minimap.raise_()
        self.minimap.set_visible_region(self.canvas.visible_cells())

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.canvas and event.type() == QEvent.Type.Resize:
            self._place_minimap()
        return super().eventFilter(watched, event)
