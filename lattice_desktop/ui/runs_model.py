"""The runs list as a tree — case, then model, then runs — adapting a plain list of
`RunSummary` (newest first), and the filter proxy behind the filter box and pickers."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QFont

from lattice_desktop.formatting import fuel, grouped
from lattice_desktop.grading.outcomes import Verdict
from lattice_desktop.store.queries import RunSummary
from lattice_desktop.ui import theme
from lattice_desktop.ui.delegates import CHIP_ROLE, ID_ROLE, SORT_ROLE, Chip

Index = QModelIndex | QPersistentModelIndex
ROOT = QModelIndex()  # the invisible root, as a default argument
COLUMNS = ("Run", "Verdict", "Score", "Date")
VERDICT_COLUMN, SCORE_COLUMN = 1, 2


def verdict_chip(verdict: Verdict) -> Chip:
    return Chip(verdict.symbol, verdict.label, theme.verdict_colour(verdict))


@dataclass(eq=False)
class _Node:
    label: str
    parent: _Node | None = None
    children: list[_Node] = field(default_factory=list)
    run: RunSummary | None = None
    row: int = 0

    def add(self, child: _Node) -> _Node:
        child.parent, child.row = self, len(self.children)
        self.children.append(child)
        return child

    def runs(self) -> list[RunSummary]:
        if self.run is not None:
            return [self.run]
        return [r for c in self.children for r in c.runs()]


class RunsModel(QAbstractItemModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._root = _Node("")
        self._leaves: dict[int, _Node] = {}
        self.summaries: list[RunSummary] = []

    def set_runs(self, summaries: list[RunSummary]) -> None:
        """Replace the list (newest first); groups are ordered by their newest run."""
        self.beginResetModel()
        self.summaries = list(summaries)
        self._root, self._leaves = _Node(""), {}
        cases: dict[str, _Node] = {}
        models: dict[tuple[str, str], _Node] = {}
        for s in self.summaries:
            case = cases.get(s.case_label) or cases.setdefault(
                s.case_label, self._root.add(_Node(s.case_label)))
            key = (s.case_label, s.model)
            model = models.get(key) or models.setdefault(key, case.add(_Node(s.model)))
            self._leaves[s.id] = model.add(_Node(f"{s.submission} #{s.id}", run=s))
        self.endResetModel()

    def index_of_run(self, run_id: int) -> QModelIndex:
        node = self._leaves.get(run_id)
        return QModelIndex() if node is None else self.createIndex(node.row, 0, node)

    def run_at(self, index: Index) -> RunSummary | None:
        return self._node(index).run if index.isValid() else None

    # Qt's side -----------------------------------------------------------------------

    def _node(self, index: Index) -> _Node:
        return index.internalPointer() if index.isValid() else self._root

    def index(self, row: int, column: int, parent: Index = ROOT) -> QModelIndex:
        node = self._node(parent)
        if 0 <= row < len(node.children) and 0 <= column < len(COLUMNS):
            return self.createIndex(row, column, node.children[row])
        return QModelIndex()

    def parent(self, index: Index = ROOT) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        up = self._node(index).parent
        if up is None or up is self._root:
            return QModelIndex()
        return self.createIndex(up.row, 0, up)

    def rowCount(self, parent: Index = ROOT) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._node(parent).children)

    def columnCount(self, parent: Index = ROOT) -> int:
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.TextAlignmentRole and section == SCORE_COLUMN:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        node, col = self._node(index), index.column()
        run = node.run
        if run is None:
            return self._group_data(node, col, role)
        if role == Qt.ItemDataRole.DisplayRole:
            return (node.label, verdict_chip(run.verdict).text, _score_text(run),
                    _short_date(run))[col]
        if role == CHIP_ROLE and col == VERDICT_COLUMN:
            return verdict_chip(run.verdict)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _tooltip(run)
        if role == Qt.ItemDataRole.TextAlignmentRole and col == SCORE_COLUMN:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == ID_ROLE:
            return run.id
        if role == SORT_ROLE:
            return (run.id, run.verdict.value, run.score or run.stress_fuel or 0, run.id)[col]
        return None

    def _group_data(self, node: _Node, col: int, role: int):
        runs = node.runs()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return node.label
            if col == SCORE_COLUMN:
                best = min((r.score for r in runs if r.score is not None), default=None)
                return f"best {fuel(best)}" if best is not None else ""
            if col == VERDICT_COLUMN:
                return f"{len(runs)} run{'s' if len(runs) != 1 else ''}"
            return ""
        if role == Qt.ItemDataRole.FontRole and col == 0:
            font = QFont()
            font.setBold(node.parent is self._root)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and col == SCORE_COLUMN:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == SORT_ROLE:
            return -max(r.id for r in runs)
        return None


def _short_date(run: RunSummary) -> str:
    when = run.started.astimezone()
    if when.date() == when.now().astimezone().date():
        return when.strftime("%H:%M")
    return when.strftime("%d %b %H:%M")


def _score_text(run: RunSummary) -> str:
    if run.score is not None:
        return fuel(run.score)
    if run.verdict is Verdict.OVER_CEILING and run.max_percent_over is not None:
        return f"+{run.max_percent_over:.0f}% over"
    return "-"


def _tooltip(run: RunSummary) -> str:
    lines = [f"{run.submission} · {run.case_label} · {run.model}",
             f"{run.verdict.symbol} {run.verdict.label}"]
    if run.score is not None:
        lines.append(f"score {grouped(run.score)} fuel")
    elif run.stress_fuel is not None:
        lines.append(f"stress fuel {grouped(run.stress_fuel)} (not a score)")
    lines.append(f"started {run.started.astimezone():%Y-%m-%d %H:%M:%S}")
    return "\n".join(lines)


class RunsFilter(QSortFilterProxyModel):
    """Text (case, model, submission), and exact case / model / verdict; groups are
    shown while any of their runs is."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setRecursiveFilteringEnabled(True)
        self.setSortRole(SORT_ROLE)
        self.text = ""
        self.case: str | None = None
        self.model: str | None = None
        self.verdict: Verdict | None = None

    def set_filters(self, *, text: str = "", case: str | None = None, model: str | None = None,
                    verdict: Verdict | None = None) -> None:
        self.beginFilterChange()
        self.text, self.case, self.model, self.verdict = text.strip().lower(), case, model, verdict
        self.endFilterChange()

    def filterAcceptsRow(self, row: int, parent: Index) -> bool:
        source = self.sourceModel()
        run = source.run_at(source.index(row, 0, parent))
        if run is None:
            return False
        if self.case and run.case_label != self.case:
            return False
        if self.model and run.model != self.model:
            return False
        if self.verdict and run.verdict is not self.verdict:
            return False
        if self.text:
            hay = f"{run.case_label} {run.model} {run.submission} #{run.id}".lower()
            return all(word in hay for word in self.text.split())
        return True
