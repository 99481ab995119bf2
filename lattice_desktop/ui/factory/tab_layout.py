"""The Factory tab's widgets and where they sit (as Qt Designer's setupUi would make
them): the picker and mode switch on top, the map with its minimap, legend and hover line,
the snapshot list over the differing records and the census, the stale-run banner, the
transport bar, and the empty state. `FactoryTab` (tab.py) gives them their behaviour."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.ui.factory.canvas import FactoryCanvas
from lattice_desktop.ui.factory.census_panel import CensusPanel
from lattice_desktop.ui.factory.diff_panel import DiffList, ModeSwitch
from lattice_desktop.ui.factory.divergence_bar import DivergenceBar
from lattice_desktop.ui.factory.legend import Legend
from lattice_desktop.ui.factory.map_tools import MapTools
from lattice_desktop.ui.factory.minimap import Minimap
from lattice_desktop.ui.factory.snapshots import SnapshotModel, SnapshotTable
from lattice_desktop.ui.factory.stale_banner import StaleBanner
from lattice_desktop.ui.factory.transport import TransportBar


class FactoryTabWidgets:
    """Makes the tab's child widgets inside `tab` and lays them out."""

    def __init__(self, tab: QWidget) -> None:
        top = self._top(tab)
        left = self._map(tab)
        side = self._side(tab)
        self.transport = TransportBar(tab)
        self._body(tab, top, left, side)

    def clear(self) -> None:
        """No scenario: every pane empty, so none speaks of the one shown before."""
        self.canvas.set_scenario(None)
        self.tools.clear()
        self.legend.set_scenario(None)
        self.hover.setText("")
        self.model.set_snapshots(None)
        self.diff_list.set_message("")
        self.census.clear_scenario()
        self.transport.clear()
        self.banner.show_reasons([], False, "")

    def _top(self, tab: QWidget) -> QHBoxLayout:
        """The scenario picker, what engine replays it, the Reference/Diff/Submission switch."""
        self.case_box = QComboBox(tab)
        self.case_box.setMinimumWidth(220)
        self.case_box.setToolTip("Which scenario of the run to replay")
        self.engine_label = QLabel(tab)
        self.engine_label.setStyleSheet("color: palette(mid);")
        self.engine_label.setMinimumWidth(1)  # a long message is clipped, never widens the window
        self.modes = ModeSwitch(tab)
        self.modes.set_available(False, "Open a run whose submission exports lattice_records")
        top = QHBoxLayout()
        top.setContentsMargins(6, 4, 6, 0)
        top.addWidget(QLabel("Scenario", tab))
        top.addWidget(self.case_box)
        top.addSpacing(12)
        top.addWidget(self.engine_label)
        top.addStretch(1)
        top.addWidget(self.modes)
        return top

    def _map(self, tab: QWidget) -> QWidget:
        """The map with its minimap in a corner, the legend and the hovered cell."""
        self.canvas = FactoryCanvas(tab)
        self.tools = MapTools(self.canvas, tab)
        self.minimap = Minimap(self.canvas)
        self.bar = DivergenceBar(tab)
        self.legend = Legend(tab)
        self.hover = QLabel(tab)
        self.hover.setStyleSheet("color: palette(mid);")
        left = QWidget(tab)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.setSpacing(2)
        left_layout.addWidget(self.tools)
        left_layout.addWidget(self.canvas, 1)
        left_layout.addWidget(self.legend)
        left_layout.addWidget(self.hover)
        return left

    def _side(self, tab: QWidget) -> QSplitter:
        """The snapshot list over the differing records and the census."""
        self.model = SnapshotModel(tab)
        self.table = SnapshotTable(self.model, tab)
        self.diff_list = DiffList(tab)
        self.diff_list.hide()
        self.census = CensusPanel(tab)
        # The census scrolls when the window is short: every row reachable, none cut off.
        census = QScrollArea(tab)
        census.setWidget(self.census)
        census.setWidgetResizable(True)
        census.setFrameShape(QFrame.Shape.NoFrame)
        census.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        side = QSplitter(Qt.Orientation.Vertical, tab)
        side.addWidget(self.table)
        side.addWidget(self.diff_list)
        side.addWidget(census)
        side.setChildrenCollapsible(False)
        for index, stretch in enumerate((2, 3, 2)):
            side.setStretchFactor(index, stretch)
        side.setSizes([200, 260, 220])
        return side

    def _body(self, tab: QWidget, top: QHBoxLayout, left: QWidget, side: QSplitter) -> None:
        split = QSplitter(Qt.Orientation.Horizontal, tab)
        split.addWidget(left)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([780, 360])
        self.banner = StaleBanner(tab)
        banner_row = QHBoxLayout()
        banner_row.setContentsMargins(6, 4, 6, 0)
        banner_row.addWidget(self.banner)
        body = QWidget(tab)
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        body_layout.addLayout(top)
        body_layout.addWidget(self.bar)
        body_layout.addLayout(banner_row)
        body_layout.addWidget(split, 1)
        body_layout.addWidget(self.transport)
        self.empty = QLabel("No run open — pick a run in the runs list to replay its factory.", tab)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget(tab)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(body)
        outer = QVBoxLayout(tab)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.stack)
