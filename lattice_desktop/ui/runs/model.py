"""The runs list as a tree — case, then model, then runs; and for harness runs box ·
stage, then harness / model, then runs — adapting plain lists of `RunSummary` and
`StoredHarnessRun` (newest first), and the filter proxy behind the filter box and pickers."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)

from lattice_desktop.formatting import fuel, grouped, moment
from lattice_desktop.outcomes import Verdict
from lattice_desktop.store.harness_runs import StoredHarnessRun
from lattice_desktop.store.queries import RunSummary
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.common.delegates import CHIP_ROLE, ID_ROLE, SORT_ROLE, Chip

Index = QModelIndex | QPersistentModelIndex
ROOT = QModelIndex()  # the invisible root, as a default argument
COLUMNS = ("Run", "Verdict", "Score", "Date")
VERDICT_COLUMN, SCORE_COLUMN = 1, 2
HARNESS_KIND = "harness"  # the verdict picker's entry for harness runs (they have none)
HARNESS_ROLE = Qt.ItemDataRole.UserRole + 20  # a harness run's stored id
KEEP_ROLE = Qt.ItemDataRole.UserRole + 21  # the end of a run's name kept whole when it is shortened


def verdict_chip(verdict: Verdict) -> Chip:
    return Chip.of(verdict.look)


@dataclass(eq=False)
class _Node:
    label: str
    parent: _Node | None = None
    children: list[_Node] = field(default_factory=list)
    run: RunSummary | None = None
    harness: StoredHarnessRun | None = None
    row: int = 0
    keep: str = ""  # the end of `label` that stays whole when the name is shortened

    def add(self, child: _Node) -> _Node:
        child.parent, child.row = self, len(self.children)
        self.children.append(child)
        return child

    def runs(self) -> list[RunSummary]:
        if self.run is not None:
            return [self.run]
        return [r for c in self.children for r in c.runs()]

    def harness_runs(self) -> list[StoredHarnessRun]:
        if self.harness is not None:
            return [self.harness]
        return [r for c in self.children for r in c.harness_runs()]


class RunsModel(QAbstractItemModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._root = _Node("")
        self._leaves: dict[int, _Node] = {}
        self._harness_leaves: dict[int, _Node] = {}
        self.summaries: list[RunSummary] = []
        self.harness: list[StoredHarnessRun] = []

    @property
    def empty(self) -> bool:
        return not self.summaries and not self.harness

    def set_runs(self, summaries: list[RunSummary], harness: list[StoredHarnessRun] | None = None) -> None:
        """Replace the lists (newest first); groups are ordered by their newest run, the
        harness boxes after the cases."""
        self.beginResetModel()
        self.summaries = list(summaries)
        self.harness = list(harness or [])
        self._root, self._leaves, self._harness_leaves = _Node(""), {}, {}
        cases: dict[str, _Node] = {}
        models: dict[tuple[str, str], _Node] = {}
        for s in self.summaries:
            label = s.labelled_case  # unregistered content is a group of its own, labelled
            case = cases.get(label) or cases.setdefault(label, self._root.add(_Node(label)))
            key = (label, s.model)
            model = models.get(key) or models.setdefault(key, case.add(_Node(s.model)))
            hidden = " · hidden" if s.hidden else ""  # shown only with "Show hidden runs"
            tail = f" #{s.id}{hidden}"
            self._leaves[s.id] = model.add(_Node(f"{s.submission}{tail}", run=s, keep=tail))
        boxes: dict[str, _Node] = {}
        agents: dict[tuple[str, str], _Node] = {}
        for h in self.harness:
            r = h.result
            box = boxes.get(h.group) or boxes.setdefault(h.group, self._root.add(_Node(h.group)))
            key = (h.group, f"{r.harness} / {r.model}")
            agent = agents.get(key) or agents.setdefault(key, box.add(_Node(key[1])))
            hidden = " · hidden" if h.hidden else ""
            label = f"{h.name} #{h.id}{hidden}"
            self._harness_leaves[h.id] = agent.add(_Node(label, harness=h, keep=label[_kept_from(h) :]))
        self.endResetModel()

    def index_of_run(self, run_id: int) -> QModelIndex:
        node = self._leaves.get(run_id)
        return QModelIndex() if node is None else self.createIndex(node.row, 0, node)

    def index_of_harness_run(self, stored_id: int) -> QModelIndex:
        node = self._harness_leaves.get(stored_id)
        return QModelIndex() if node is None else self.createIndex(node.row, 0, node)

    def run_at(self, index: Index) -> RunSummary | None:
        return self._node(index).run if index.isValid() else None

    def harness_at(self, index: Index) -> StoredHarnessRun | None:
        return self._node(index).harness if index.isValid() else None

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
        if role == KEEP_ROLE:
            return node.keep if col == 0 else None
        if node.harness is not None:
            return _harness_data(node.harness, node.label, col, role)
        if run is None:
            return self._group_data(node, col, role)
        if role == Qt.ItemDataRole.DisplayRole:
            return (node.label, verdict_chip(run.verdict).text, _score_text(run), _short_date(run))[col]
        if role == CHIP_ROLE and col == VERDICT_COLUMN:
            return verdict_chip(run.verdict)
        if role == Qt.ItemDataRole.ToolTipRole:
            return _tooltip(run)
        if role == Qt.ItemDataRole.ForegroundRole and run.hidden:
            return theme.GREY
        if role == Qt.ItemDataRole.TextAlignmentRole and col == SCORE_COLUMN:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == ID_ROLE:
            return run.id
        if role == SORT_ROLE:
            return (run.id, run.verdict.value, run.score or run.stress_fuel or 0, run.id)[col]
        return None

    def _group_data(self, node: _Node, col: int, role: int):
        runs = node.runs()
        harness = node.harness_runs() if not runs else []
        if harness and role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, SORT_ROLE):
            return _harness_group_data(node, harness, col, role)
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
            return theme.styled(bold=node.parent is self._root)
        if role == Qt.ItemDataRole.TextAlignmentRole and col == SCORE_COLUMN:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == SORT_ROLE:
            return -max(r.id for r in runs)
        return None


def _harness_data(h: StoredHarnessRun, label: str, col: int, role: int):
    """A harness run's row: its Score, and its Execution where a verdict would be."""
    r = h.result
    score, execution = r.metrics["score"], r.execution
    if role == Qt.ItemDataRole.DisplayRole:
        return (label, f"exec {execution.shown}", score.shown, _short_date(h.imported))[col]
    if role == Qt.ItemDataRole.ToolTipRole:
        return "\n".join(
            [
                f"{r.harness} / {r.model} · box {r.box} · stage {r.stage}",
                f"run #{h.id} · {h.name}" + (f" (trace run {r.run_id})" if h.name != r.run_id else ""),
                score.shown_formula,
                execution.shown_formula,
                f"imported {moment(h.imported, '%Y-%m-%d %H:%M:%S', local=True)}",
            ]
        )
    if role == Qt.ItemDataRole.TextAlignmentRole and col == SCORE_COLUMN:
        return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    if role == Qt.ItemDataRole.ForegroundRole and h.hidden:
        return theme.GREY
    if role == Qt.ItemDataRole.ForegroundRole and col in (VERDICT_COLUMN, SCORE_COLUMN):
        metric = execution if col == VERDICT_COLUMN else score
        return theme.GREY if metric.value is None else None
    if role == HARNESS_ROLE:
        return h.id
    if role == SORT_ROLE:
        return (h.id, execution.value or -1.0, score.value, h.id)[col]
    return None


def _kept_from(h: StoredHarnessRun) -> int:
    """Where the part of a harness run's name that must stay readable starts: an Inspect AI
    sample's " · sample … · epoch …" (its task can be shortened), else its id."""
    at = h.name.rfind(" · sample ") if h.name != h.result.run_id else -1
    return at if at > 0 else len(h.name)


def _harness_group_data(node: _Node, runs: list[StoredHarnessRun], col: int, role: int):
    if role == Qt.ItemDataRole.DisplayRole:
        if col == 0:
            return (
                node.label
                if node.parent is not None and node.parent.parent is not None
                else f"◇ {node.label}"
            )
        if col == VERDICT_COLUMN:
            return f"{len(runs)} run{'s' if len(runs) != 1 else ''}"
        if col == SCORE_COLUMN:
            best = max(runs, key=lambda r: r.result.metrics["score"].exact_value or 0)
            return f"best {best.result.metrics['score'].shown}"
        return ""
    if role == Qt.ItemDataRole.ToolTipRole and col == 0:
        return (
            "Harness runs against this box and stage, scored 0..1 (higher is better): Score, then Execution"
            if node.children and node.children[0].harness is None
            else 'Score, then Execution; "-" where a metric could not be measured'
        )
    if role == SORT_ROLE:
        return -max(r.id for r in runs)
    return None


def _short_date(run: RunSummary | datetime | None) -> str:
    when = run.started if isinstance(run, RunSummary) else run
    if when is None:
        return moment(None)
    when = when.astimezone()
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
    lines = [f"{run.submission} · {run.labelled_case} · {run.model}", run.verdict.look.text]
    if run.score is not None:
        lines.append(f"score {grouped(run.score)} fuel")
    elif run.stress_fuel is not None:
        lines.append(f"stress fuel {grouped(run.stress_fuel)} (not a score)")
    lines.append(f"started {moment(run.started, '%Y-%m-%d %H:%M:%S', local=True)}")
    return "\n".join(lines)


class RunsFilter(QSortFilterProxyModel):
    """Text (case, model, submission; box, stage, harness, run id), and exact case or box /
    model / verdict (or harness runs only); groups are shown while any of their runs is."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setRecursiveFilteringEnabled(True)
        self.setSortRole(SORT_ROLE)
        self.text = ""
        self.case: str | None = None
        self.model: str | None = None
        self.verdict: Verdict | str | None = None

    def set_filters(
        self,
        *,
        text: str = "",
        case: str | None = None,
        model: str | None = None,
        verdict: Verdict | str | None = None,
    ) -> None:
        self.beginFilterChange()
        self.text, self.case, self.model, self.verdict = text.strip().lower(), case, model, verdict
        self.endFilterChange()

    def filterAcceptsRow(self, row: int, parent: Index) -> bool:
        source = self.sourceModel()
        assert isinstance(source, RunsModel)
        index = source.index(row, 0, parent)
        harness = source.harness_at(index)
        if harness is not None:
            return self._accepts_harness(harness)
        run = source.run_at(index)
        if run is None:
            return False
        if self.verdict == HARNESS_KIND:
            return False
        if self.case and run.case_label != self.case:
            return False
        if self.model and run.model != self.model:
            return False
        if self.verdict and run.verdict is not self.verdict:
            return False
        if self.text:
            hay = f"{run.labelled_case} {run.model} {run.submission} #{run.id}".lower()
            return all(word in hay for word in self.text.split())
        return True

    def _accepts_harness(self, h: StoredHarnessRun) -> bool:
        r = h.result
        if self.verdict is not None and self.verdict != HARNESS_KIND:
            return False  # a harness run has no verdict
        if self.case and h.group != self.case:
            return False
        if self.model and r.model != self.model:
            return False
        if self.text:
            hay = f"harness {h.group} {r.harness} {r.model} {r.run_id} {h.name} #{h.id}".lower()
            return all(word in hay for word in self.text.split())
        return True
