"""Table models over a fuel profile: its functions (optionally against another run's) and
one function's callers or callees. Sorting reads raw numbers through SORT_ROLE."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt

from lattice_desktop.formatting import fuel, grouped
from lattice_desktop.profile.model import EdgeStats, Profile
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.common.delegates import SORT_ROLE
from lattice_desktop.ui.common.rows_model import RIGHT, Index, RowsModel

INDEX_ROLE = Qt.ItemDataRole.UserRole + 40  # the function's index in the module


@dataclass(frozen=True)
class FunctionRow:
    """One function's figures (None where it did not run in this run), and with a compared
    run, that run's self fuel for the function of the same name (None where it has none)."""

    index: int | None
    name: str
    self_fuel: int | None
    inclusive: int | None
    calls: int | None
    percent: float | None
    other_self: int | None = None
    compared: bool = False

    @property
    def delta(self) -> int | None:
        """This run's self fuel less the compared run's, a missing function counting 0."""
        if not self.compared:
            return None
        return (self.self_fuel or 0) - (self.other_self or 0)


def function_rows(profile: Profile, other: Profile | None) -> list[FunctionRow]:
    """The functions that ran, most self fuel first; with `other`, matched by name, and the
    functions only `other` ran after them (they make part of the gap too)."""
    theirs = {f.name: f.self_fuel for f in other.functions if f.calls} if other else {}
    compared = other is not None
    rows = [
        FunctionRow(
            f.index,
            f.name,
            f.self_fuel,
            f.inclusive,
            f.calls,
            profile.percent(f.self_fuel),
            theirs.get(f.name),
            compared,
        )
        for f in profile.ranked()
    ]
    ours = {row.name for row in rows}
    if other is not None:
        rows += [
            FunctionRow(None, f.name, None, None, None, None, f.self_fuel, True)
            for f in other.ranked()
            if f.name not in ours
        ]
    return rows


class FunctionsModel(RowsModel):
    BASE = ("Function", "Self fuel", "% of case", "Inclusive", "Calls")
    COMPARED = ("Compared self", "Δ self")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[FunctionRow] = []
        self.compared = False
        self.columns = self.BASE

    def set_rows(self, rows: list[FunctionRow], *, compared: bool) -> None:
        self.beginResetModel()
        self.rows, self.compared = rows, compared
        self.columns = self.BASE + (self.COMPARED if compared else ())
        self.endResetModel()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        column = self.columns[index.column()]
        values: dict[str, int | float | str | None] = {
            "Function": row.name,
            "Self fuel": row.self_fuel,
            "% of case": row.percent,
            "Inclusive": row.inclusive,
            "Calls": row.calls,
            "Compared self": row.other_self,
            "Δ self": row.delta,
        }
        value = values[column]
        if role == SORT_ROLE:
            return value if value is not None else -1
        if role == INDEX_ROLE:
            return row.index
        if role == Qt.ItemDataRole.DisplayRole:
            return _shown(column, value)
        if role == Qt.ItemDataRole.ToolTipRole and isinstance(value, int):
            return f"{value:,} fuel" if column != "Calls" else f"{value:,} calls"
        if role == Qt.ItemDataRole.TextAlignmentRole and column != "Function":
            return RIGHT
        if role == Qt.ItemDataRole.FontRole and column == "Function":
            return theme.monospace()
        if role == Qt.ItemDataRole.ForegroundRole and column == "Δ self" and row.delta:
            return theme.AMBER if row.delta > 0 else theme.GREEN
        return None


def _shown(column: str, value: int | float | str | None) -> str:
    if value is None:
        return "-"
    if column == "% of case":
        return f"{value:.1f}%"
    if column == "Calls":
        return grouped(int(value))
    if column == "Δ self":
        number = int(value)
        return ("+" if number > 0 else "−" if number < 0 else "±") + fuel(abs(number))
    if isinstance(value, int):
        return fuel(value)
    return str(value)


class EdgesModel(RowsModel):
    """The callers (or callees) of one function: the other end, calls, inclusive fuel."""

    def __init__(self, title: str, parent=None) -> None:
        super().__init__(parent)
        self.columns = (title, "Calls", "Inclusive", "% of case")
        self.rows: list[tuple[str, int, int, float, int]] = []

    def set_edges(self, profile: Profile | None, edges: list[EdgeStats], *, callers: bool) -> None:
        self.beginResetModel()
        self.rows = []
        if profile is not None:
            for e in edges:
                end = e.caller if callers else e.callee
                self.rows.append(
                    (profile.name_of(end), e.calls, e.inclusive, profile.percent(e.inclusive), end)
                )
        self.endResetModel()

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        name, calls, inclusive, share, end = self.rows[index.row()]
        column = index.column()
        if role == INDEX_ROLE:
            return end
        if role == Qt.ItemDataRole.DisplayRole:
            return (name, grouped(calls), fuel(inclusive), f"{share:.1f}%")[column]
        if role == Qt.ItemDataRole.ToolTipRole and column == 2:
            return f"{inclusive:,} fuel"
        if role == Qt.ItemDataRole.TextAlignmentRole and column:
            return RIGHT
        if role == Qt.ItemDataRole.FontRole and column == 0:
            return theme.monospace()
        return None
