"""The snapshot list: tick, expected checksum, the submission's, and whether they match.

`SnapshotModel` adapts the core's `Snapshots` to a QTableView, formatting rows lazily so a
million snapshots cost nothing up front.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QItemSelectionModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontDatabase, QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from lattice_desktop.lattice.snapshots import Snapshots

MATCH = "#2FA36B"
MISMATCH = "#E5484D"
_ROOT = QModelIndex()


class SnapshotModel(QAbstractTableModel):
    HEADERS = ("#", "tick", "expected", "got", "")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.snapshots: Snapshots | None = None
        self._status = np.zeros(0, np.int8)
        self._first: int | None = None
        self._mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self._bold_mono = QFont(self._mono)
        self._bold_mono.setBold(True)

    def set_snapshots(self, snapshots: Snapshots | None) -> None:
        self.beginResetModel()
        self.snapshots = snapshots
        self._status = snapshots.status() if snapshots else np.zeros(0, np.int8)
        self._first = snapshots.first_divergence if snapshots else None
        self.endResetModel()

    @property
    def first_divergence(self) -> int | None:
        return self._first

    def rowCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() or self.snapshots is None else len(self.snapshots)

    def columnCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self.snapshots is None:
            return None
        row, col = index.row(), index.column()
        status = int(self._status[row])
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(row, col, status)
        if role == Qt.ItemDataRole.ToolTipRole and col in (2, 3):
            value = self._checksum(row, col)
            return None if value is None else f"{value:016x} ({value:,})"
        if role == Qt.ItemDataRole.FontRole and col >= 2:
            return self._bold_mono if row == self._first else self._mono
        if role == Qt.ItemDataRole.TextAlignmentRole:
            align = (
                Qt.AlignmentFlag.AlignRight
                if col < 2
                else Qt.AlignmentFlag.AlignCenter
                if col == 4
                else Qt.AlignmentFlag.AlignLeft
            )
            return int(align | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and (col == 4 or (col == 3 and status == 0)):
            return QBrush(QColor(MATCH if status == 1 else MISMATCH if status == 0 else "#888888"))
        if role == Qt.ItemDataRole.BackgroundRole and row == self._first:
            return QBrush(QColor(229, 72, 77, 48))
        return None

    def _checksum(self, row: int, col: int) -> int | None:
        assert self.snapshots is not None  # data() asks only while snapshots are shown
        values = self.snapshots.expected if col == 2 else self.snapshots.got
        return int(values[row]) if values is not None and row < len(values) else None

    def _text(self, row: int, col: int, status: int) -> str:
        if col == 0:
            return str(row + 1)
        if col == 1:
            assert self.snapshots is not None
            return f"{self.snapshots.tick(row):,}"
        if col in (2, 3):
            value = self._checksum(row, col)
            return "—" if value is None else f"{value:016x}"
        return {1: "✓", 0: "✗"}.get(status, "·")


class SnapshotTable(QTableView):
    """The snapshot list: one row per snapshot, wide enough for both 16-digit checksums
    and the ✓/✗ column, never cut off."""

    def __init__(self, model: SnapshotModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.verticalHeader().hide()
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(22)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setAlternatingRowColors(True)
        mono = QFontMetrics(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        digits = mono.horizontalAdvance("0" * 16)
        self.setMinimumWidth(2 * digits + mono.horizontalAdvance("000,000,000") + 110)

    def set_compared(self, compared: bool) -> None:
        """A scenario file has no submission: no "got" and no ✓/✗ columns, not empty ones."""
        for column in (3, 4):
            self.setColumnHidden(column, not compared)

    def select_row(self, row: int) -> None:
        index = self.model().index(row, 0)
        self.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        )
        self.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)


def snapshot_step(snapshots: Snapshots, tick: int, direction: int) -> int:
    """The snapshot's tick after `tick` (direction > 0) or before it, within the run's snapshots."""
    interval = snapshots.interval
    target = (tick // interval + 1) * interval if direction > 0 else ((tick - 1) // interval) * interval
    return max(0, min(target, len(snapshots) * interval))
