"""The differing records as a table model: one row per record, grouped by cell in grid
order, formatted lazily so a divergence of hundreds of thousands of records costs only
the rows on screen."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from lattice_desktop.lattice.checksum import Kind, key_low
from lattice_desktop.lattice.records import RecordDiff, diff_cells

KIND_NAMES: dict[int, str] = {
    Kind.BELT_ITEM: "belt item",
    Kind.SOURCE_ITEM: "source buffer",
    Kind.SINK_COUNT: "sink count",
    Kind.ASSEMBLER: "assembler timer",
    Kind.ASSEMBLER_OUTPUT: "assembler output",
    Kind.ASSEMBLER_BUFFER: "assembler buffer",
}
CELL_ROLE = Qt.ItemDataRole.UserRole  # a row's cell index c = y·W + x
_ROOT = QModelIndex()


class DiffModel(QAbstractTableModel):
    HEADERS = ("cell", "record", "expected", "got")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._diffs: list[RecordDiff] = []
        self._order = np.zeros(0, np.int64)  # row -> index into _diffs
        self._cells = np.zeros(0, np.int64)  # row -> cell, ascending
        self._width = 1
        self._names: dict[int, str] = {}

    def set_diffs(self, diffs: list[RecordDiff], width: int, items: Mapping[int, str] | None = None) -> None:
        """Show `diffs` (sorted by key) grouped by cell; `items` names item types."""
        self.beginResetModel()
        cells = diff_cells(diffs)
        self._order = np.argsort(cells, kind="stable")  # within a cell, still by key
        self._cells = cells[self._order]
        self._diffs, self._width, self._names = diffs, max(1, width), dict(items or {})
        self.endResetModel()

    def clear(self) -> None:
        self.set_diffs([], 1)

    @property
    def cell_count(self) -> int:
        return int(np.count_nonzero(np.diff(self._cells))) + 1 if len(self._cells) else 0

    def rows_of(self, cell: int) -> range:
        """The rows holding `cell`'s records (empty when it has none)."""
        start, stop = np.searchsorted(self._cells, [cell, cell + 1])
        return range(int(start), int(stop))

    def cell_at(self, row: int) -> int:
        return int(self._cells[row])

    def diff_at(self, row: int) -> RecordDiff:
        return self._diffs[int(self._order[row])]

    def rowCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(self._diffs)

    def columnCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role == CELL_ROLE:
            return self.cell_at(row)
        d = self.diff_at(row)
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return f"({d.cell % self._width}, {d.cell // self._width})"
            if column == 1:
                return self._describe(d)
            value = d.expected if column == 2 else d.got
            return "—" if value is None else f"{value:,}"
        if role == Qt.ItemDataRole.ToolTipRole and column == 1:
            return f"key {d.key:#018x}"
        if role == Qt.ItemDataRole.TextAlignmentRole and column >= 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _describe(self, d: RecordDiff) -> str:
        low, kind = key_low(d.key), d.kind
        what = KIND_NAMES.get(kind, f"kind {kind}")
        if kind == Kind.BELT_ITEM:
            return f"{what} slot {low >> 8}: {self._named(low & 255)}"
        if kind == Kind.ASSEMBLER:
            return f"{what} {low}"
        return f"{what}: {self._named(low & 255)}"

    def _named(self, item: int) -> str:
        return f"{self._names[item]} ({item})" if item in self._names else f"type {item}"
