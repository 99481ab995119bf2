"""The Factory tab's "Why?": a differing cell traced back, through the moves that fed it, to
the first tick where the submission's decision there differed from the reference's
(`lattice.explain.trail`), on a worker; drawn on the map (`TrailOverlay`) and listed in a
panel over its corner, where choosing a step shows its tick and cell. Also how the
Results tab's diagnosis jumps the tab to a case, a tick and a cell (`go_to`).

Asked from the map's context menu (right-click a cell) or with the W key (the cell under the
pointer, else the ringed differing cell)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPoint, Qt, QThreadPool, Signal, Slot
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QMenu

from lattice_desktop.lattice.explain.trail import TrailStep, ladder, why_trail
from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.submission_records import SubmissionRecords, submission_pairs, ticks_held
from lattice_desktop.ui.common import tasks
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.factory.trail_overlay import TrailOverlay
from lattice_desktop.work import Work

if TYPE_CHECKING:
    from lattice_desktop.ui.factory.controls import WhyHost

PROBES = (
    1  # submission runs a trail makes at once (two on a loaded 2-core machine cost more: docs/divergence.md)
)
MAX_HELD_SCAN = 4096  # past this many ticks, only the ladder's are looked up on disk


def trail_of(
    playback: Playback, sub: SubmissionRecords, cell: int, tick: int, agreed: int, *, work: Work
) -> list[TrailStep]:
    """The trail of `cell` at `tick` (worker side). The ticks whose submission records are
    on disk already (fetched ahead, or read by the Diff view, the search, a trail before)
    are tried first: each other tick costs a run of the submission from tick 0."""
    scenario = playback.scenario

    def submission(t: int):
        work.raise_if_cancelled()
        return submission_pairs(sub, scenario, playback.data, t, work=work)

    def reference(t: int):
        work.raise_if_cancelled()
        return playback.records_at(t, work)

    between = range(agreed + 1, tick) if tick - agreed <= MAX_HELD_SCAN else ladder(agreed, tick)
    return why_trail(
        scenario,
        cell=cell,
        tick=tick,
        agreed=agreed,
        reference_records=reference,
        submission_records=submission,
        cheap=ticks_held(sub, playback.data, between),
        parallel=PROBES,
    )


def fetch_ahead(playback: Playback, sub: SubmissionRecords, ticks: list[int], *, work: Work) -> int:
    """The submission's records at `ticks` into its answers on disk (worker side), one run at
    a time, the nearest the tick shown first; how many runs it took."""
    runs = 0
    for t in sorted(set(ticks) - set(ticks_held(sub, playback.data, ticks)), reverse=True):
        work.raise_if_cancelled()
        submission_pairs(sub, playback.scenario, playback.data, t, work=work)
        runs += 1
    return runs


class WhyTool(QObject):
    """ "Why?" for the tab's map; `go_to` for the Results tab's links.

    Once the first wrong tick is known, the submission's records at a `ladder` of ticks
    between it and the tick shown (at or before it: the first divergent snapshot) are fetched
    ahead onto disk (one run at a time, on a
    one-thread pool of its own; a "Why?" or another scenario stops it), so a first "Why?"
    there starts from them instead of running the submission for each tick it bisects."""

    fetched_ahead = Signal(int)  # a fetch ahead finished: the submission runs it took

    def __init__(self, tab: WhyHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tab = tab
        self.overlay = TrailOverlay()
        tab.canvas.box.addItem(self.overlay)
        self.panel = QListWidget(tab.canvas)
        self.panel.setObjectName("whyTrail")
        self.panel.setWordWrap(True)  # a step's sentence is read whole, never scrolled sideways
        self.panel.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.panel.hide()
        self.panel.itemActivated.connect(self._step_chosen)
        self.panel.itemClicked.connect(self._step_chosen)
        self._query = LatestQuery(self._show, self)
        self._query.failed.connect(self._failed)
        self._pending: tuple[int, tuple[int, int]] | None = None  # (tick, (x, y)) once a scenario opens
        self._ahead = tasks.Background(self)
        # a pool of its own: in the shared one a fetch ahead would hold a thread for minutes
        # and the map's loads would queue behind it and the keyframe walk
        self._ahead_pool = QThreadPool(self)
        self._ahead_pool.setMaxThreadCount(1)
        self._ahead_pool.setStackSize(tasks.WORKER_STACK)
        self._ahead_for: tuple[int, int, int] | None = None  # (playback, agreed, tick) last fetched for
        for widget in (tab.canvas, tab.canvas.viewport()):
            widget.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        tab.canvas.customContextMenuRequested.connect(self._context_menu)
        tab.canvas.scenario_set.connect(self.clear)
        tab.loader.loaded.connect(self._after_load)

    # --- Why? --------------------------------------------------------------------------------

    def why_here(self) -> None:
        """The W key: the cell under the pointer, else the ringed differing cell."""
        canvas, nav = self.tab.canvas, self.tab.navigator
        hover = canvas.hovered_cell
        if hover is not None and canvas.scenario is not None:
            self.why(hover[1] * canvas.scenario.width + hover[0])
        elif nav.cell_index is not None and nav.cells:
            self.why(nav.cells[nav.cell_index])
        else:
            self._say("Why? — point at a differing cell (tinted on the map) first.")

    def why(self, cell: int) -> None:
        tab, nav = self.tab, self.tab.navigator
        playback, sub = tab.playback, nav.submission
        if playback is None or sub is None:
            self._say("Why? needs a wrong run's scenario whose submission exports its records.")
            return
        if cell not in nav.marked:
            self._say("Why? — this cell agrees with the reference at this tick: pick a tinted one.")
            return
        found = tab.divergence
        agreed = found.agreed if found is not None and found.tick <= tab.tick else self._last_agreeing()
        self._say(
            f"Why? — tracing ({cell % playback.scenario.width}, {cell // playback.scenario.width}) back…"
        )
        self._ahead.cancel()  # the trail reads what is on disk; it needs the cores now
        self._query.request(trail_of, playback, sub, cell, tab.tick, agreed, work=True)

    def _last_agreeing(self) -> int:
        snapshots = self.tab.snapshots
        if snapshots is None or snapshots.first_divergence is None:
            return 0
        return snapshots.first_divergence * snapshots.interval

    @property
    def busy(self) -> bool:
        """A trail is being traced."""
        return self._query.busy

    def clear(self) -> None:
        self._query.forget()
        self._ahead.cancel()
        self._ahead_for = None
        self.overlay.clear()
        self.panel.clear()
        self.panel.hide()

    @Slot(object)
    def _show(self, steps: list[TrailStep]) -> None:
        self.overlay.show_trail(steps)
        self.panel.clear()
        for step in steps:
            mark = "◎" if step.origin else "←"
            item = QListWidgetItem(f"{mark} tick {step.tick:,} ({step.cell[0]}, {step.cell[1]}): {step.text}")
            item.setData(Qt.ItemDataRole.UserRole, (step.tick, step.cell))
            self.panel.addItem(item)
        self._place_panel()

    @Slot(str, str)
    def _failed(self, message: str, _trace: str) -> None:
        self._say(f"Why? failed: {message}")

    def _say(self, text: str) -> None:
        self.panel.clear()
        self.panel.addItem(text)
        self._place_panel()

    def _place_panel(self) -> None:
        canvas, panel = self.tab.canvas, self.panel
        width = min(560, max(240, canvas.width() - 16))
        panel.setGeometry(8, 8, width, 60)  # the width first: the rows wrap to it
        panel.doItemsLayout()
        rows = sum(panel.visualItemRect(panel.item(i)).height() for i in range(panel.count()))
        height = min(rows + 2 * panel.frameWidth() + 4, max(60, canvas.height() // 2))
        panel.setGeometry(8, max(8, canvas.height() - height - 8), width, height)
        panel.show()
        panel.raise_()

    @Slot(QListWidgetItem)
    def _step_chosen(self, item: QListWidgetItem) -> None:
        data = item.data(Qt.ItemDataRole.UserRole)
        if data is None:
            return
        tick, (x, y) = data
        self._show_place(tick, x, y)

    @Slot(QPoint)
    def _context_menu(self, pos: QPoint) -> None:
        canvas = self.tab.canvas
        cell = canvas.cell_at(canvas.mapToScene(pos))
        if cell is None or canvas.scenario is None:
            return
        c = cell[1] * canvas.scenario.width + cell[0]
        menu = QMenu(canvas)
        action = menu.addAction(f"Why? — trace ({cell[0]}, {cell[1]}) back to its first wrong decision  (W)")
        action.setEnabled(c in self.tab.navigator.marked)
        action.triggered.connect(lambda: self.why(c))
        menu.popup(canvas.mapToGlobal(pos))

    # --- going to a place (the Results tab's links) ----------------------------------------

    def go_to(self, case: str, tick: int, x: int, y: int) -> None:
        """Show `case` at `tick`, centred on (x, y) (opening the case first if need be)."""
        tab = self.tab
        index = tab.case_box.findData(case)
        if tab.run is None or index < 0:
            return
        if tab.case_box.currentData() != case or tab.playback is None:
            tab.case_box.setCurrentIndex(index)
            self._pending = (tick, (x, y))
            tab.open_case(case, at_first_divergence=False)
            return
        self._show_place(tick, x, y)

    def _show_place(self, tick: int, x: int, y: int) -> None:
        tab = self.tab
        if tab.playback is None:
            return
        tab.stop_playing()
        tab.show_tick(tick)
        tab.canvas.focus_cell(y * tab.playback.scenario.width + x)

    @Slot(object)
    def _after_load(self, _state) -> None:
        if self._pending is not None and self.tab.playback is not None:
            tick, (x, y) = self._pending
            self._pending = None
            self._show_place(tick, x, y)
        self._fetch_ahead()

    # --- fetching ahead ----------------------------------------------------------------------

    def _fetch_ahead(self) -> None:
        tab, nav = self.tab, self.tab.navigator
        found, playback, sub = tab.divergence, tab.playback, nav.submission
        if found is None or playback is None or sub is None or nav.playing or self._query.busy:
            return
        target = tab.tick
        if target <= found.tick:  # nothing to bisect before it: ready the divergent snapshot,
            snapshots = tab.snapshots  # where the differences are and the reviewer came from
            first = snapshots.first_divergence if snapshots is not None else None
            target = snapshots.tick(first) if snapshots is not None and first is not None else target
        rungs = ladder(found.agreed, target)
        key = (id(playback), found.agreed, target)
        if not rungs or key == self._ahead_for:
            return
        self._ahead_for = key
        task = tasks.Task(fetch_ahead, playback, sub, rungs, work=True)
        task.signals.done.connect(self._fetched)
        task.signals.failed.connect(self._ahead_failed)
        self._ahead.cancel()
        self._ahead.work = task.work
        tasks.start(task, on=self._ahead_pool)

    @Slot(object)
    def _fetched(self, runs: int) -> None:
        self.fetched_ahead.emit(runs)

    @Slot(str, str)
    def _ahead_failed(self, message: str, _trace: str) -> None:
        self._say(f"Why? — fetching the submission's records ahead failed: {message}")
