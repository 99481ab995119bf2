"""The Source view: the selected function's source with its fuel per line in the margin.

Lines come from the profile (exact, from the module's DWARF line table); the source text is
read from the run's submission folder off the GUI thread. The hottest lines are marked with
a shape and a tint; the current line (clicked, or reached with the arrow keys) says its share
of the function and of the case. `show_line` goes to a line once the source is read. With a
compared run, its fuel for the function of the same name sits beside each line whose text
both versions share (`line_match`); a line that changed gets no compared figure.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Slot,
)
from PySide6.QtGui import QColor, QFontDatabase, QFontInfo
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.formatting import fuel
from lattice_desktop.profile.line_match import matched_lines
from lattice_desktop.profile.model import Profile
from lattice_desktop.services.profiling import run_sources
from lattice_desktop.ui.common.latest_query import LatestQuery

HOT = 3  # lines marked hot: the function's three costliest in the file shown
CONTEXT = 3  # lines shown around the function's first and last counted line
PROMPT = "Click a line, or move with ↑/↓, to see its share."
_HOT_TINT = QColor(230, 120, 40, 70)
_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()


@dataclass(frozen=True)
class SourceLine:
    number: int
    text: str
    fuel: int | None
    other: int | None
    hot: bool


class SourceModel(QAbstractTableModel):
    """Rows of one file's lines: fuel, compared fuel, line number, text."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[SourceLine] = []
        self.compared = False

    def set_rows(self, rows: list[SourceLine], *, compared: bool) -> None:
        self.beginResetModel()
        self.rows, self.compared = rows, compared
        self.endResetModel()

    def headers(self) -> list[str]:
        return ["Fuel", "Compared", "Line", "Source"] if self.compared else ["Fuel", "Line", "Source"]

    def rowCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.headers())

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.headers()[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        row = self.rows[index.row()]
        column = self.headers()[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return _cell(row, column)
        if role == Qt.ItemDataRole.ToolTipRole and column in ("Fuel", "Compared"):
            value = row.fuel if column == "Fuel" else row.other
            return f"{value:,} fuel" if value is not None else None
        if role == Qt.ItemDataRole.TextAlignmentRole and column != "Source":
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and row.hot:
            return _HOT_TINT
        return None


class _SourceTable(QTableView):
    """The lines' table: the source column as wide as its longest line, so a long line
    scrolls sideways rather than being cut, and at least as wide as the room left."""

    def fill_width(self) -> None:
        header, last = self.horizontalHeader(), self.model().columnCount() - 1
        if last < 0:
            return
        others = sum(header.sectionSize(i) for i in range(last))
        needed = self.sizeHintForColumn(last)
        header.resizeSection(last, max(needed, self.viewport().width() - others))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fill_width()


def _cell(row: SourceLine, column: str) -> str:
    if column == "Fuel":
        return ("▲ " if row.hot else "") + (fuel(row.fuel) if row.fuel else "")
    if column == "Compared":
        return fuel(row.other) if row.other else ""
    if column == "Line":
        return str(row.number)
    return row.text.expandtabs(4)


class SourceView(QWidget):
    """`show_function(profile, index, other, run_id, other_id)`; reads sources off the GUI thread."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.profile: Profile | None = None
        self.other: Profile | None = None
        self.index: int | None = None
        self.texts: dict[str, str | None] = {}
        self.other_texts: dict[str, str | None] = {}
        self.loading = False  # the function's sources are being read
        self._wanted: tuple[str, int] | None = None  # the line to go to once they are
        self._query = LatestQuery(self._loaded, self)
        self.file_box = QComboBox(self)
        self.file_box.activated.connect(self._file_chosen)
        self.title = QLabel(self)
        self.title.setWordWrap(True)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.detail = QLabel(PROMPT, self)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Ignored: a long line of figures is cut, never widens the pane; the tooltip holds it
        self.detail.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.model = SourceModel(self)
        self.table = _SourceTable(self)
        self.table.setModel(self.model)
        self.table.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        # Rows as tall as the font's size needs, not its family's line height: Noto's is a fifth
        # taller than DejaVu's at the same size, which cost two of the 15 lines at 1366×768.
        # (The header's own floor is its font's line height plus margins: lowered with them.)
        row = max(QFontInfo(self.table.font()).pixelSize() + 6, self.table.fontMetrics().height() + 1)
        self.table.verticalHeader().setMinimumSectionSize(row)
        self.table.verticalHeader().setDefaultSectionSize(row)
        self.table.setShowGrid(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)  # a long line scrolls sideways
        self.table.selectionModel().currentChanged.connect(self._current_changed)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.file_box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.detail)

    def show_function(
        self, profile: Profile, index: int, other: Profile | None, run_id: int | None, other_id: int | None
    ) -> None:
        """Show function `index` of `profile` (and of `other`, by name), once its files are read."""
        self.profile, self.other, self.index = profile, other, index
        self._wanted, self.loading = None, False
        self.model.set_rows([], compared=False)
        self.file_box.clear()
        name = profile.name_of(index)
        if not profile.line_table:
            self.title.setText(
                f"{name}: no source lines — the module has no DWARF line info (build it with -g)"
            )
            return
        files = _files_by_fuel(profile, index)
        for file in files:
            self.file_box.addItem(file, file)
        self.file_box.setVisible(len(files) > 1)
        self.title.setText(f"{name}: reading its source…")
        self.loading = True
        self._query.request(_read_both, run_id, other_id, files)

    def show_line(self, file: str, line: int) -> None:
        """Select line `line` of `file` in the function shown, scrolled to the middle (once
        the function's source is read, if it is being read)."""
        self._wanted = (file, line)
        if not self.loading:
            self._go_to_wanted()

    def _loaded(self, texts: tuple[dict[str, str | None], dict[str, str | None]]) -> None:
        self.texts, self.other_texts = texts
        self.loading = False
        self._render()
        self._go_to_wanted()

    def _go_to_wanted(self) -> None:
        wanted, self._wanted = self._wanted, None
        if wanted is None:
            return
        file, line = wanted
        if self.file_box.currentData() != file:
            choice = self.file_box.findData(file)
            if choice < 0:
                return
            self.file_box.setCurrentIndex(choice)
            self._render()
        row = next((n for n, r in enumerate(self.model.rows) if r.number == line), None)
        if row is None:
            return
        index = self.model.index(row, 0)
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        self.table.selectionModel().setCurrentIndex(index, flags)
        self.table.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)

    @Slot(int)
    def _file_chosen(self, _row: int) -> None:
        self._render()

    def _render(self) -> None:
        profile, index = self.profile, self.index
        if profile is None or index is None:
            return
        file = self.file_box.currentData()
        own = {s.line: s.fuel for s in profile.lines_of(index) if s.file == file}
        text = self.texts.get(file) if file else None
        name = profile.name_of(index)
        total = sum(s.fuel for s in profile.lines_of(index))
        self.title.setText(f"{name} · {file} · {fuel(total)} on {len(own)} lines")
        if text is None:
            self.title.setText(f"{name} · {file}: the source is not in the submission's folder")
            source = [""] * (max(own, default=0))
        else:
            source = text.splitlines()
        theirs = self._compared(name, file, text)
        hot = set(sorted(own, key=lambda n: -own[n])[:HOT])
        first = max(1, min(own, default=1) - CONTEXT)
        last = min(len(source), max(own, default=0) + CONTEXT)
        rows = [
            SourceLine(n, source[n - 1] if n <= len(source) else "", own.get(n), theirs.get(n), n in hot)
            for n in range(first, last + 1)
        ]
        self.model.set_rows(rows, compared=self.other is not None)
        self.table.resizeColumnsToContents()
        self.table.fill_width()
        self.detail.setText(PROMPT + ("  ▲ hottest lines" if hot else ""))

    def _compared(self, name: str, file: str, text: str | None) -> dict[int, int]:
        """The compared run's fuel for the function of the same name, per our line number."""
        other = self.other
        if other is None or text is None:
            return {}
        match = next((f.index for f in other.functions if f.name == name and f.calls), None)
        theirs_text = self.other_texts.get(file)
        if match is None or theirs_text is None:
            return {}
        pairs = matched_lines(text, theirs_text)
        by_line = {s.line: s.fuel for s in other.lines_of(match) if s.file == file}
        return {ours: by_line[their] for ours, their in pairs.items() if their in by_line}

    @Slot(QModelIndex, QModelIndex)
    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        """The current line's fuel and shares, whether a click or a key made it current."""
        profile = self.profile
        if profile is None or self.index is None or not current.isValid():
            return
        row = self.model.rows[current.row()]
        if not row.fuel:
            self.detail.setText(f"line {row.number}: no fuel counted on it in this function")
            return
        own = sum(s.fuel for s in profile.lines_of(self.index))
        share = 100.0 * row.fuel / own if own else 0.0
        text = (
            f"line {row.number}: {row.fuel:,} fuel · {share:.1f}% of {profile.name_of(self.index)} "
            f"· {profile.percent(row.fuel):.2f}% of the case"
        )
        file = self.file_box.currentData()
        everywhere = [s.fuel for s in profile.lines if s.file == file and s.line == row.number and s.fuel]
        if len(everywhere) > 1:
            text += f" · {sum(everywhere):,} in all {len(everywhere)} functions it is compiled into"
        if row.other is not None:
            text += f" · compared run {row.other:,}"
        self.detail.setText(text)
        self.detail.setToolTip(text)


def _files_by_fuel(profile: Profile, index: int) -> list[str]:
    per: dict[str, int] = {}
    for s in profile.lines_of(index):
        per[s.file] = per.get(s.file, 0) + s.fuel
    return sorted(per, key=lambda name: (-per[name], name))


def _read_both(
    run_id: int | None, other_id: int | None, files: list[str]
) -> tuple[dict[str, str | None], dict[str, str | None]]:
    return run_sources(run_id, files), run_sources(other_id, files) if other_id is not None else {}
