"""The Factory tab's Diff view and its way around a divergence: the submission's records
diffed at the tick shown, previous/next differing cell and divergent snapshot, the
minimap, the heatmap, the list and the map in step, and the background search for the
first wrong tick.

`DivergenceNavigator` owns that state. The tab gives it the widgets it steers (canvas,
diff list, divergence bar, minimap, timeline, mode switch), tells it what is open
(`open`, `set_submission`) and where the replay is (`tick`, `playing`); the navigator
asks the tab to move through `seek`."""

from __future__ import annotations

from bisect import bisect_left

from PySide6.QtCore import QEvent, QObject, Signal, Slot

from lattice_desktop.lattice.divergence import Divergence
from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.snapshots import Snapshots
from lattice_desktop.lattice.submission_records import SubmissionRecords
from lattice_desktop.lattice.view import FactoryState
from lattice_desktop.services.submission_diff import SubmissionDiff, search_divergence, submission_diff
from lattice_desktop.ui.common import tasks
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.common.tasks import Task
from lattice_desktop.ui.factory.canvas import FactoryCanvas
from lattice_desktop.ui.factory.diff_panel import DiffList, ModeSwitch
from lattice_desktop.ui.factory.divergence_bar import DivergenceBar
from lattice_desktop.ui.factory.minimap import Minimap
from lattice_desktop.ui.factory.timeline import Timeline
from lattice_desktop.work import Step

BIG = 64  # factories this wide or tall get the minimap


class DivergenceNavigator(QObject):
    """Where a submission went wrong, and the way around it."""

    seek = Signal(int)  # show this tick: stop playing, select its snapshot row if it has one

    def __init__(
        self,
        canvas: FactoryCanvas,
        diff_list: DiffList,
        bar: DivergenceBar,
        minimap: Minimap,
        timeline: Timeline,
        modes: ModeSwitch,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.canvas, self.diff_list, self.bar = canvas, diff_list, bar
        self.minimap, self.timeline, self.modes = minimap, timeline, modes
        self.playback: Playback | None = None
        self.snapshots: Snapshots | None = None
        self.submission: SubmissionRecords | None = None  # once its records export is known
        self.tick = 0  # the tick the tab shows
        self.playing = False
        self.reference: FactoryState | None = None  # the reference's state at `tick`
        self.cells: list[int] = []  # the differing cells shown, in grid order
        self.cell_index: int | None = None  # which of them is focused
        self.marked: frozenset[int] = frozenset()
        self.counts: dict[int, int] = {}  # differing records per cell at `diff_tick`
        self.diff_tick: int | None = None  # the tick the cells were worked out at
        self.divergence: Divergence | None = None  # once the first wrong tick is found
        self.auto_diff = False  # open the Diff view at the first divergence once the records exist
        self.focus_pending = False  # zoom to the first differing cell when the next diff arrives
        self._diff_pending: int | None = None
        self._keep_focus: int | None = None  # the cell focused when the diff now coming was asked for
        self._last: SubmissionDiff | None = None  # the newest diff worked out (stepping back reuses it)
        self._search_from: int | None = None  # the divergent snapshot's tick the search started at
        self._stayed = False  # no other tick has been shown since the search started
        self._search_queued: tuple[int, int] | None = None  # (agrees, differs) to search once shown
        self._search = tasks.Background(self)
        self._diffs = LatestQuery(self._diff_done, self)
        self._diffs.failed.connect(self._diff_failed)
        canvas.clicked.connect(self._cell_clicked)
        canvas.moved.connect(self._view_moved)
        canvas.installEventFilter(self)
        minimap.centre.connect(canvas.centre_at)
        diff_list.cell_chosen.connect(self._row_cell_chosen)
        modes.changed.connect(self.mode_changed)
        bar.hide()
        bar.previous_cell.clicked.connect(lambda: self.step_cell(-1))
        bar.next_cell.clicked.connect(lambda: self.step_cell(+1))
        bar.previous_snapshot.clicked.connect(lambda: self.step_divergent_snapshot(-1))
        bar.next_snapshot.clicked.connect(lambda: self.step_divergent_snapshot(+1))
        bar.heatmap.toggled.connect(canvas.set_heatmap)
        bar.first_tick.clicked.connect(self.go_to_first_tick)

    # --- what is open ---------------------------------------------------------------------

    def reset(self) -> None:
        """Another run is being opened: forget this one's divergence and stop its work."""
        self.stop_search()
        self._diffs.forget()
        self.playback, self.snapshots, self.submission = None, None, None
        self.divergence, self._search_from = None, None  # auto_diff is the opener's to set
        self._search_queued, self._diff_pending, self._last, self._keep_focus = None, None, None, None
        self.reference, self.cells, self.cell_index = None, [], None
        self.marked, self.counts, self.diff_tick = frozenset(), {}, None
        self.bar.first_tick.setEnabled(False)
        self.timeline.set_first_wrong(None)
        self.bar.status.setText("")
        self.bar.hide()
        self.diff_list.set_message("")
        self.minimap.set_grid(None, None)

    def open(self, playback: Playback, snapshots: Snapshots) -> None:
        """A scenario is open: no cells are known yet; the bar shows if its snapshots differ."""
        self.playback, self.snapshots = playback, snapshots
        self.reference, self.marked = None, frozenset()
        self.cells, self.cell_index, self.counts, self.diff_tick = [], None, {}, None
        self._diffs.forget()  # a diff of the scenario before is of no use here
        self._last, self._diff_pending = None, None
        self.minimap.set_grid(playback.grid[0] if self._big() else None, None)
        self._place_minimap()
        if snapshots.first_divergence is not None:
            self.bar.show()
            self.bar.show_uncompared(self._why_uncompared())

    def set_submission(self, submission: SubmissionRecords | None, why_not: str = "") -> None:
        """The open run's records export (None: there is none, `why_not` says why)."""
        self.submission = submission
        self.modes.set_available(submission is not None, f"Submission view unavailable: {why_not}")
        if submission is None:
            self.bar.status.setText(
                f"Only snapshots can be compared: {why_not}. The first wrong tick and "
                "the differing cells need the records export (spec §8)."
            )
            return
        self.start_diff_view()

    def start_diff_view(self) -> None:
        """A wrong run with records: open the Diff view and look for the first wrong tick."""
        if not self.auto_diff or self.submission is None or self.snapshots is None:
            return
        self.auto_diff = False
        first = self.snapshots.first_divergence
        if first is None:
            return
        agrees, differs = first * self.snapshots.interval, self.snapshots.tick(first)
        self._search_from, self._stayed = differs, True
        self._search_queued = (agrees, differs)
        self.bar.status.setText(f"Looking for the first wrong tick between {agrees:,} and {differs:,}…")
        self.modes.buttons["Diff"].setChecked(True)

    def show_state(self, state: FactoryState) -> None:
        """The reference's state at the tick shown: drawn as it is (nothing compared: the
        panel says so), or diffed (every pane says "comparing…" meanwhile)."""
        self.reference = state
        if state.tick != self._search_from:
            self._stayed = False  # the reviewer moved: the search's answer must not pull them back
        if self.modes.mode == "Reference" or self.playing:
            self.canvas.set_state(state)
            self._uncompared(state.tick)
        else:
            self._request_diff(state.tick)

    def set_playing(self, playing: bool) -> None:
        """Playing shows ticks uncompared; stopping compares the tick it lands on."""
        was, self.playing = self.playing, playing
        reference = self.reference
        if was and not playing and reference is not None and reference.tick == self.tick:
            self.show_state(reference)

    @property
    def settled(self) -> bool:
        """The Diff view (when shown) has been worked out for the tick shown."""
        return self.modes.mode == "Reference" or (self.diff_tick == self.tick and not self.playing)

    def _why_uncompared(self, *, comparing: bool = False) -> str:
        if self.submission is None or self.modes.mode == "Reference":
            return "not compared here (Diff compares)"
        return f"tick {self.tick:,}: comparing…" if comparing else f"tick {self.tick:,}: not compared yet"

    def _uncompared(self, tick: int, *, comparing: bool = False) -> None:
        """Nothing on screen may speak of another tick's diff: unmark the map, the minimap
        and the heatmap, and say that this tick has not been compared (or is being compared)."""
        self.cells, self.cell_index, self.diff_tick = [], None, None
        self.marked, self.counts = frozenset(), {}
        self.canvas.set_marked(())
        if self.playback is not None:
            self.minimap.set_grid(self.playback.grid[0] if self._big() else None, None)
        self.bar.show_uncompared(self._why_uncompared(comparing=comparing))
        if self.modes.mode != "Reference" and self.submission is not None:
            reason = "playing — pause (Space) to compare it" if self.playing else "comparing…"
            self.diff_list.set_message(f"Tick {tick:,}: not compared yet ({reason})")

    # --- moving around --------------------------------------------------------------------

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
            self.focus_pending = True
            self.seek.emit(targets[0] if direction > 0 else targets[-1])

    def go_to_first_tick(self) -> None:
        """Show the first tick whose state departs from the reference's (once found)."""
        if self.divergence is not None:
            self.focus_pending = True
            self.seek.emit(self.divergence.tick)

    @Slot(str)
    def mode_changed(self, mode: str) -> None:
        self.diff_list.setVisible(mode != "Reference")
        if mode == "Reference" or self.reference is None or self.reference.tick != self.tick:
            self._uncompared(self.tick)
            if mode == "Reference" and self.reference is not None:
                self.canvas.set_state(self.reference)
        else:
            self._request_diff(self.tick)

    # --- the first wrong tick -------------------------------------------------------------

    def _start_search(self) -> None:
        """Once the divergent snapshot's diff is on screen (the two would share the CPU),
        search for the first wrong tick in the background."""
        if self._search_queued is None or self.submission is None or self.playback is None:
            return
        agrees, differs = self._search_queued
        self._search_queued = None
        task = Task(search_divergence, self.submission, self.playback, agrees, differs, work=True)
        task.signals.progress.connect(self._search_progress)
        task.signals.done.connect(self._search_done)
        task.signals.failed.connect(self._search_failed)
        self._search.start(task)

    def stop_search(self) -> None:
        """Cancel a search still running (another run or scenario is being opened)."""
        self._search.cancel()

    def _searching(self) -> bool:
        """Whether a search is still wanted: a stopped one may have queued progress or its
        answer before it saw the cancel."""
        return self._search.work is not None

    @Slot(object)
    def _search_progress(self, step: Step) -> None:
        if self._searching() and self.divergence is None and self._search_from is not None and step.message:
            self.bar.status.setText(f"Looking for the first wrong tick: {step.message}")

    @Slot(object)
    def _search_done(self, result: tuple[Playback, Divergence]) -> None:
        playback, found = result
        if not self._searching() or playback is not self.playback:
            return
        self._search.work = None
        self.divergence = found
        self.bar.status.setText(
            f"First wrong tick: {found.tick:,} (agrees through {found.agreed:,}) · "
            f"{found.extent(playback.scenario.width)} · found by {found.how}"
        )
        self.bar.first_tick.setEnabled(True)
        self.timeline.set_first_wrong(found.tick)
        if self._stayed and self.tick == self._search_from and not self.playing:
            self.go_to_first_tick()  # the reviewer has not moved: show the moment it went wrong

    @Slot(str, str)
    def _search_failed(self, message: str, trace: str) -> None:
        if not self._searching():
            return
        self._search.work = None
        self.bar.status.setText(f"⚠ Could not find the first wrong tick: {message}")
        self.bar.status.setToolTip(trace or message)

    # --- the diff at the tick shown -------------------------------------------------------

    def _request_diff(self, tick: int) -> None:
        if self.submission is None or self.playback is None:
            if self.reference is not None:  # nothing to compare with: the reference as it is
                self.canvas.set_state(self.reference)
                self._uncompared(self.reference.tick)
            return
        if self._last is not None and self._last.tick == tick:
            self._diff_done(self._last)
            return
        if self._diff_pending == tick:
            return
        self._diff_pending = tick
        # Until this tick's diff is in, no pane keeps the tick before's verdict: the Diff view
        # draws the reference's new state unmarked; the Submission view, whose state is not
        # known yet, keeps its picture and says which tick that is.
        reference = self.reference
        drawn = self.canvas.state
        if self.modes.mode != "Submission" and reference is not None and reference.tick == tick:
            self.canvas.set_state(reference)
            drawn = reference
        index = self.cell_index
        self._keep_focus = self.cells[index] if index is not None and index < len(self.cells) else None
        self._uncompared(tick, comparing=True)
        still = (
            f"; the map still shows tick {drawn.tick:,}" if drawn is not None and drawn.tick != tick else ""
        )
        self.diff_list.set_message(f"Tick {tick:,}: not compared yet (running the submission to it…{still})")
        self._diffs.request(submission_diff, self.submission, self.playback, tick)

    def _diff_done(self, result: SubmissionDiff) -> None:
        tick, state, diffs = result.tick, result.state, result.diffs
        if self._diff_pending == tick:
            self._diff_pending = None
        self._last = result
        # Shown only with the reference's state at the same tick, and never while playing.
        reference = self.reference
        if tick != self.tick or self.playback is None or self.playing or self.modes.mode == "Reference":
            return
        if reference is None or reference.tick != tick:
            return
        index = self.cell_index
        focused = self.cells[index] if index is not None and index < len(self.cells) else self._keep_focus
        self._keep_focus = None
        self.cells = list(result.counts)  # grid order, worked out on the worker
        self.diff_tick, self.marked, self.counts = tick, frozenset(self.cells), result.counts
        self.canvas.set_state(state if self.modes.mode == "Submission" else reference)
        self.canvas.set_marked(self.cells, self.counts)
        self.minimap.set_grid(self.playback.grid[0] if self._big() else None, self.canvas.counts)
        self._place_minimap()
        self.diff_list.set_diffs(diffs, self.playback.scenario.width, tick, self.playback.scenario.items)
        self.cell_index = None
        self.bar.show_cell(None, len(self.cells))
        if self.focus_pending and self.cells:
            self.focus_pending = False
            self.focus_cell(0, zoom=True)
        elif focused is not None and focused in self.marked:  # still differs: keep it focused
            self.focus_cell(bisect_left(self.cells, focused), zoom=False)
        else:
            self.canvas.focus_cell(None)
        self._start_search()

    @Slot(str, str)
    def _diff_failed(self, message: str, trace: str) -> None:
        self._diff_pending = None
        self._start_search()
        if self.reference is not None:
            self.canvas.set_state(self.reference)
        self._uncompared(self.tick)
        detail = f"\n{trace}" if trace else ""
        self.diff_list.set_message(f"Tick {self.tick:,} could not be compared: {message}{detail}")

    # --- the map and the minimap ----------------------------------------------------------

    def _big(self) -> bool:
        return (
            self.playback is not None
            and max(self.playback.scenario.width, self.playback.scenario.height) >= BIG
        )

    def _cell_clicked(self, cell: int) -> None:
        """A click on a marked cell selects its records."""
        if cell in self.marked and self.cells:
            self.focus_cell(bisect_left(self.cells, cell), zoom=False)

    def _row_cell_chosen(self, cell: int) -> None:
        """A record chosen in the diff list: centre its cell."""
        if cell in self.marked and self.cells:
            self.focus_cell(bisect_left(self.cells, cell), zoom=True)

    def _view_moved(self) -> None:
        self.minimap.set_visible_region(self.canvas.visible_cells())

    def _place_minimap(self) -> None:
        margin = 8
        self.minimap.fit_to(self.canvas.width())
        self.minimap.move(self.canvas.width() - self.minimap.width() - margin, margin)
        self.minimap.raise_()
        self.minimap.set_visible_region(self.canvas.visible_cells())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.canvas and event.type() == QEvent.Type.Resize:
            self._place_minimap()
        return super().eventFilter(watched, event)
