"""Leaderboard table models: models ranked by best correct fuel (over-ceiling bests in a
greyed section below), and harness boxes placed by Score then Execution (a run that is not
ranked is placed too, marked "*" as `harness leaderboard` marks it)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from lattice_desktop.formatting import fuel, grouped, moment
from lattice_desktop.outcomes import Verdict
from lattice_desktop.store.field import BoardEntry, Leaderboard
from lattice_desktop.store.pages import HarnessBoardRow as HarnessRow
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.common.delegates import BAR_ROLE, COPY_ROLE, ID_ROLE, Bar
from lattice_desktop.ui.common.rows_model import RIGHT, Index, RowsModel

FUEL_COLUMNS = ("Rank", "Model", "Best fuel", "× leader", "Runs", "Date")
HARNESS_COLUMNS = (
    "Rank",
    "Harness / model",
    "Score",
    "Execution",
    "Cost",
    "Focus",
    "Time",
    "Compliance",
    "Tools",
    "Run",
)
RUN_COLUMN = len(HARNESS_COLUMNS) - 1
UNRANKED_MARK = "*"
"""After the place of a run that is placed by its Score but not ranked (`UNRANKED_NOTE`)."""
HARNESS_METRICS = ("score", "execution", "cost", "focus", "time", "compliance", "tools")
OVER_SECTION = "Over the ceiling — correct, but no comparable score"


class FuelBoardModel(RowsModel):
    """Rows: the ranked entries, then (when any) a section row, then over-ceiling bests."""

    columns = FUEL_COLUMNS
    right_aligned = frozenset({0, 3, 4})

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.board: Leaderboard | None = None
        self.rows: list[BoardEntry | None] = []  # None is the section row
        self.highlight_model: str | None = None
        self._max_fuel = 1

    def set_board(self, board: Leaderboard | None) -> None:
        self.beginResetModel()
        self.board = board
        self.rows = []
        if board is not None:
            self.rows = list(board.entries)
            if board.over_ceiling:
                self.rows += [None, *board.over_ceiling]
        # Bars compare ranked bests only; an over-ceiling best can be far off that scale.
        self._max_fuel = max([e.fuel for e in board.entries] + [1]) if board else 1
        self.endResetModel()

    def set_highlight(self, model: str | None) -> None:
        self.highlight_model = model
        if self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(self.columns) - 1))

    @property
    def section_row(self) -> int | None:
        return self.rows.index(None) if None in self.rows else None

    def entry(self, row: int) -> BoardEntry | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if index.isValid() and self.rows[index.row()] is None:
            return Qt.ItemFlag.ItemIsEnabled
        return super().flags(index)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        e, col = self.rows[index.row()], index.column()
        if e is None:
            if role == Qt.ItemDataRole.DisplayRole and col == 0:
                return OVER_SECTION
            if role == Qt.ItemDataRole.FontRole:
                return theme.styled(bold=True)
            return None
        over = e.percent_over is not None or e.rank == 0
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(e, col, over)
        if role == COPY_ROLE:
            return (
                str(e.rank) if not over else "over",
                e.model,
                str(e.fuel),
                f"{e.ratio:.6f}",
                str(e.runs),
                e.date.isoformat() if e.date else "",
            )[col]
        if role == BAR_ROLE and col == 2 and not over:
            return Bar(e.fuel / self._max_fuel, theme.accent(), self._display(e, col, over))
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(e, col, over)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 3, 4):
            return RIGHT
        if role == Qt.ItemDataRole.ForegroundRole and over:
            return theme.GREY
        if role == Qt.ItemDataRole.BackgroundRole and e.model == self.highlight_model:
            return theme.tint(theme.accent(), 50)
        if role == Qt.ItemDataRole.FontRole and e.model == self.highlight_model:
            return theme.styled(bold=True)
        if role == ID_ROLE:
            return e.run_id
        return None

    @staticmethod
    def _display(e: BoardEntry, col: int, over: bool) -> str:
        if col == 0:
            return Verdict.OVER_CEILING.symbol if over else f"#{e.rank}"
        if col == 1:
            return e.model
        if col == 2:
            if over and e.percent_over is not None:
                return f"{fuel(e.fuel)} · +{e.percent_over:.1f}% over"
            return fuel(e.fuel)
        if col == 3:
            return "" if over and not e.ratio else f"× {e.ratio:.2f}"
        if col == 4:
            return str(e.runs)
        return moment(e.date, local=True)

    @staticmethod
    def _tooltip(e: BoardEntry, col: int, over: bool) -> str:
        text = f"{grouped(e.fuel)} fuel · run #{e.run_id} (double-click to open)"
        if over:
            text += (
                "\nCorrect only on the runway: up to "
                f"{e.percent_over or 0:.1f}% over a case's ceiling; not ranked"
            )
        if col == 3:
            text += f"\n{e.ratio:.4f} × the leader's fuel"
        return text


class HarnessBoardModel(RowsModel):
    """Harness boxes: placed by Score then Execution; "-" for a missing metric, never 0; a
    run that is not ranked is "#2*", with its reason in the tooltip; each row names its run."""

    columns = HARNESS_COLUMNS
    right_aligned = frozenset(range(len(HARNESS_COLUMNS))) - {1, RUN_COLUMN}

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[HarnessRow] = []
        self.highlight_model: str | None = None

    def set_rows(self, rows: list[HarnessRow]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def set_highlight(self, model: str | None) -> None:
        self.highlight_model = model

    def metric(self, row: HarnessRow, col: int):
        name = HARNESS_METRICS[col - 2]
        result = row.result
        return result.execution if name == "execution" else result.metrics[name]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, col = self.rows[index.row()], index.column()
        metric = 2 <= col < RUN_COLUMN
        if role in (Qt.ItemDataRole.DisplayRole, COPY_ROLE):
            if col == 0:
                mark = "" if row.ranked else UNRANKED_MARK
                return (
                    f"#{row.position}{mark}"
                    if role == Qt.ItemDataRole.DisplayRole
                    else f"{row.position}{mark}"
                )
            if col == 1:
                return f"{row.result.harness} / {row.result.model}"
            if col == RUN_COLUMN:
                return row.label if role == Qt.ItemDataRole.DisplayRole else str(row.stored_id)
            m = self.metric(row, col)
            if role == COPY_ROLE:
                return "-" if m.value is None else repr(m.value)
            return m.shown
        if role == Qt.ItemDataRole.ToolTipRole and metric:
            m = self.metric(row, col)
            return f"{m.shown_formula}\nevidence: {m.evidence}"
        if role == Qt.ItemDataRole.ToolTipRole and not row.ranked:
            return (
                f"not ranked: {row.result.unranked}\nplaced by its Score, after the ranked runs of that Score"
            )
        if role == Qt.ItemDataRole.TextAlignmentRole and col in self.right_aligned:
            return RIGHT
        if role == Qt.ItemDataRole.ForegroundRole and metric and self.metric(row, col).value is None:
            return theme.GREY
        if role == Qt.ItemDataRole.FontRole and col == 0 and not row.ranked:
            return theme.styled(italic=True)
        if role == Qt.ItemDataRole.BackgroundRole and row.result.model == self.highlight_model:
            return theme.tint(theme.accent(), 50)
        if role == ID_ROLE:
            return row.stored_id
        return None
