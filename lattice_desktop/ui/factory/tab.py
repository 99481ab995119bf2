"""The Factory tab: replay a run's scenario tick by tick, see where checksums diverge,
and (with the records export) the submission's own factory beside the reference's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QWidget

from lattice_desktop.lattice.confirm_child import Confirmation
from lattice_desktop.lattice.divergence import Divergence
from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.snapshots import Snapshots
from lattice_desktop.lattice.submission_records import SubmissionRecords, open_submission
from lattice_desktop.lattice.view import FactoryState
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.services.factory_opening import FileChecksums
from lattice_desktop.store.queries import StoredRun
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.factory.bookmarks import bookmark_key
from lattice_desktop.ui.factory.canvas import FactoryCanvas
from lattice_desktop.ui.factory.divergence_view import DivergenceNavigator
from lattice_desktop.ui.factory.empty_state import MapMessage, no_factory_text
from lattice_desktop.ui.factory.keys import bind_keys
from lattice_desktop.ui.factory.loader import StateLoader
from lattice_desktop.ui.factory.opening import (
    CensusCount,
    ChecksumCount,
    ReadyToShow,
    open_case_to_show,
    open_file_to_show,
)
from lattice_desktop.ui.factory.player import Player
from lattice_desktop.ui.factory.snapshots import snapshot_step
from lattice_desktop.ui.factory.tab_layout import FactoryTabWidgets
from lattice_desktop.ui.factory.why import WhyTool


class FactoryTab(QWidget):
    scenario_file_opened = Signal(object)  # a scenario file's Path, once it opened (for File › Recent)
    canvas: FactoryCanvas  # declared: the "Why?" tool reads it before this module's types are done

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stale: list[str] = []  # why the open run does not match the case files now
        self._caching = ""
        self.run: StoredRun | None = None
        self.case: CaseManifest | None = None
        self.playback: Playback | None = None
        self.snapshots: Snapshots | None = None
        self.tick = 0
        self._opening: str | None = None
        self._want_divergence = False
        self.scenario_files: list[Path] = []  # open standalone *.lat files, while no run is shown

        self.loader = StateLoader(self)
        self.loader.loaded.connect(self._on_loaded)
        self.loader.previewed.connect(self._on_preview)
        self.loader.failed.connect(self._on_failed)
        self.loader.prepared.connect(self._on_prepared)
        # Only the newest request's answer counts: picking another scenario or tick while
        # one is being opened drops the older answer.
        self._open_query = LatestQuery(self._opened, self)
        self._open_query.failed.connect(self._open_failed)
        self._submission_query = LatestQuery(self._submission_checked, self)
        self._submission_query.failed.connect(self._submission_unavailable)
        self.player = Player(self, self)
        self.timer = self.player.timer  # active while playing

        self.widgets = w = FactoryTabWidgets(self)
        self.case_box, self.engine_label, self.modes = w.case_box, w.engine_label, w.modes
        self.canvas, self.minimap, self.bar, self.legend, self.hover = (
            w.canvas,
            w.minimap,
            w.bar,
            w.legend,
            w.hover,
        )
        self.model, self.table, self.diff_list, self.census = w.model, w.table, w.diff_list, w.census
        self.transport, self.banner, self.empty, self.stack = w.transport, w.banner, w.empty, w.stack
        self._census = CensusCount(self.census, self)  # the panel only shows what it counts
        self._checksums = ChecksumCount(self._checksums_ready, self.transport.status, self)
        self._after_first_frame: list[Callable[[], None]] = []  # what the map must not wait behind
        self.navigator = DivergenceNavigator(
            self.canvas, self.diff_list, self.bar, self.minimap, self.transport.timeline, self.modes, self
        )
        self.navigator.seek.connect(self._seek)
        self.modes.changed.connect(self._mode_changed)
        self.case_box.activated.connect(self._case_chosen)
        self.open_error = MapMessage(self.canvas, lambda: self._opening)  # an open's error, on the map
        self._open_query.failed.connect(self.open_error.show_open_error)
        self.canvas.hovered.connect(lambda text: self.hover.setText(text.replace("\n", " · ")))
        self.table.selectionModel().currentRowChanged.connect(self._row_chosen)
        self.transport.seek.connect(self.show_tick)
        self.transport.first.clicked.connect(lambda: self.step_snapshot(-1))
        self.transport.last.clicked.connect(lambda: self.step_snapshot(+1))
        self.transport.back.clicked.connect(lambda: self.step_ticks(-1))
        self.transport.forward.clicked.connect(lambda: self.step_ticks(+1))
        self.transport.play.clicked.connect(self.toggle_play)
        self.transport.speed.valueChanged.connect(self.player.set_speed)
        self.tools = w.tools
        self.transport.bookmarks.seek.connect(self._seek)
        self.bar.hunt.clicked.connect(self.player.hunt)
        self.why = WhyTool(self, self)  # "Why?" on a differing cell; the Results tab's jumps
        bind_keys(self, self)

    # --- the public face ------------------------------------------------------------------

    def show_run(self, run: StoredRun | None, case: CaseManifest | None) -> None:
        """Open a run (None: the empty state), on its first wrong case if it has one."""
        self._leave_scenario()
        for query in (self._open_query, self._submission_query):
            query.forget()
        self.scenario_files = []
        self.run, self.case = run, case
        self._show_stale([], False)
        self.case_box.clear()
        lattice = [r for r in (run.results if run else []) if case and _has_case(case, r.name)]
        if run is None or case is None or not lattice:
            self.empty.setText(no_factory_text(run is not None, case))
            self.stack.setCurrentIndex(0)
            return
        self.stack.setCurrentIndex(1)
        for r in lattice:
            self.case_box.addItem(f"{r.outcome.symbol} {r.name}", r.name)
        wrong = next((i for i, r in enumerate(lattice) if r.mismatch is not None), 0)
        self.case_box.setCurrentIndex(wrong)
        self.navigator.auto_diff = lattice[wrong].mismatch is not None
        self.open_case(lattice[wrong].name, at_first_divergence=True)

    def show_scenario_files(self, paths: list[Path], *, current: Path | None = None) -> None:
        """Standalone scenario files, listed in the picker and replayed with the reference
        engine (nothing is graded); opens `current`, else the first."""
        self.show_run(None, None)
        self.scenario_files = list(paths)
        self.modes.set_available(False, "A scenario file has no submission to compare with")
        for path in self.scenario_files:
            self.case_box.addItem(path.name, str(path))
            self.case_box.setItemData(self.case_box.count() - 1, str(path), Qt.ItemDataRole.ToolTipRole)
        self.stack.setCurrentIndex(1)
        index = self.scenario_files.index(current) if current in self.scenario_files else 0
        self.case_box.setCurrentIndex(index)
        self._open_file(self.scenario_files[index])

    @property
    def settled(self) -> bool:
        """It shows the tick it is at: loaded, and its Diff (when shown) worked out."""
        return (
            self.playback is not None
            and not self.loader.busy
            and self.canvas.state is not None
            and self.canvas.state.tick == self.tick
            and self.navigator.settled
            and not self._checksums.busy
        )

    @property
    def has_records(self) -> bool:
        """The open run's submission exports records (its Diff view can be shown)."""
        return self.navigator.submission is not None

    @property
    def divergence(self) -> Divergence | None:
        """The first wrong tick, once the navigator has found it."""
        return self.navigator.divergence

    @property
    def cells(self) -> list[int]:
        """The differing cells at the tick shown, in grid order."""
        return self.navigator.cells

    @property
    def cell_index(self) -> int | None:
        """Which of `cells` is focused."""
        return self.navigator.cell_index

    def next_divergence(self) -> None:
        """The next snapshot after the current tick whose checksums differ (stays if none)."""
        self.navigator.step_divergent_snapshot(+1)

    def go_to_first_divergence(self) -> None:
        first = self.model.first_divergence
        if self.snapshots is None:
            self._want_divergence = True
        elif first is not None:
            self.table.select_row(first)
            self.show_tick(self.snapshots.tick(first))

    def show_tick(self, tick: int) -> None:
        if self.playback is None:
            return
        # The tick box and the bookmarks follow the tick drawn (`_on_loaded`), not the one asked for.
        self.tick = self.navigator.tick = max(0, min(int(tick), self.playback.ticks))
        self.loader.request(self.tick)

    def step_ticks(self, delta: int) -> None:
        self.stop_playing()
        self.show_tick(self.tick + delta)

    def step_snapshot(self, direction: int) -> None:
        if self.snapshots is None or not len(self.snapshots):
            return
        target = snapshot_step(self.snapshots, self.tick, direction)
        row = self.snapshots.row_of(target)
        if row is not None:
            self.table.select_row(row)
        self.show_tick(target)

    def toggle_play(self) -> None:
        self.player.toggle()

    def shutdown(self) -> None:
        """Stop background work (the main window calls this when closing)."""
        self._leave_scenario()
        self._open_query.forget()  # cancels an opening scenario file's reference run
        self.navigator.stop_search()
        self.player.wait()  # Play runs on a pool of its own, which cancel_all does not wait for

    def _leave_scenario(self) -> None:
        """Stop what the open scenario started: playing, seeks, the keyframe walk, its census
        (whose child process is killed), its diffs; and empty every pane it filled."""
        self.stop_playing()
        self.player.stop_hunt()
        self.loader.stop()
        self._census.stop()
        self._checksums.forget()
        self._after_first_frame = []
        self.playback, self.snapshots, self.tick = None, None, 0
        self.navigator.reset()
        self.widgets.clear()

    # --- opening a scenario ---------------------------------------------------------------

    def _case_chosen(self, index: int) -> None:
        name = self.case_box.itemData(index)
        if name and self.run is not None:
            self.open_case(name, at_first_divergence=self._want_divergence)
        elif name and self.scenario_files:
            self._open_file(Path(name))

    def _open_file(self, path: Path) -> None:
        self._leave_scenario()
        self._opening = str(path)
        self.engine_label.setText(f"opening {path.name}…")
        self._open_query.request(open_file_to_show, path, work=True)

    def open_case(self, name: str, *, at_first_divergence: bool = False) -> None:
        if self.run is None:  # the run's case `name`, shown at its first divergence or at tick 0
            return
        self._want_divergence = at_first_divergence
        result = next(r for r in self.run.results if r.name == name)
        self._leave_scenario()
        self.navigator.stop_search()
        self._opening = name
        self.engine_label.setText(f"opening {name}…")
        self._open_query.request(open_case_to_show, self.run, self.case, result, work=True)
        self._submission_query.request(open_submission, self.run.submission_path, self.case, name)

    def _opened(self, ready: ReadyToShow) -> None:
        opened = ready.opened
        self.playback, self.snapshots = playback, snapshots = opened.playback, opened.snapshots
        self._show_stale(opened.stale, opened.specific)
        size = f"{playback.scenario.width}×{playback.scenario.height}"
        self.engine_label.setText(" · ".join(filter(None, [size, playback.engine_name, opened.source])))
        self.engine_label.setToolTip("")
        self.canvas.set_scenario(playback.scenario, ready.raster)
        self.navigator.open(playback, snapshots)
        self.legend.set_scenario(playback.scenario)
        place = bookmark_key(run_id=self.run.id if self.run else None, scenario=self._opening or "")
        self.transport.bookmarks.set_place(place)
        # The census and a file's checksums wait for the first frame: on two cores, two
        # long tasks ahead of it in the pool would hold the map back for their whole length.
        case_dir = self.case.path.parent if self.case is not None else None
        after = self._after_first_frame = [lambda: self._census.count(playback.data, case_dir)]
        if opened.pending:  # first: they tell which engine may play the file
            after.insert(0, lambda: self._checksums.count(Path(opened.name), playback))
        self._show_snapshots(snapshots)
        if opened.pending:
            self.scenario_file_opened.emit(Path(opened.name))
        self.transport.set_range(playback.ticks)
        self.transport.timeline.set_prepared(playback.prepared)
        self.loader.set_playback(playback)
        first = snapshots.first_divergence
        if self._want_divergence and first is not None:
            self.table.select_row(first)
            self.navigator.focus_pending = True
            self.show_tick(snapshots.tick(first))
        else:
            self.show_tick(0)
        self._want_divergence = False
        self.navigator.start_diff_view()

    def _show_snapshots(self, snapshots: Snapshots) -> None:
        self.snapshots = self.navigator.snapshots = snapshots
        self.table.set_compared(snapshots.got is not None)
        self.model.set_snapshots(snapshots)
        self.transport.timeline.set_snapshots(snapshots)
        if snapshots.first_divergence is not None:
            self.bar.show()

    def _checksums_ready(self, result: FileChecksums) -> None:
        self.transport.status.setText("")
        note, why = self.player.heading(self.engine_label.text(), result.source)
        self.engine_label.setText(note)
        self.engine_label.setToolTip(why)
        self._show_snapshots(result.snapshots)

    def _submission_checked(self, sub: SubmissionRecords) -> None:
        self.navigator.set_submission(sub)

    @Slot(str, str)
    def _submission_unavailable(self, message: str, trace: str) -> None:
        """No records export (a user error), or a bug opening it (with its traceback)."""
        self.navigator.set_submission(None, message)
        self.bar.status.setToolTip(trace or message)

    def _show_stale(self, reasons: list[str], specific: bool) -> None:
        self.stale = list(reasons)
        self.banner.show_reasons(reasons, specific, self._opening or "this scenario")

    # --- showing states -------------------------------------------------------------------

    @Slot(object, int)
    def _on_preview(self, state: FactoryState, target: int) -> None:
        """A state on the way to a far tick: show it so the screen moves, say where it goes."""
        if self.playback is None or target != self.tick:
            return
        self.transport.status.setText(f"simulating to tick {target:,}: at {state.tick:,}…")
        if self.modes.mode == "Reference" and not self.timer.isActive():
            self.canvas.set_state(state)
            self.canvas.set_marked(())
            self.transport.show_tick(state.tick)

    @Slot(object)
    def _on_loaded(self, state: FactoryState) -> None:
        for start in self._after_first_frame:
            start()
        self._after_first_frame = []
        self.transport.status.setText(self._caching)
        self.tick = self.navigator.tick = state.tick
        self.transport.show_tick(state.tick)
        self.transport.bookmarks.set_tick(state.tick)
        row = self.snapshots.row_of(state.tick) if self.snapshots else None
        if row is not None and not self.timer.isActive():
            self.table.select_row(row)
        self.navigator.show_state(state)

    @Slot(str, str)
    def _open_failed(self, message: str, trace: str) -> None:
        """The scenario could not be opened: every pane says so, none shows the one before
        (the map's message, connected after this slot, says why)."""
        self._leave_scenario()
        self._on_failed(message, trace)

    @Slot(str, str)
    def _on_failed(self, message: str, trace: str) -> None:
        self.stop_playing()
        self.engine_label.setText(f"⚠ {message}")
        self.engine_label.setToolTip(trace or message)

    @Slot(float)
    def _on_prepared(self, fraction: float) -> None:
        self.transport.timeline.set_prepared(fraction)
        self._caching = "" if fraction >= 1 else f"caching keyframes {fraction:.0%}"
        if not self.loader.busy and not self.timer.isActive():  # playing: the player says
            self.transport.status.setText(self._caching)

    @property
    def confirmation(self) -> Confirmation | None:
        """How far a fast engine has been seen to agree with the reference on the open file."""
        return self._checksums.confirmation

    def stop_playing(self) -> None:
        self.player.stop()

    @Slot(int)
    def _seek(self, tick: int) -> None:
        """The navigator's move: stop playing, select the tick's snapshot row, show it."""
        self.stop_playing()
        row = self.snapshots.row_of(tick) if self.snapshots else None
        if row is not None:
            self.table.select_row(row)
        self.show_tick(tick)

    @Slot(str)
    def _mode_changed(self, mode: str) -> None:
        if mode != "Reference":
            self.stop_playing()

    def _row_chosen(self, current, _previous) -> None:
        if current.isValid() and self.snapshots is not None and not self.timer.isActive():
            tick = self.snapshots.tick(current.row())
            if tick != self.tick:
                self.show_tick(tick)


def _has_case(case: CaseManifest, name: str) -> bool:
    return case.family == "lattice-v1" and any(e.name == name for e in case.cases)
