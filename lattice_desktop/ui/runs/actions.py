"""What a user can do to a stored run from the runs list's context menu — re-grade it,
open or copy its folders (a harness run: copy its trace's path), export it, hide or delete
it — and File › Export… for the open run (graded or harness), the runs list as shown and
the leaderboard as shown.

Every database read and write and every file written runs off the GUI thread (a `Task`;
writes through the one Writer). Re-grading goes the way any grading goes: the run's case
becomes the open case and its submission folder is graded through the window's own
`grade_submission` (with its build confirmation). The window is used through `RunHost`,
the few things this needs of it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, QPoint, QSettings, Qt, QUrl, Slot
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QMenu, QMessageBox, QStatusBar, QWidget

from lattice_desktop.store.harness_runs import StoredHarnessRun
from lattice_desktop.store.hidden_runs import hide_runs, unhide_runs
from lattice_desktop.store.pages import RunPage
from lattice_desktop.store.queries import RunSummary, StoredRun, load_run
from lattice_desktop.store.runs import delete_runs
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.common import tasks
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.common.message_bar import MessageBar
from lattice_desktop.ui.grading.grade_op import GradeOp
from lattice_desktop.ui.harness.side import HarnessSide
from lattice_desktop.ui.leaderboard.tab import LeaderboardTab
from lattice_desktop.ui.profile.compare_view import open_compare
from lattice_desktop.ui.runs.exports import KINDS, ExportActions
from lattice_desktop.ui.runs.panel import RunsPanel


class RunHost(Protocol):
    """What the run actions use of the main window."""

    runs_panel: RunsPanel
    leaderboard_tab: LeaderboardTab
    message_bar: MessageBar
    writer: Writer
    grading: GradeOp
    page: RunPage | None
    harness: HarnessSide
    settings: QSettings

    def open_case(self, path: Path) -> None: ...
    def grade_submission(self, folder: Path | None = None) -> None: ...
    def open_run(self, run_id: int) -> None: ...
    def refresh_all(self) -> None: ...
    def refresh_runs(self) -> None: ...
    def refresh_scores(self) -> None: ...
    def report_failure(self, message: str, details: str) -> None: ...
    def statusBar(self) -> QStatusBar: ...


class RunActions(ExportActions, QObject):
    def __init__(self, host: Any) -> None:
        window: QWidget = host
        super().__init__(window)
        self.host: RunHost = host
        self.window = window
        self.open_url: Callable[[QUrl], object] = QDesktopServices.openUrl  # the desktop's file manager
        self.menu: QMenu | None = None
        self.show_hidden = False  # the runs list shows hidden runs too (greyed, marked hidden)
        self.show_hidden_action = QAction("Show hidden runs", self)
        self.show_hidden_action.setCheckable(True)
        self.show_hidden_action.toggled.connect(self._on_show_hidden)
        self._load = LatestQuery(self._on_loaded, self)
        self._load.failed.connect(self._failed)
        self._then: Callable[[StoredRun], None] | None = None
        tree = host.runs_panel.tree
        tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        tree.customContextMenuRequested.connect(self._on_context_menu)

    # The context menu ----------------------------------------------------------------

    def menu_for(self, run: RunSummary) -> QMenu:
        """The context menu of one performance run."""
        menu = QMenu(self.window)
        menu.setToolTipsVisible(True)
        self._item(
            menu, "Re-grade", lambda: self.regrade(run.id), "Grade this submission again against its case"
        )
        if (page := self.host.page) is not None and page.run.id != run.id:
            self._item(
                menu,
                f"Compare with the open run #{page.run.id}…",
                partial(open_compare, self.window, page.run.id, run.id),
                "Fuel per case and the functions behind each change: the open run is A, this one B",
            )
        menu.addSeparator()
        self._item(menu, "Open submission folder", lambda: self.open_folder(run.id, "submission"))
        self._item(menu, "Open case folder", lambda: self.open_folder(run.id, "case"))
        self._item(menu, "Copy submission path", lambda: self.copy_path(run.id, "submission"))
        self._item(menu, "Copy case manifest path", lambda: self.copy_path(run.id, "case"))
        self._keeping(
            menu,
            run.id,
            hidden=run.hidden,
            shown_in="in the field",
            left_out_of="the runs list, the field and the leaderboard",
            deleted="its results",
        )
        return menu

    def menu_for_harness(self, run: StoredHarnessRun) -> QMenu:
        """The context menu of one harness run: what a graded run offers, but for its trace
        (there is no submission to re-grade and no case folder)."""
        menu = QMenu(self.window)
        menu.setToolTipsVisible(True)
        self._item(
            menu,
            "Copy trace path",
            lambda: self._copy_text(run.trace_source),
            "The trace (or Inspect AI log and sample) this run was scored from",
        )
        self._keeping(
            menu,
            run.id,
            hidden=run.hidden,
            shown_in="on the board",
            left_out_of="the runs list and its box's board",
            deleted="its stored trace",
        )
        return menu

    def _keeping(
        self, menu: QMenu, run_id: int, *, hidden: bool, shown_in: str, left_out_of: str, deleted: str
    ) -> None:
        """The items every run's menu ends with: export it, hide or show it, delete it."""
        menu.addSeparator()
        for kind, (name, _) in KINDS.items():
            self._item(menu, f"Export run as {name}…", partial(self.export_run, run_id, kind))
        menu.addSeparator()
        if hidden:
            self._item(menu, f"Show run {shown_in} again", lambda: self.set_hidden(run_id, False))
        else:
            self._item(
                menu,
                "Hide run",
                lambda: self.set_hidden(run_id, True),
                f"Keep the run but leave it out of {left_out_of} (lattice-desktop unhide RUN shows it again)",
            )
        self._item(menu, "Delete run…", lambda: self.delete(run_id), f"Delete the run and {deleted} for good")
        menu.addSeparator()
        menu.addAction(self.show_hidden_action)

    def _item(self, menu: QMenu, text: str, slot: Callable[[], None], tip: str = "") -> QAction:
        action = menu.addAction(text)
        action.setToolTip(tip)
        action.triggered.connect(slot)  # a GUI-thread signal: the lambda runs on the GUI thread
        return action

    @Slot(QPoint)
    def _on_context_menu(self, point: QPoint) -> None:
        panel = self.host.runs_panel
        run = panel.model.run_at(panel.proxy.mapToSource(panel.tree.indexAt(point)))
        if self.menu is not None:
            self.menu.deleteLater()  # the previous one (each is made for the row clicked)
        harness = panel.model.harness_at(panel.proxy.mapToSource(panel.tree.indexAt(point)))
        if run is not None:
            self.menu = self.menu_for(run)
        elif harness is not None:
            self.menu = self.menu_for_harness(harness)
        else:  # a group or no row: only what concerns the whole list
            self.menu = QMenu(self.window)
            self.menu.addAction(self.show_hidden_action)
        self.menu.popup(panel.tree.viewport().mapToGlobal(point))

    @Slot(bool)
    def _on_show_hidden(self, shown: bool) -> None:
        self.show_hidden = shown
        self.host.refresh_runs()

    # Acting on a run -----------------------------------------------------------------

    def regrade(self, run_id: int) -> None:
        if self.host.grading.running:
            self._say("Grading is already running — wait or Cancel it, then re-grade.", "warning")
            return
        self._with_run(run_id, self._regrade)

    def _regrade(self, run: StoredRun) -> None:
        case, folder = Path(run.manifest_path), Path(run.submission_path)
        for path, what in ((case, "case manifest"), (folder / "submission.toml", "submission")):
            if not path.is_file():
                self._say(f"Cannot re-grade run {run.id}: its {what} is no longer at {path}.", "error")
                return
        self.host.open_case(case)
        self.host.grade_submission(folder)

    def open_folder(self, run_id: int, which: str) -> None:
        self._with_run(run_id, lambda run: self._open_folder(run, which))

    def _open_folder(self, run: StoredRun, which: str) -> None:
        folder = Path(run.submission_path) if which == "submission" else Path(run.manifest_path).parent
        if not folder.is_dir():
            self._say(f"The {which} folder of run {run.id} is no longer at {folder}.", "warning")
            return
        self.open_url(QUrl.fromLocalFile(str(folder)))

    def copy_path(self, run_id: int, which: str) -> None:
        self._with_run(run_id, lambda run: self._copy(run, which))

    def _copy(self, run: StoredRun, which: str) -> None:
        self._copy_text(run.submission_path if which == "submission" else run.manifest_path)

    def _copy_text(self, path: str) -> None:
        QGuiApplication.clipboard().setText(path)
        self.host.statusBar().showMessage(f"Copied {path}", 5000)

    def set_hidden(self, run_id: int, hidden: bool) -> None:
        fn = hide_runs if hidden else unhide_runs
        self._write(fn, [run_id], self._after_hiding(run_id, hidden))

    def _after_hiding(self, run_id: int, hidden: bool) -> Callable[[object], None]:
        def done(_count: object) -> None:
            self._step_off(run_id)
            self._say(
                f"Run {run_id} is hidden: the field and the leaderboard leave it out "
                f"(lattice-desktop unhide {run_id} shows it again)."
                if hidden
                else f"Run {run_id} counts in the field again.",
                "info",
            )

        return done

    def delete(self, run_id: int, *, confirmed: bool = False) -> None:
        if not confirmed:
            answer = QMessageBox.question(
                self.window,
                "Delete run",
                f"Delete run {run_id} and every result it holds, for good?\n\n"
                "Hide run keeps it and only leaves it out of the field.",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel,
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        self._write(delete_runs, [run_id], self._after_deleting(run_id))

    def _after_deleting(self, run_id: int) -> Callable[[object], None]:
        def done(_count: object) -> None:
            self._step_off(run_id)
            self._say(f"Run {run_id} deleted, with its results.", "info")

        return done

    def _step_off(self, run_id: int) -> None:
        """After a run left the list: if it was open, open its neighbour in the list; then
        refresh the list, the leaderboard and the open page (its standing has changed)."""
        harness = self.host.harness.page
        if harness is not None and harness.id == run_id:
            self._step_off_harness(run_id)
            return
        page = self.host.page
        if page is None or page.run.id != run_id:
            self.host.refresh_all()
            return
        ids = [s.id for s in self.host.runs_panel.model.summaries]
        rest = [i for i in ids if i != run_id]
        if rest:
            neighbour = rest[min(ids.index(run_id) if run_id in ids else 0, len(rest) - 1)]
            self.host.runs_panel.select_run(neighbour, notify=False)
            self.host.open_run(neighbour)
            self.host.refresh_runs()
            self.host.refresh_scores()
        else:
            self.host.refresh_all()

    def _step_off_harness(self, run_id: int) -> None:
        """The open harness run left the list: open the next harness run in it, if any."""
        ids = [h.id for h in self.host.runs_panel.model.harness]
        rest = [i for i in ids if i != run_id]
        if rest:
            neighbour = rest[min(ids.index(run_id) if run_id in ids else 0, len(rest) - 1)]
            self.host.runs_panel.select_harness_run(neighbour, notify=False)
            self.host.harness.open(neighbour)
            self.host.refresh_runs()
            self.host.refresh_scores()
        else:
            self.host.refresh_all()

    # Plumbing ------------------------------------------------------------------------

    def _with_run(self, run_id: int, then: Callable[[StoredRun], None]) -> None:
        """Read the run off the GUI thread, then act on it here."""
        self._then = then
        self._load.request(load_run, run_id)

    def _on_loaded(self, run: StoredRun | None) -> None:
        then, self._then = self._then, None
        if run is None:
            self._say("That run is no longer in the database.", "warning")
            self.host.refresh_runs()
        elif then is not None:
            then(run)

    def _write(self, fn: Callable[..., object], run_ids: list[int], done: Callable[[object], object]) -> None:
        task = tasks.Task(self.host.writer.call, fn, run_ids)
        self._done = _Once(done, self)
        task.signals.done.connect(self._done.call)
        task.signals.failed.connect(self._failed)
        tasks.start(task)

    @Slot(str, str)
    def _failed(self, message: str, details: str) -> None:
        self.host.report_failure(message, details)

    def _say(self, text: str, kind: str) -> None:
        self.host.message_bar.show_message(text, kind=kind)


class _Once(QObject):
    """A slot on the GUI thread that hands a task's answer to a plain callable."""

    def __init__(self, fn: Callable[[object], object], parent: QObject) -> None:
        super().__init__(parent)
        self.fn = fn

    @Slot(object)
    def call(self, value: object) -> None:
        self.fn(value)
        self.deleteLater()
