"""File › Export… and the runs list's Export items: the open run (graded or harness), the
runs list as shown and the leaderboard as shown, each written off the GUI thread. A part
of `RunActions` (ui/runs/actions.py), kept apart so each module holds one idea."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QMenu

from lattice_desktop.services.exports import Export, board_export, run_export, runs_export, write_export
from lattice_desktop.store.queries import ListedRun
from lattice_desktop.ui.common import tasks
from lattice_desktop.ui.common.dialogs import DialogFolder, choose_save_path

KINDS = {"csv": ("CSV", "CSV files (*.csv)"), "html": ("HTML report", "HTML reports (*.html)")}


class ExportActions:
    """Mixed into `RunActions`, whose `host`, `window`, `_item`, `_say` and `_failed` it uses."""

    host: Any
    window: Any
    _item: Callable[..., Any]
    _say: Callable[[str, str], None]
    _failed: Callable[[str, str], None]

    def add_export_menu(self, file_menu: QMenu) -> QMenu:
        """File › Export: the open run, the runs list as filtered, the leaderboard as shown."""
        file_menu.addSeparator()
        menu = file_menu.addMenu("&Export")
        for kind, (name, _) in KINDS.items():
            self._item(menu, f"This &run as {name}…", partial(self.export_open_run, kind))
        menu.addSeparator()
        for kind, (name, _) in KINDS.items():
            self._item(menu, f"Runs &list as {name}…", partial(self.export_runs, kind))
        menu.addSeparator()
        for kind, (name, _) in KINDS.items():
            self._item(menu, f"&Leaderboard as {name}…", partial(self.export_board, kind))
        return menu

    def export_open_run(self, kind: str, path: Path | None = None) -> None:
        page, harness = self.host.page, self.host.harness.page
        if page is None and harness is None:
            self._say("Open a run first: File › Export › This run exports the run that is open.", "warning")
            return
        run_id = page.run.id if page is not None else harness.id if harness is not None else None
        if run_id is not None:
            self.export_run(run_id, kind, path)

    def export_run(self, run_id: int, kind: str, path: Path | None = None) -> None:
        target = path or self._save_as(f"run-{run_id}", kind)
        if target is not None:
            self._export(lambda: run_export(run_id, kind), target)

    def export_runs(self, kind: str, path: Path | None = None) -> None:
        """The runs the list shows now (its filter applied), newest first."""
        panel = self.host.runs_panel
        listed: list[ListedRun] = [
            r
            for r in panel.model.summaries
            if panel.proxy.mapFromSource(panel.model.index_of_run(r.id)).isValid()
        ]
        listed += [
            h
            for h in panel.model.harness
            if panel.proxy.mapFromSource(panel.model.index_of_harness_run(h.id)).isValid()
        ]
        shown = sorted(listed, key=lambda r: r.id, reverse=True)
        if not shown:
            self._say("No run is shown in the list to export.", "warning")
            return
        scope = panel.filter_box.text().strip()
        target = path or self._save_as("runs", kind)
        if target is not None:
            self._export(lambda: runs_export(shown, kind, scope=f"filter “{scope}”" if scope else ""), target)

    def export_board(self, kind: str, path: Path | None = None) -> None:
        """The performance leaderboard the Leaderboard tab shows."""
        board = self.host.leaderboard_tab.fuel_model.board
        if (
            board is None
            or self.host.leaderboard_tab.table.model() is not self.host.leaderboard_tab.fuel_model
        ):
            self._say("Show a performance case's leaderboard first (the Leaderboard tab, Ctrl+4).", "warning")
            return
        target = path or self._save_as(f"leaderboard-{board.case_name}", kind)
        if target is not None:
            self._export(lambda: board_export(board, kind), target)

    def _save_as(self, stem: str, kind: str) -> Path | None:
        name, pattern = KINDS[kind]
        folder = DialogFolder(self.host.settings)
        return choose_save_path(self.window, folder, f"Export as {name}", f"{stem}.{kind}", pattern)

    def _export(self, make: Callable[[], Export], target: Path) -> None:
        task = tasks.Task(_make_and_write, make, target)
        task.signals.done.connect(self._exported)
        task.signals.failed.connect(self._failed)
        tasks.start(task)

    @Slot(object)
    def _exported(self, written: tuple[str, Path]) -> None:
        what, path = written
        self._say(f"Exported {what} to {path}.", "info")


def _make_and_write(make: Callable[[], Export], target: Path) -> tuple[str, Path]:
    export = make()
    return export.what, write_export(export, target)
