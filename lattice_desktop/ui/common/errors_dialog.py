"""Unexpected errors reach the user with their traceback; nothing is swallowed."""

from __future__ import annotations

import sys
import traceback
from types import TracebackType

from PySide6.QtWidgets import QApplication, QMessageBox, QWidget


class ErrorDialog(QMessageBox):
    """ "Something went wrong in Lattice Desktop" with the traceback under Show Details…
    Opened window-modal (not exec) so work in the background keeps going."""

    def __init__(
        self, parent: QWidget | None, message: str, details: str, *, title: str = "Internal error"
    ) -> None:
        super().__init__(parent)
        self.setIcon(QMessageBox.Icon.Critical)
        self.setWindowTitle(title)
        self.setText("Something went wrong inside Lattice Desktop — a bug, not a problem with your files.")
        self.setInformativeText(message)
        self.setDetailedText(details)
        self.setStandardButtons(QMessageBox.StandardButton.Close)
        copy = self.addButton("Copy details", QMessageBox.ButtonRole.ActionRole)
        copy.clicked.disconnect()
        copy.clicked.connect(self.copy_details)

    def copy_details(self) -> None:
        QApplication.clipboard().setText(f"{self.informativeText()}\n\n{self.detailedText()}")


def show_error(parent: QWidget | None, message: str, details: str) -> ErrorDialog:
    dialog = ErrorDialog(parent, message, details)
    dialog.open()
    return dialog


def install_excepthook() -> None:
    """An exception escaping a slot opens the error dialog instead of vanishing in stderr."""

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        details = "".join(traceback.format_exception(kind, value, tb))
        if sys.__stderr__ is not None:
            sys.__stderr__.write(details)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            show_error(app.activeWindow(), f"{kind.__name__}: {value}", details)

    sys.excepthook = hook
