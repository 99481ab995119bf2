"""The harness leaderboard model, highlighting the open run's harness *and* model (many
harnesses can share a model, so the model alone would light up rows that are not it)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt

from lattice_desktop.harness.ranking import EPOCHS_NOTE, UNRANKED_NOTE, agent_label
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.leaderboard.model import HarnessBoardModel

Index = QModelIndex | QPersistentModelIndex


class HarnessBoard(HarnessBoardModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.highlight_agent: tuple[str, str] | None = None  # (harness, model)

    def set_agent(self, agent: tuple[str, str] | None) -> None:
        self.highlight_agent = agent
        self.highlight_model = agent[1] if agent else None
        if self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(self.columns) - 1))

    def mine(self, row: int) -> bool:
        r = self.rows[row].result
        return self.highlight_agent is not None and (r.harness, r.model) == self.highlight_agent

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if index.isValid() and role == Qt.ItemDataRole.BackgroundRole:
            return theme.tint(theme.accent(), 50) if self.mine(index.row()) else None
        if index.isValid() and role == Qt.ItemDataRole.FontRole and self.mine(index.row()):
            return theme.styled(bold=True)
        if index.isValid() and role == Qt.ItemDataRole.ToolTipRole and index.column() < 2:
            row = self.rows[index.row()]
            unranked = "" if row.ranked else f"\nnot ranked: {row.result.unranked}\n{UNRANKED_NOTE}"
            return (
                f"{agent_label(row.result)}: its best run, run {row.label} — double-click to open"
                f"{unranked}\n{EPOCHS_NOTE}"
            )
        return super().data(index, role)
