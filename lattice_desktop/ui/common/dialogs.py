"""Dialogs: the gate before running a submission's build commands, file choosers (cases,
submissions, harness boxes and traces, exports) that all start in the folder the user
last chose from, and the recent cases, submissions and scenarios kept in QSettings."""

from __future__ import annotations

from enum import Enum
from html import escape
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.manifest import Submission
from lattice_desktop.resources import CASES
from lattice_desktop.ui.common import theme

RECENT_LIMIT = 8


class BuildChoice(Enum):
    BUILD = "build"  # run the commands, then grade what they produce
    SHIPPED = "shipped"  # grade the module already in the folder, run nothing
    CANCEL = "cancel"


class BuildConfirmDialog(QDialog):
    """Shows the exact commands a submission wants to run. Nothing runs unless the user
    presses "Run build and grade"; a submission that ships its module can be graded
    without running anything."""

    def __init__(self, submission: Submission, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Run this submission's build commands?")
        self.choice = BuildChoice.CANCEL
        intro = QLabel(
            f"<b>{submission.name}</b> ({submission.model}) asks to run these commands on this "
            "computer to build its module. They are someone else's code: run them only if "
            "you trust the submission. They run in a scratch copy of the folder with a "
            "cleaned environment and a time limit."
        )
        intro.setWordWrap(True)
        commands = QPlainTextEdit("\n".join(f"$ {c}" for c in submission.commands), readOnly=True)
        commands.setFont(theme.monospace())
        commands.setMinimumSize(560, 120)
        self.commands = commands
        shipped = submission.module_path.is_file()
        note = QLabel(
            f"The folder already holds its module ({submission.module}): you can grade it without building."
            if shipped
            else f"The folder does not hold {submission.module} yet: it can only be graded by building."
        )
        note.setWordWrap(True)
        buttons = QDialogButtonBox()
        self.build_button = QPushButton("Run build and grade")
        self.shipped_button = QPushButton("Grade shipped module")
        self.shipped_button.setEnabled(shipped)
        cancel = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.addButton(self.build_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.shipped_button, QDialogButtonBox.ButtonRole.AcceptRole)
        cancel.setDefault(True)  # Enter never runs someone else's commands
        self.build_button.clicked.connect(self._build)
        self.shipped_button.clicked.connect(self._shipped)
        cancel.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(commands)
        layout.addWidget(note)
        layout.addWidget(buttons)

    def _build(self) -> None:
        self.choice = BuildChoice.BUILD
        self.accept()

    def _shipped(self) -> None:
        self.choice = BuildChoice.SHIPPED
        self.accept()


class UnisolatedBuildDialog(QDialog):
    """The second confirmation, shown only where the build jail cannot be set up: it names
    the reason, and nothing runs unless the user presses "Run without isolation"."""

    def __init__(self, reason: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Build without isolation?")
        self.allowed = False
        self.reason = QLabel(
            f"<b>The build jail cannot be set up here:</b> {escape(reason)}.<br><br>"
            "Without it the build commands run with <i>your</i> rights: they can read your "
            "files, write outside the scratch folder and reach the network. Run them only if "
            "you fully trust this submission."
        )
        self.reason.setWordWrap(True)
        buttons = QDialogButtonBox()
        self.run_button = QPushButton("Run without isolation")
        cancel = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.addButton(self.run_button, QDialogButtonBox.ButtonRole.AcceptRole)
        cancel.setDefault(True)
        self.run_button.clicked.connect(self._allow)
        cancel.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.reason)
        layout.addWidget(buttons)

    def _allow(self) -> None:
        self.allowed = True
        self.accept()


class DialogFolder:
    """Where file dialogs start: the folder of the last file or folder the user chose in any
    of them, or the bundled samples the first time — never the program's working folder,
    which is wherever it was started from (often its own source tree)."""

    KEY = "dialogs/folder"

    def __init__(self, settings: QSettings) -> None:
        self.settings = settings

    def start(self) -> Path:
        last = self.settings.value(self.KEY, "")
        if isinstance(last, str) and last and Path(last).is_dir():
            return Path(last)
        samples = CASES / "lattice" / "submissions"
        return samples if samples.is_dir() else Path.home()

    def remember(self, chosen: Path) -> None:
        """The next dialog starts beside `chosen` (inside it, when it is a folder)."""
        self.settings.setValue(self.KEY, str(chosen if chosen.is_dir() else chosen.parent))

    def chosen(self, path: str) -> Path | None:
        if not path:
            return None
        self.remember(Path(path))
        return Path(path)


def _open_file(parent: QWidget, folder: DialogFolder, title: str, pattern: str) -> Path | None:
    path, _ = QFileDialog.getOpenFileName(parent, title, str(folder.start()), pattern)
    return folder.chosen(path)


def _open_files(parent: QWidget, folder: DialogFolder, title: str, pattern: str) -> list[Path]:
    names, _ = QFileDialog.getOpenFileNames(parent, title, str(folder.start()), pattern)
    if names:
        folder.remember(Path(names[-1]))
    return [Path(name) for name in names]


def _open_folder(parent: QWidget, folder: DialogFolder, title: str) -> Path | None:
    return folder.chosen(QFileDialog.getExistingDirectory(parent, title, str(folder.start())))


def choose_case_file(parent: QWidget, folder: DialogFolder) -> Path | None:
    pattern = "Case manifests (case.toml *.toml);;All files (*)"
    return _open_file(parent, folder, "Open case manifest", pattern)


def choose_submission_folder(parent: QWidget, folder: DialogFolder) -> Path | None:
    return _open_folder(parent, folder, "Choose a submission folder (holding submission.toml)")


def choose_submissions_folder(parent: QWidget, folder: DialogFolder) -> Path | None:
    return _open_folder(parent, folder, "Grade many: choose a folder of submission folders")


def choose_scenario_files(parent: QWidget, folder: DialogFolder) -> list[Path]:
    return _open_files(parent, folder, "Open scenario", "Lattice scenarios (*.lat);;All files (*)")


def choose_harness_box(parent: QWidget, folder: DialogFolder) -> Path | None:
    title = "Import harness run: 1. the box definition"
    return _open_file(parent, folder, title, "Harness boxes (*.toml);;All files (*)")


def choose_harness_traces(parent: QWidget, folder: DialogFolder) -> list[Path]:
    return _open_files(
        parent,
        folder,
        "Import harness run: 2. run traces or Inspect AI logs recorded against that box",
        "Run traces and Inspect AI logs (*.jsonl *.eval *.json);;Run traces (*.jsonl);;"
        "Inspect AI logs (*.eval *.json);;All files (*)",
    )


def choose_save_path(
    parent: QWidget, folder: DialogFolder, title: str, name: str, pattern: str
) -> Path | None:
    """A file to write, suggested as `name` in the folder the user was last in."""
    path, _ = QFileDialog.getSaveFileName(parent, title, str(folder.start() / name), pattern)
    return folder.chosen(path)


class Recent:
    """Recently used paths of one kind, newest first, kept across sessions."""

    def __init__(self, key: str, settings: QSettings | None = None) -> None:
        self.key = f"recent/{key}"
        self.settings = settings or QSettings()

    def items(self) -> list[str]:
        value = self.settings.value(self.key, [])
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value] if isinstance(value, list | tuple) else []

    def add(self, path: str | Path) -> None:
        text = str(path)
        items = [text] + [p for p in self.items() if p != text]
        self.settings.setValue(self.key, items[:RECENT_LIMIT])

    def remove(self, path: str | Path) -> None:
        self.settings.setValue(self.key, [p for p in self.items() if p != str(path)])
