"""The scenario's census beside the snapshots: which rules its run exercises, how often.

The panel only shows what it is given. The Factory tab counts the census in an op of its
own (`census_child.census_in_child`: shipped with a bundled case, cached for a scenario
counted before, else counted in a child process that closing the window kills at once).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import QLabel

from lattice_desktop.lattice.census import Census


class CensusPanel(QLabel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("censusPanel")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setContentsMargins(6, 4, 6, 4)
        self.setToolTip(
            "What this scenario's run exercises, counted over all its ticks with the reference rules"
        )
        self.census: Census | None = None

    def show_counting(self) -> None:
        """A scenario is open and its census is on its way."""
        self.census = None
        self.setText("<b>Census</b><br>counting what this scenario's run exercises…")

    @Slot(object)
    def show_census(self, result: Census) -> None:
        self.census = result
        rows = "".join(f"<tr><td>{what}</td><td>&nbsp;{value}</td></tr>" for what, value in result.rows())
        self.setText(f"<b>Census</b> over {result.ticks:,} ticks<table>{rows}</table>")

    @Slot(str, str)
    def show_failure(self, message: str, _trace: str = "") -> None:
        self.census = None
        self.setText(f"<b>Census</b><br>could not be counted: {message}")

    def clear_scenario(self) -> None:
        self.census = None
        self.clear()
