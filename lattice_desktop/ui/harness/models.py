"""Table models over one `HarnessResult`: the six metrics and Execution (value, evidence,
filled-in formula, notes), the loops Focus found, and the tool-call findings. Adapters
over the plain result: nothing here computes a score."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFont

from lattice_desktop.formatting import rounded
from lattice_desktop.harness import HarnessResult, Loop, Metric, ToolFinding
from lattice_desktop.harness.metric import DIGITS, NONE, PARTIAL, PRICED, PROVIDER_REPORTED, RECORDED
from lattice_desktop.harness.result import METRIC_ORDER
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.common.delegates import BAR_ROLE, CHIP_ROLE, COPY_ROLE, SORT_ROLE, Bar, Chip

Index = QModelIndex | QPersistentModelIndex
ROOT = QModelIndex()  # the invisible root, as a default argument
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
TOP_LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
MISSING = "-"  # a metric with nothing to measure: never shown as 0

EVIDENCE_CHIPS = {
    RECORDED: ("●", theme.GREEN, "computed from events the recorder observed"),
    PROVIDER_REPORTED: ("◆", theme.BLUE, "computed from spend as the model provider reported it"),
    PRICED: (
        "◇",
        theme.BLUE,
        "computed from token usage priced by the box's price table (the "
        "provider reported no cost); each call's pricing is listed below",
    ),
    PARTIAL: (
        "◐",
        theme.AMBER,
        "computed from part of the evidence; the rest could not be evaluated (see the notes)",
    ),
    NONE: ("○", theme.GREY, "nothing to compute from: the metric is missing"),
}


def evidence_chip(evidence: str) -> Chip:
    symbol, colour, _help = EVIDENCE_CHIPS.get(evidence, ("?", theme.PURPLE, ""))
    return Chip(symbol, evidence, colour)


def evidence_help(evidence: str) -> str:
    return EVIDENCE_CHIPS.get(evidence, ("", None, "an evidence tag this version does not know"))[2]


def inputs_text(inputs: dict[str, Any]) -> str:
    """The exact inputs, as stored (JSON, keys in order)."""
    return json.dumps(inputs, ensure_ascii=False)


def metric_rows(result: HarnessResult) -> list[tuple[str, Metric]]:
    """Score, Cost, Focus, Time, Compliance, Tools, then Execution."""
    rows = [(name.capitalize(), result.metrics[name]) for name in METRIC_ORDER if name in result.metrics]
    return [*rows, ("Execution", result.execution)]


class _Table(QAbstractTableModel):
    columns: tuple[str, ...] = ()
    numeric: frozenset[str] = frozenset()

    def column(self, name: str) -> int:
        return self.columns.index(name)

    def rowCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows())

    def columnCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section]
        if role == Qt.ItemDataRole.TextAlignmentRole and self.columns[section] in self.numeric:
            return RIGHT
        return None

    def _rows(self) -> list:
        raise NotImplementedError


class MetricsModel(_Table):
    """One row per metric: value ("-" when missing), evidence, and the formula with its
    inputs filled in. The exact inputs and the notes are in the tooltips, and Copy puts
    them on the clipboard too."""

    columns = ("Metric", "Value", "Evidence", "Formula")
    numeric = frozenset({"Value"})

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[tuple[str, Metric]] = []

    def set_result(self, result: HarnessResult | None) -> None:
        self.beginResetModel()
        self.rows = [] if result is None else metric_rows(result)
        self.endResetModel()

    def metric(self, name: str) -> Metric | None:
        return next((m for n, m in self.rows if n.lower() == name.lower()), None)

    def _rows(self) -> list:
        return self.rows

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        name, m = self.rows[index.row()]
        col = self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                "Metric": name,
                "Value": m.shown,
                "Evidence": evidence_chip(m.evidence).text,
                "Formula": m.formula,
            }[col]
        if role == COPY_ROLE:
            return {
                "Metric": name,
                "Value": m.shown,
                "Evidence": m.evidence,
                "Formula": "\t".join([m.formula, inputs_text(m.inputs), *m.notes]),
            }[col]
        if role == BAR_ROLE and col == "Value" and m.value is not None:
            return Bar(float(m.value), theme.accent(), m.shown)
        if role == CHIP_ROLE and col == "Evidence":
            return evidence_chip(m.evidence)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(name, m, col)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return RIGHT if col == "Value" else TOP_LEFT if col == "Formula" else None
        if role == Qt.ItemDataRole.FontRole and col == "Formula":
            return theme.monospace()
        if role == Qt.ItemDataRole.FontRole and name == "Execution" and col == "Metric":
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole and m.value is None and col in ("Value", "Metric"):
            return theme.GREY
        if role == SORT_ROLE:
            return m.value if col == "Value" else None
        return None

    @staticmethod
    def _tooltip(name: str, m: Metric, col: str) -> str | None:
        if col == "Value":
            if m.value is None:
                return f"{name} could not be measured: shown as -, never as 0"
            return f"{name} = {rounded(m.value, DIGITS)} (stored with {DIGITS} decimals)"
        if col == "Evidence":
            return f"{m.evidence}: {evidence_help(m.evidence)}"
        if col == "Formula":
            return f"{m.formula}\n\ninputs (exact): {inputs_text(m.inputs)}"
        if col == "Metric":
            return "\n".join([name, *m.notes])
        return None


class LoopsModel(_Table):
    """The loops Focus found, worst first; only the worst one counts."""

    columns = ("Repeated calls", "Repetitions", "Lines", "Kind", "Penalty")
    numeric = frozenset({"Repetitions", "Penalty"})

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.loops: list[Loop] = []
        self.calls: list[tuple[str, ...]] = []
        self.worst: Loop | None = None

    def set_loops(self, loops: tuple[Loop, ...], calls: tuple[tuple[str, ...], ...] = ()) -> None:
        self.beginResetModel()
        self.loops = list(loops)
        self.calls = list(calls) if len(calls) == len(loops) else [loop.tools for loop in loops]
        self.worst = max(self.loops, key=lambda loop: loop.penalty, default=None)
        self.endResetModel()

    def _rows(self) -> list:
        return self.loops

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        loop, calls = self.loops[index.row()], self.calls[index.row()]
        col = self.columns[index.column()]
        counted = loop is self.worst and loop.penalty > 0
        if role in (Qt.ItemDataRole.DisplayRole, COPY_ROLE):
            return {
                "Repeated calls": " → ".join(calls),
                "Repetitions": f"×{loop.repetitions}"
                if role == Qt.ItemDataRole.DisplayRole
                else str(loop.repetitions),
                "Lines": f"{loop.first_line}–{loop.last_line}",
                "Kind": ("▲ serious" if loop.serious else "△ mild") + (" · counted" if counted else ""),
                "Penalty": rounded(loop.penalty),
            }[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            return (
                f"{loop.describe()}\n"
                + "\n".join(calls)
                + "\n\n"
                + (
                    "The worst loop of the run: Focus = 1 - its penalty."
                    if counted
                    else "Only the worst loop counts: this one does not change Focus."
                )
            )
        if role == Qt.ItemDataRole.TextAlignmentRole and col in self.numeric:
            return RIGHT
        if role == Qt.ItemDataRole.FontRole and col == "Repeated calls":
            return theme.monospace()
        if role == Qt.ItemDataRole.ForegroundRole and col == "Kind":
            return theme.RED if loop.serious else theme.AMBER
        if role == Qt.ItemDataRole.ForegroundRole and not counted:
            return theme.GREY
        return None


class FindingsModel(_Table):
    """Tools: each call that was not well formed, broke its schema or repeated a rejection."""

    columns = ("Line", "Kind", "Tool", "Message")
    numeric = frozenset({"Line"})

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.findings: list[ToolFinding] = []

    def set_findings(self, findings: tuple[ToolFinding, ...]) -> None:
        self.beginResetModel()
        self.findings = sorted(findings, key=lambda f: f.line)
        self.endResetModel()

    def _rows(self) -> list:
        return self.findings

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        f = self.findings[index.row()]
        col = self.columns[index.column()]
        if role in (Qt.ItemDataRole.DisplayRole, COPY_ROLE):
            return {"Line": str(f.line), "Kind": f.kind, "Tool": f.tool or MISSING, "Message": f.message}[col]
        if role == Qt.ItemDataRole.ToolTipRole and col == "Message":
            return f.message
        if role == Qt.ItemDataRole.TextAlignmentRole and col in self.numeric:
            return RIGHT
        if role == Qt.ItemDataRole.FontRole and col in ("Kind", "Tool"):
            return theme.monospace()
        if role == SORT_ROLE and col == "Line":
            return f.line
        return None
