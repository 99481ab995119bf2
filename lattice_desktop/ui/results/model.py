"""Table models over a run's `CaseResult`s: one for the smoke tests (correctness only),
one for the stress cases (fuel against the ceiling)."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from lattice_desktop.formatting import fuel, grouped
from lattice_desktop.grading.report import CaseResult
from lattice_desktop.outcomes import Outcome
from lattice_desktop.services.run_failure import NOT_RUN, RunFailure
from lattice_desktop.services.run_report import detail_text
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.common.delegates import BAR_ROLE, CHIP_ROLE, COPY_ROLE, SORT_ROLE, Bar, Chip

Index = QModelIndex | QPersistentModelIndex
ROOT = QModelIndex()  # the invisible root, as a default argument
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
SMOKE_COLUMNS = ("Case", "Behaviour", "Outcome", "Fuel", "Detail")
STRESS_COLUMNS = ("Case", "Size", "Outcome", "Fuel", "% of ceiling", "Overshoot", "Detail")
NUMERIC = {"Size", "Fuel", "Overshoot"}


_symbol, _words = NOT_RUN.split(" ", 1)
NOT_RUN_CHIP = Chip(_symbol, _words, theme.GREY)


def outcome_chip(outcome: Outcome) -> Chip:
    return Chip.of(outcome.look)


def percent_bar(r: CaseResult) -> Bar | None:
    """The fuel as a share of the ceiling; the ceiling a solid mark, the runway's end dotted."""
    pct = r.percent_of_ceiling
    if pct is None:
        return None
    runway = 100.0 * r.budget / r.ceiling if r.ceiling else 100.0
    # A very wide runway would squeeze the ceiling to the left edge: show at most 2.5×
    # the ceiling (or the fuel), and pin a farther runway end to the right edge.
    scale = max(110.0, pct * 1.05, min(runway, 250.0))
    colour = theme.AMBER if pct > 100.0 else theme.accent()
    return Bar(
        pct / scale,
        colour,
        f"{pct:.1f}%",
        ceiling=100.0 / scale,
        runway=min(1.0, runway / scale) if runway > 100.0 else None,
    )


class ResultsModel(QAbstractTableModel):
    def __init__(self, *, smoke: bool, parent=None) -> None:
        super().__init__(parent)
        self.smoke = smoke
        self.columns = SMOKE_COLUMNS if smoke else STRESS_COLUMNS
        self.results: list[CaseResult] = []
        self.failure: RunFailure | None = None

    def set_results(self, results: list[CaseResult], failure: RunFailure | None = None) -> None:
        """The run's cases; with `failure` (the run failed before any case ran) every case
        reads "not run" and the failure is told once, above the tables."""
        self.beginResetModel()
        self.results = [r for r in results if r.is_smoke == self.smoke]
        self.failure = failure
        self.endResetModel()

    def column(self, name: str) -> int:
        return self.columns.index(name)

    def rowCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self.results)

    def columnCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        name = self.columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return name
        if role == Qt.ItemDataRole.TextAlignmentRole and (name in NUMERIC or name == "% of ceiling"):
            return RIGHT
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r = self.results[index.row()]
        name = self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(r, name)
        if role == COPY_ROLE:
            return self._exact(r, name)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(r, name)
        if role == CHIP_ROLE and name == "Outcome":
            return NOT_RUN_CHIP if self.failure is not None else outcome_chip(r.outcome)
        if role == BAR_ROLE and name == "% of ceiling":
            return percent_bar(r)
        if role == Qt.ItemDataRole.TextAlignmentRole and name in NUMERIC:
            return RIGHT
        if role == Qt.ItemDataRole.FontRole and name == "Detail" and r.mismatch is not None:
            return theme.monospace()
        if role == Qt.ItemDataRole.ForegroundRole and (r.outcome is Outcome.SKIPPED or self.failure):
            return theme.GREY
        if role == SORT_ROLE:
            return {
                "Size": r.size,
                "Fuel": r.fuel or 0,
                "% of ceiling": r.percent_of_ceiling or 0,
                "Overshoot": r.overshoot or 0,
            }.get(name, self._display(r, name))
        return None

    def _display(self, r: CaseResult, name: str) -> str:
        if self.failure is not None and name in ("Outcome", "Detail"):
            return NOT_RUN if name == "Outcome" else ""
        if name == "Case":
            return r.name
        if name == "Behaviour":
            return r.behaviour
        if name == "Size":
            return grouped(r.size)
        if name == "Outcome":
            return r.outcome.look.text
        if name == "Fuel":
            return fuel(r.fuel)
        if name == "% of ceiling":
            return "-" if r.percent_of_ceiling is None else f"{r.percent_of_ceiling:.1f}%"
        if name == "Overshoot":
            if r.overshoot is None:
                return ""
            return f"▲ +{100.0 * r.overshoot / r.ceiling:.1f}% ({fuel(r.overshoot)})"
        return detail_text(r)

    def _exact(self, r: CaseResult, name: str) -> str:
        if name == "Fuel":
            return "" if r.fuel is None else str(r.fuel)
        if name == "Size":
            return str(r.size)
        if name == "% of ceiling":
            return "" if r.percent_of_ceiling is None else f"{r.percent_of_ceiling:.4f}"
        if name == "Overshoot":
            return "" if r.overshoot is None else str(r.overshoot)
        if name == "Outcome":
            return "not run" if self.failure is not None else r.outcome.label
        if name == "Detail":
            return "" if self.failure is not None else detail_text(r, exact=True)
        return self._display(r, name)

    def _tooltip(self, r: CaseResult, name: str) -> str | None:
        if self.failure is not None and name in ("Outcome", "Detail"):
            return f"Not run: {self.failure.why} (counted failed)"
        if name == "Fuel" and r.fuel is not None:
            return f"{grouped(r.fuel)} fuel (ceiling {grouped(r.ceiling)}, budget {grouped(r.budget)})"
        if name == "% of ceiling" and r.percent_of_ceiling is not None:
            runway = 100.0 * r.budget / r.ceiling
            text = f"{r.percent_of_ceiling:.3f}% of the {grouped(r.ceiling)} fuel ceiling"
            if runway > 100.0:
                text += f"\nthe runway ends at {runway:.0f}% ({grouped(r.budget)} fuel)"
            return text
        if name == "Overshoot" and r.overshoot is not None:
            return f"{grouped(r.overshoot)} fuel past the ceiling: correct, but does not pass"
        if name == "Behaviour":
            return r.behaviour or None
        if name == "Size":
            return f"{grouped(r.size)} bytes of input"
        if name == "Detail":
            text = detail_text(r, exact=True)
            if r.frames:
                text += "\n\nwasm backtrace:\n" + "\n".join(r.frames)
            return text or None
        if name == "Outcome":
            return _OUTCOME_HELP.get(r.outcome, r.outcome.label)
        return None


_OUTCOME_HELP = {
    Outcome.PASS: "Correct within the fuel ceiling",
    Outcome.OVER_CEILING: "Correct, but only on the runway past the ceiling: does not pass",
    Outcome.SKIPPED: "Not run because a smoke test failed: counted failed",
    Outcome.WRONG_ANSWER: "The output differs from the expected answer",
    Outcome.CONTRACT_VIOLATION: "The module broke the calling convention: alloc gave no room "
    "for the input inside memory, or the output it returned lies outside memory",
    Outcome.MEMORY_LIMIT: "The module hit the memory limit: a memory.grow was refused (run again "
    "with a raised limit, the same case grew past it or ended otherwise), or wasmtime said so",
    Outcome.TRAP: "The module trapped; the detail gives the trap and where (no limit was seen hit)",
    Outcome.TIMEOUT: "The wall-clock backstop's deadline fired; the detail says after how long",
    Outcome.OUT_OF_FUEL: "Exhausted the runway: still running at the end of its fuel, so there is "
    "no answer to judge (not a wrong answer); a faster engine may pass",
    Outcome.INTERNAL_ERROR: "A bug in Lattice Desktop, not in the submission",
    Outcome.UNKNOWN: "The stored outcome is not one this version knows (a newer version or "
    "another program wrote it)",
}
