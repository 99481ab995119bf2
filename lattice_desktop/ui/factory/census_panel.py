"""The scenario's census beside the snapshots: which rules its run exercises, how often.

A bundled case ships its census; any other scenario is counted once on a worker thread
(the Python rules: a minute or two for 512²) and cached on disk for the next time.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import QLabel

from lattice_desktop.lattice.census import Census, census_of, stored_census
from lattice_desktop.lattice.scenario import Scenario
from lattice_desktop.ui import tasks
from lattice_desktop.ui.tasks import Task
from lattice_desktop.work import Work


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
        self._wanted: bytes | None = None
        self._counting = tasks.Background(self)  # the count under way

    def show_scenario(self, data: bytes, scenario: Scenario, case_dir: Path | None) -> None:
        """Show the census of `data` now if it is stored, else count it in the background."""
        self._stop_counting()
        self._wanted = data
        found = stored_census(data, case_dir=case_dir)
        if found is not None:
            self._show(found)
            return
        self.census = None
        self.setText("<b>Census</b><br>counting what this scenario's run exercises…")
        task = Task(_count, data, scenario, case_dir, work=True)
        task.signals.done.connect(self._counted)
        task.signals.failed.connect(self._failed)
        self._counting.start(task)

    def clear_scenario(self) -> None:
        self._stop_counting()
        self._wanted, self.census = None, None
        self.clear()

    def _stop_counting(self) -> None:
        """Another scenario is open (or none): stop counting the last one."""
        self._counting.cancel()

    @Slot(object)
    def _counted(self, counted: tuple[bytes, Census]) -> None:
        data, result = counted
        if data is self._wanted:
            self._show(result)

    @Slot(str, str)
    def _failed(self, message: str, _trace: str) -> None:
        if self._wanted is not None:
            self.setText(f"<b>Census</b><br>could not be counted: {message}")

    def _show(self, result: Census) -> None:
        self.census = result
        rows = "".join(f"<tr><td>{what}</td><td>&nbsp;{value}</td></tr>" for what, value in result.rows())
        self.setText(f"<b>Census</b> over {result.ticks:,} ticks<table>{rows}</table>")
        self.setMinimumHeight(self.sizeHint().height())  # every row in view, never cut off


def _count(data: bytes, scenario: Scenario, case_dir: Path | None, *, work: Work) -> tuple[bytes, Census]:
    return data, census_of(data, scenario, case_dir=case_dir, work=work)
