"""The Lines view: every source line of the profiled case, hottest first, each file:line once
with its fuel summed over the functions it was compiled into (the tooltip says how it
splits), filterable by file. Choosing a row says which function and line to show
(`line_chosen`); the tab opens the Source view there. With a compared run, that run's fuel on
the same line where both copies of the file share its text, and the difference; its copies
are read off the GUI thread (`case_lines.compared_lines`)."""

from __future__ import annotations

import re

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt, Signal, Slot
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from lattice_desktop.formatting import fuel
from lattice_desktop.profile.case_lines import CaseLine, LineShare, case_lines, compared_lines
from lattice_desktop.profile.model import Profile
from lattice_desktop.services.profiling import run_sources
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.common.delegates import SORT_ROLE
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.common.rows_model import RIGHT, Index, RowsModel
from lattice_desktop.ui.profile.table_view import rows_table

FILE_ROLE = Qt.ItemDataRole.UserRole + 41  # the row's file, for the file filter
NO_LINES = (
    "No source lines: this run's module has no DWARF line table, so its fuel is known per "
    "function only. Build it with -g (e.g. -g -fdebug-compilation-dir=.) to see fuel per line."
)


class LinesModel(RowsModel):
    BASE = ("Line", "Fuel", "% of case", "Functions")
    COMPARED = ("Line", "Fuel", "% of case", "Compared", "Δ", "Functions")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[CaseLine] = []
        self.total = 0
        self.columns = self.BASE
        self.figures: frozenset[int] = frozenset()  # the right-aligned columns

    def set_rows(self, rows: list[CaseLine], *, total: int, compared: bool) -> None:
        self.beginResetModel()
        self.rows, self.total = rows, total
        self.columns = self.COMPARED if compared else self.BASE
        self.figures = frozenset(n for n, c in enumerate(self.columns) if c not in ("Line", "Functions"))
        self.endResetModel()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        column = self.columns[index.column()]
        if role == FILE_ROLE:
            return row.file
        if role == SORT_ROLE:
            return _sort_value(row, column, self.total)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._shown(row, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _tooltip(row, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in self.figures:
            return RIGHT
        if role == Qt.ItemDataRole.FontRole and column == "Line":
            return theme.monospace()
        if role == Qt.ItemDataRole.ForegroundRole and column == "Δ" and row.delta:
            return theme.AMBER if row.delta > 0 else theme.GREEN
        return None

    def _shown(self, row: CaseLine, column: str) -> str:
        if column == "Line":
            return row.place
        if column == "Fuel":
            return fuel(row.fuel) if row.line is not None else "-"
        if column == "% of case":
            return f"{100 * row.fuel / self.total:.2f}%" if self.total and row.line is not None else "-"
        if column == "Compared":
            return fuel(row.other) if row.other is not None else "-"
        if column == "Δ":
            delta = row.delta
            if delta is None:
                return "-"
            return ("+" if delta > 0 else "−" if delta < 0 else "±") + fuel(abs(delta))
        shares = row.functions or row.other_functions
        names = ", ".join(s.name for s in shares)
        return names if row.functions else f"(compared run) {names}"


def _sort_value(row: CaseLine, column: str, total: int) -> int | float | str:
    if column == "Line":
        return f"{row.file}\0{row.line if row.line is not None else row.other_line or 0:09d}"
    if column in ("Fuel", "% of case"):
        return row.fuel
    if column == "Compared":
        return row.other if row.other is not None else -1
    if column == "Δ":
        return row.delta if row.delta is not None else 0
    return ", ".join(s.name for s in row.functions or row.other_functions)


def _tooltip(row: CaseLine, column: str) -> str | None:
    if column in ("Fuel", "% of case", "Functions"):
        lines = [f"{row.place}: {row.fuel:,} fuel", *_split(row.functions, row.fuel)] if row.fuel else []
        if row.other_functions:
            lines += [f"compared run, its line {row.other_line}: {row.other or 0:,} fuel"]
            lines += _split(row.other_functions, row.other or 0)
        return "\n".join(lines)
    if column in ("Compared", "Δ"):
        if row.other is None:
            return "Not compared: the line's text differs in the compared run's copy, or a copy is missing"
        moved = f" (its line {row.other_line} there)" if row.other_line != row.line else ""
        return f"compared run: {row.other:,} fuel{moved}\nthis run less the compared: {row.delta:+,}"
    if column == "Line" and row.line is None:
        return f"✚ a line only the compared run's copy of {row.file} has (its line {row.other_line})"
    if column == "Line" and row.other_line not in (None, row.line):
        return f"{row.place} is line {row.other_line} in the compared run's copy"
    return None


def _split(shares: tuple[LineShare, ...], total: int) -> list[str]:
    """One line per function a line was compiled into, with its part of the line's fuel."""
    if len(shares) < 2:
        return [f"  in {s.name}" for s in shares]
    return [f"  {s.name}: {s.fuel:,} ({100 * s.fuel / total:.1f}%)" for s in shares]


class LinesView(QWidget):
    """`show_profile(profile, other, run_id, other_id)`; `line_chosen(function, file, line)`
    when a row of this run's lines becomes the current one (by click or by key)."""

    line_chosen = Signal(int, str, int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.profile: Profile | None = None
        self._query = LatestQuery(self._compared, self)
        self.file_box = QComboBox(self)
        self.file_box.setToolTip("Show the lines of one source file")
        self.file_box.activated.connect(self._file_chosen)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.model = LinesModel(self)
        self.sorted = QSortFilterProxyModel(self)
        self.sorted.setSourceModel(self.model)
        self.sorted.setSortRole(SORT_ROLE)
        self.sorted.setFilterRole(FILE_ROLE)
        self.table = rows_table(self, self.sorted)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(1, Qt.SortOrder.DescendingOrder)
        self.table.selectionModel().currentRowChanged.connect(self._current_changed)
        top = QHBoxLayout()
        top.addWidget(self.note, 1)
        top.addWidget(self.file_box, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)

    def show_profile(
        self, profile: Profile, other: Profile | None, run_id: int | None, other_id: int | None
    ) -> None:
        """This run's lines at once; with `other`, its figures once both runs' copies are read."""
        self._query.forget()
        self.profile = profile
        if not profile.line_table:
            self._set_rows([], compared=False)
            self.note.setText(NO_LINES)
            self.table.hide()
            self.file_box.hide()
            return
        self.table.show()
        self._set_rows(case_lines(profile), compared=False)
        if other is not None:
            self.note.setText("Reading both runs' sources to match the compared run's lines…")
            files = sorted({s.file for s in profile.lines} | {s.file for s in other.lines})
            self._query.request(_compared_rows, profile, other, run_id, other_id, files)

    def _compared(self, answer: tuple[list[CaseLine], list[str], bool]) -> None:
        rows, missing, other_lines = answer
        self._set_rows(rows, compared=True)
        if not other_lines:
            self.note.setText(self.note.text() + " · the compared run has no line table: nothing to compare")
        elif missing:
            self.note.setText(self.note.text() + f" · not compared (a copy is missing): {', '.join(missing)}")

    def _set_rows(self, rows: list[CaseLine], *, compared: bool) -> None:
        """New rows; the line that was current stays current while the view is shown (the
        compared figures arriving, say), and the Source view follows it again."""
        profile = self.profile
        total = profile.total if profile is not None else 0
        current = self.table.currentIndex()
        kept = self.model.rows[self.sorted.mapToSource(current).row()] if current.isValid() else None
        self.model.set_rows(rows, total=total, compared=compared)
        per_file: dict[str, int] = {}
        for row in rows:
            per_file[row.file] = per_file.get(row.file, 0) + row.fuel
        chosen = self.file_box.currentData()
        self.file_box.clear()
        self.file_box.addItem("All files", None)
        for file in sorted(per_file, key=lambda f: (-per_file[f], f)):
            share = f" ({100 * per_file[file] / total:.0f}%)" if total else ""
            self.file_box.addItem((file or "(no file)") + share, file)
        self.file_box.setVisible(len(per_file) > 1)
        found = self.file_box.findData(chosen) if chosen is not None else 0
        self.file_box.setCurrentIndex(max(found, 0))
        self._filter()
        self.table.resizeColumnsToContents()
        if kept is not None and self.isVisible():
            self._select(kept.file, kept.line)

    def _select(self, file: str, line: int | None) -> None:
        for row in range(self.sorted.rowCount()):
            found = self.model.rows[self.sorted.mapToSource(self.sorted.index(row, 0)).row()]
            if (found.file, found.line) == (file, line):
                self.table.selectRow(row)
                return

    @Slot(int)
    def _file_chosen(self, _index: int) -> None:
        self._filter()

    def _filter(self) -> None:
        file = self.file_box.currentData()
        self.sorted.setFilterRegularExpression("" if file is None else f"^{re.escape(file)}$")
        self.note.setText(self._summary(file))

    def _summary(self, file: str | None) -> str:
        """How many lines are shown, the hottest of them and its share of the case."""
        profile = self.profile
        shown = [r for r in self.model.rows if r.fuel and (file is None or r.file == file)]
        if profile is None or not shown:
            return NO_LINES if profile is not None and not profile.line_table else ""
        top = max(shown, key=lambda r: r.fuel)
        count = f"{len(shown):,} line{'s' if len(shown) > 1 else ''}"
        where = f" of {file or '(no file)'}" if file is not None else ""
        return f"{count}{where} · the hottest: {top.place}, {profile.percent(top.fuel):.2f}% of the case"

    def select_top(self) -> None:
        """Make the hottest line shown the current row (the Source view follows)."""
        if self.sorted.rowCount() and not self.table.currentIndex().isValid():
            self.table.selectRow(0)

    @Slot(QModelIndex, QModelIndex)
    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        row = self.model.rows[self.sorted.mapToSource(current).row()]
        if row.line is not None and row.functions:
            self.line_chosen.emit(row.functions[0].function, row.file, row.line)
            self.note.setText(self._summary(self.file_box.currentData()))
        else:
            where = ", ".join(s.name for s in row.other_functions)
            theirs = f"{row.other or 0:,} (in {where})"
            self.note.setText(f"{row.place}: this run spends no fuel on it; the compared run {theirs}")


def _compared_rows(
    profile: Profile, other: Profile, run_id: int | None, other_id: int | None, files: list[str]
) -> tuple[list[CaseLine], list[str], bool]:
    """(A read, any thread.) The lines against `other`, the files one side's copy of is missing,
    and whether `other` has lines at all."""
    ours, theirs = run_sources(run_id, files), run_sources(other_id, files) if other_id is not None else {}
    missing = [f for f in files if f and (ours.get(f) is None or theirs.get(f) is None)]
    return compared_lines(profile, other, ours, theirs), missing, other.line_table
