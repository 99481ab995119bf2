"""The Factory tab: replay a run's scenario tick by tick, see where checksums diverge,
and (with the records export) the submission's own factory beside the reference's."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer, Slot
from PySide6.QtGui import QFontDatabase, QFontMetrics, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.snapshots import Snapshots
from lattice_desktop.lattice.submission_records import SubmissionRecords, open_submission
from lattice_desktop.lattice.view import FactoryState
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.services.factory_opening import OpenedCase, open_case, open_scenario
from lattice_desktop.store.queries import StoredRun
from lattice_desktop.ui.factory.canvas import FactoryCanvas
from lattice_desktop.ui.factory.census_panel import CensusPanel
from lattice_desktop.ui.factory.diff_panel import DiffList, ModeSwitch
from lattice_desktop.ui.factory.divergence_bar import KEYS
from lattice_desktop.ui.factory.divergence_view import DivergenceNavigation
from lattice_desktop.ui.factory.legend import Legend
from lattice_desktop.ui.factory.loader import StateLoader
from lattice_desktop.ui.factory.snapshots import SnapshotModel
from lattice_desktop.ui.factory.transport import TransportBar
from lattice_desktop.ui.latest_query import LatestQuery

FRAME_MS = 33


class FactoryTab(DivergenceNavigation, QWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.stale: list[str] = []  # why the open run does not match the case files now
        self._caching = ""
        self.run: StoredRun | None = None
        self.case: CaseManifest | None = None
        self.playback: Playback | None = None
        self.snapshots: Snapshots | None = None
        self.tick = 0
        self._reference: FactoryState | None = None
        self._submission = None  # SubmissionRecords once known to exist
        self._marked: frozenset[int] = frozenset()
        self._opening: str | None = None
        self._want_divergence = False
        self._diff_tick: int | None = None
        self._counts: dict[int, int] = {}  # differing records per cell at `_diff_tick`
        self._diff_pending: int | None = None
        self.scenario_files: list[Path] = []  # open standalone *.lat files, while no run is shown
        self._init_divergence()

        self.loader = StateLoader(self)
        self.loader.loaded.connect(self._on_loaded)
        self.loader.previewed.connect(self._on_preview)
        self.loader.failed.connect(self._on_failed)
        self.loader.prepared.connect(self._on_prepared)
        # Only the newest request's answer counts: picking another scenario or tick while
        # one is being opened or diffed drops the older answer.
        self._open_query = LatestQuery(self._opened, self)
        self._open_query.failed.connect(self._on_failed)
        self._submission_query = LatestQuery(self._submission_checked, self)
        self._submission_query.failed.connect(self._submission_unavailable)
        self._diff_query = LatestQuery(self._diff_done, self)
        self._diff_query.failed.connect(self._diff_failed)

        self.case_box = QComboBox(self)
        self.case_box.setMinimumWidth(220)
        self.case_box.setToolTip("Which scenario of the run to replay")
        self.case_box.activated.connect(self._case_chosen)
        self.engine_label = QLabel(self)
        self.engine_label.setStyleSheet("color: palette(mid);")
        self.modes = ModeSwitch(self)
        self.modes.set_available(False, "Open a run whose submission exports lattice_records")
        self.modes.changed.connect(self._mode_changed)
        top = QHBoxLayout()
        top.setContentsMargins(6, 4, 6, 0)
        top.addWidget(QLabel("Scenario", self))
        top.addWidget(self.case_box)
        top.addSpacing(12)
        top.addWidget(self.engine_label)
        top.addStretch(1)
        top.addWidget(self.modes)

        self.canvas = FactoryCanvas(self)
        self.legend = Legend(self)
        self.hover = QLabel(self)
        self.hover.setStyleSheet("color: palette(mid);")
        self.canvas.hovered.connect(self._hovered)
        self._build_divergence()
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.setSpacing(2)
        left_layout.addWidget(self.canvas, 1)
        left_layout.addWidget(self.legend)
        left_layout.addWidget(self.hover)

        self.model = SnapshotModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setAlternatingRowColors(True)
        # Wide enough for both 16-digit checksums and the ✓/✗ column, never cut off.
        mono = QFontMetrics(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        digits = mono.horizontalAdvance("0" * 16)
        self.table.setMinimumWidth(2 * digits + mono.horizontalAdvance("000,000,000") + 110)
        self.table.selectionModel().currentRowChanged.connect(self._row_chosen)
        self.diff_list = DiffList(self)
        self.diff_list.cell_chosen.connect(self._row_cell_chosen)
        self.diff_list.hide()
        side = QSplitter(Qt.Orientation.Vertical, self)
        side.addWidget(self.table)
        side.addWidget(self.diff_list)
        self.census = CensusPanel(self)
        side.addWidget(self.census)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(left)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([780, 360])

        self.transport = TransportBar(self)
        self.transport.seek.connect(self.show_tick)
        self.transport.first.clicked.connect(lambda: self.step_snapshot(-1))
        self.transport.last.clicked.connect(lambda: self.step_snapshot(+1))
        self.transport.back.clicked.connect(lambda: self.step_ticks(-1))
        self.transport.forward.clicked.connect(lambda: self.step_ticks(+1))
        self.transport.play.clicked.connect(self.toggle_play)

        body = QWidget(self)
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        body_layout.addLayout(top)
        body_layout.addWidget(self.bar)
        self.banner = QLabel(self)
        self.banner.setObjectName("staleRunBanner")
        self.banner.setWordWrap(True)
        self.banner.setTextFormat(Qt.TextFormat.PlainText)
        self.banner.setStyleSheet(
            "#staleRunBanner { background: #5A4510; color: #FFE7A8; "
            "border: 1px solid #A27B1E; border-radius: 4px; padding: 6px 8px; }"
        )
        self.banner.hide()
        banner_row = QHBoxLayout()
        banner_row.setContentsMargins(6, 4, 6, 0)
        banner_row.addWidget(self.banner)
        body_layout.addLayout(banner_row)
        body_layout.addWidget(split, 1)
        body_layout.addWidget(self.transport)
        self.empty = QLabel("No run open — pick a run in the runs list to replay its factory.", self)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(body)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.stack)

        self.timer = QTimer(self, interval=FRAME_MS)
        self.timer.timeout.connect(self._frame)
        keys = (
            ("Space", "Play / pause", self.toggle_play),
            ("Left", "One tick back", lambda: self.step_ticks(-1)),
            ("Right", "One tick forward", lambda: self.step_ticks(1)),
            ("Shift+Left", "Previous snapshot", lambda: self.step_snapshot(-1)),
            ("Shift+Right", "Next snapshot", lambda: self.step_snapshot(1)),
            (KEYS["next_snapshot"], "Next divergent snapshot", self.next_divergence),
            (
                KEYS["previous_snapshot"],
                "Previous divergent snapshot",
                lambda: self.step_divergent_snapshot(-1),
            ),
            (KEYS["next_cell"], "Next differing cell", lambda: self.step_cell(1)),
            (KEYS["previous_cell"], "Previous differing cell", lambda: self.step_cell(-1)),
            (KEYS["heatmap"], "Divergence heatmap on / off", self.bar.heatmap.toggle),
            (KEYS["first_tick"], "First wrong tick", self.go_to_first_tick),
            ("Home", "First tick", lambda: self.show_tick(0)),
            ("End", "Last tick", lambda: self.show_tick(self.playback.ticks if self.playback else 0)),
        )
        for key, what, slot in keys:  # the Help menu lists them by their whatsThis
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.setWhatsThis(what)
            shortcut.activated.connect(slot)

    # --- the public face ------------------------------------------------------------------

    def show_run(self, run: StoredRun | None, case: CaseManifest | None) -> None:
        """Open a run (None: the empty state), on its first wrong case if it has one."""
        self._stop_playing()
        self.loader.stop()
        for query in (self._open_query, self._submission_query, self._diff_query):
            query.forget()
        self.scenario_files = []
        self.run, self.case = run, case
        self.playback, self.snapshots, self._submission = None, None, None
        self._reset_divergence()
        self._show_stale([], False)
        self.case_box.clear()
        lattice = [r for r in (run.results if run else []) if case and _has_case(case, r.name)]
        if run is None or case is None or not lattice:
            self.empty.setText(
                "No run open — pick a run in the runs list to replay its factory."
                if run is None
                else "This run has no Lattice scenarios to replay."
            )
            self.stack.setCurrentIndex(0)
            return
        self.stack.setCurrentIndex(1)
        for r in lattice:
            self.case_box.addItem(f"{r.outcome.symbol} {r.name}", r.name)
        wrong = next((i for i, r in enumerate(lattice) if r.mismatch is not None), 0)
        self.case_box.setCurrentIndex(wrong)
        self._want_divergence = True
        self._auto_diff = lattice[wrong].mismatch is not None
        self._open(lattice[wrong].name)

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
            and (self.modes.mode == "Reference" or self._diff_tick == self.tick)
        )

    @property
    def has_records(self) -> bool:
        """The open run's submission exports records (its Diff view can be shown)."""
        return self._submission is not None

    def next_divergence(self) -> None:
        """The next snapshot after the current tick whose checksums differ (stays if none)."""
        self.step_divergent_snapshot(+1)

    def go_to_first_divergence(self) -> None:
        first = self.model.first_divergence
        if self.snapshots is None:
            self._want_divergence = True
        elif first is not None:
            self._select_row(first)
            self.show_tick(self.snapshots.tick(first))

    def show_tick(self, tick: int) -> None:
        if self.playback is None:
            return
        self.tick = max(0, min(int(tick), self.playback.ticks))
        self.transport.show_tick(self.tick)
        self.loader.request(self.tick)

    def step_ticks(self, delta: int) -> None:
        self._stop_playing()
        self.show_tick(self.tick + delta)

    def step_snapshot(self, direction: int) -> None:
        if self.snapshots is None or not len(self.snapshots):
            return
        interval = self.snapshots.interval
        target = (
            (self.tick // interval + 1) * interval
            if direction > 0
            else ((self.tick - 1) // interval) * interval
        )
        target = max(0, min(target, len(self.snapshots) * interval))
        row = self.snapshots.row_of(target)
        if row is not None:
            self._select_row(row)
        self.show_tick(target)

    def toggle_play(self) -> None:
        if self.timer.isActive():
            self._stop_playing()
        elif self.playback is not None:
            if self.tick >= self.playback.ticks:
                self.show_tick(0)
            self.timer.start()
            self.transport.set_playing(True)

    def shutdown(self) -> None:
        """Stop background work (the main window calls this when closing)."""
        self._stop_playing()
        self.loader.stop()
        self.stop_search()
        self.census.clear_scenario()

    # --- opening a scenario ---------------------------------------------------------------

    def _case_chosen(self, index: int) -> None:
        name = self.case_box.itemData(index)
        if name and self.run is not None:
            self._open(name)
        elif name and self.scenario_files:
            self._open_file(Path(name))

    def _open_file(self, path: Path) -> None:
        self.loader.stop()
        self._opening = str(path)
        self.engine_label.setText(f"opening {path.name}…")
        self._open_query.request(open_scenario, path)

    def _open(self, name: str) -> None:
        result = next(r for r in self.run.results if r.name == name)
        self.loader.stop()
        self.stop_search()
        self._opening = name
        self.engine_label.setText(f"opening {name}…")
        self._open_query.request(open_case, self.run, self.case, result)
        self._submission_query.request(open_submission, self.run.submission_path, self.case, name)

    def _opened(self, opened: OpenedCase) -> None:
        playback, snapshots = opened.playback, opened.snapshots
        self.playback, self.snapshots = playback, snapshots
        self._show_stale(opened.stale, opened.specific)
        self._reference, self._marked = None, frozenset()
        self.engine_label.setText(
            " · ".join(
                [
                    f"{playback.scenario.width}×{playback.scenario.height}",
                    playback.engine_name,
                    *filter(None, [opened.source]),
                ]
            )
        )
        self.canvas.set_scenario(playback.scenario)
        self.minimap.set_grid(
            playback.grid[0] if max(playback.scenario.width, playback.scenario.height) >= 64 else None, None
        )
        self._place_minimap()
        self.cells, self.cell_index, self._counts, self._diff_tick = [], None, {}, None
        self.legend.set_scenario(playback.scenario)
        self.census.show_scenario(
            playback.data, playback.scenario, self.case.path.parent if self.case is not None else None
        )  # a file alone
        self.model.set_snapshots(snapshots)
        self.transport.set_range(playback.ticks)
        self.transport.timeline.set_snapshots(snapshots)
        self.transport.timeline.set_prepared(playback.prepared)
        self.loader.set_playback(playback)
        first = snapshots.first_divergence
        if first is not None:
            self.bar.show()
            self.bar.show_cell(None, 0)
        if self._want_divergence and first is not None:
            self._select_row(first)
            self._focus_pending = True
            self.show_tick(snapshots.tick(first))
        else:
            self.show_tick(0)
        self._want_divergence = False
        self._start_diff_view()

    def _submission_checked(self, sub: SubmissionRecords) -> None:
        self._submission = sub
        self.modes.set_available(True, "")
        self._start_diff_view()

    @Slot(str, str)
    def _submission_unavailable(self, message: str, trace: str) -> None:
        """No records export (a user error), or a bug opening it (with its traceback)."""
        self._submission = None
        self.modes.set_available(False, f"Submission view unavailable: {message}")
        self.bar.status.setText(
            f"Only snapshots can be compared: {message}. The first wrong tick and "
            "the differing cells need the records export (spec §8)."
        )
        self.bar.status.setToolTip(trace or message)

    def _show_stale(self, reasons: list[str], specific: bool) -> None:
        self.stale = list(reasons)
        if not reasons:
            self.banner.hide()
            return
        name = self._opening or "this scenario"
        if specific:
            text = (
                f"⚠ Stale run: it was graded against an older version of {name} "
                f"({'; '.join(reasons)}). The factory replays the current file, so the "
                "snapshot list shows today's expected checksums without ✓/✗ — they would not "
                "be this run's. Grade the submission again to compare."
            )
        else:
            text = (
                f"⚠ The case changed since this run was graded ({'; '.join(reasons)}). "
                f"{name}'s snapshots still line up, but its input may differ from what the "
                "submission saw. Grade the submission again to be sure."
            )
        self.banner.setText(text)
        self.banner.setToolTip("\n".join(reasons))
        self.banner.show()

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

    @Slot(object)
    def _on_loaded(self, state: FactoryState) -> None:
        self.transport.status.setText(self._caching)
        self._reference = state
        self.tick = state.tick
        self.transport.show_tick(state.tick)
        row = self.snapshots.row_of(state.tick) if self.snapshots else None
        if row is not None and not self.timer.isActive():
            self._select_row(row)
        if self.modes.mode == "Reference" or self.timer.isActive():
            self.canvas.set_state(state)
            if self._diff_tick == state.tick:
                self.canvas.set_marked(self._marked, self._counts)
            else:
                self.canvas.set_marked(())
        else:
            self._request_diff(state.tick)

    @Slot(str, str)
    def _on_failed(self, message: str, trace: str) -> None:
        self._stop_playing()
        self.engine_label.setText(f"⚠ {message}")
        self.engine_label.setToolTip(trace or message)

    @Slot(float)
    def _on_prepared(self, fraction: float) -> None:
        self.transport.timeline.set_prepared(fraction)
        self._caching = "" if fraction >= 1 else f"caching keyframes {fraction:.0%}"
        if not self.loader.busy:
            self.transport.status.setText(self._caching)

    def _hovered(self, text: str) -> None:
        self.hover.setText(text.replace("\n", " · "))

    def _frame(self) -> None:
        if self.playback is None or self.loader.busy:
            return
        if self.tick >= self.playback.ticks:
            self._stop_playing()
            return
        self.show_tick(self.tick + self.transport.ticks_per_frame)

    def _stop_playing(self) -> None:
        self.timer.stop()
        self.transport.set_playing(False)

    def _row_chosen(self, current, _previous) -> None:
        if current.isValid() and self.snapshots is not None and not self.timer.isActive():
            tick = self.snapshots.tick(current.row())
            if tick != self.tick:
                self.show_tick(tick)

    def _select_row(self, row: int) -> None:
        index = self.model.index(row, 0)
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        )
        self.table.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)


def _has_case(case: CaseManifest, name: str) -> bool:
    return case.family == "lattice-v1" and any(e.name == name for e in case.cases)
