"""Help menu dialogs: the user guide (docs/guide.md, rendered), every keyboard shortcut
(read from the window's own actions and the Factory tab's keys, so the list cannot drift
from what the keys do) and About."""

from __future__ import annotations

import sys
from pathlib import Path

import PySide6
from PySide6.QtCore import QEvent, QUrl, qVersion
from PySide6.QtGui import (
    QAction,
    QGuiApplication,
    QImage,
    QKeySequence,
    QPixmap,
    QShortcut,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMainWindow,
    QMenu,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

import lattice_desktop
from lattice_desktop import __version__
from lattice_desktop.sandbox.engine import WASMTIME_VERSION

FUEL_NOTE = (
    "Fuel is comparable only within one wasmtime version: a new release may count "
    "the same work differently, so every stored run records the version it was graded with."
)


def guide_path() -> Path:
    """docs/guide.md: beside the package in a checkout (found from the package, not this
    module, so it holds wherever the module sits), in the bundle's folder when frozen
    (packaging/lattice-desktop.spec ships docs/ there, with the guide's screenshots)."""
    frozen = getattr(sys, "_MEIPASS", None)
    root = Path(frozen) if frozen else Path(lattice_desktop.__file__).resolve().parents[1]
    return root / "docs" / "guide.md"


class GuideBrowser(QTextBrowser):
    """A text browser that scales each screenshot down to its width (never up), keeping its
    shape, whenever it is resized, so the guide reads without scrolling sideways."""

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit_images()
        return super().viewportEvent(event)

    def fit_images(self) -> None:
        doc = self.document()
        room = self.viewport().width() - 2 * doc.documentMargin() - 8
        block = doc.begin()
        while block.isValid():
            fragments = block.begin()
            while not fragments.atEnd():
                fragment = fragments.fragment()
                if fragment.charFormat().isImageFormat():
                    image = fragment.charFormat().toImageFormat()
                    natural = doc.resource(QTextDocument.ResourceType.ImageResource, QUrl(image.name()))
                    if isinstance(natural, QPixmap | QImage) and natural.width() > 0:
                        image.setWidth(min(natural.width(), max(room, 50)))
                        cursor = QTextCursor(doc)
                        cursor.setPosition(fragment.position())
                        cursor.setPosition(
                            fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor
                        )
                        cursor.setCharFormat(image)
                fragments += 1
            block = block.next()


class GuideDialog(QDialog):
    """The user guide, rendered from its Markdown with its screenshots; links to the other
    docs open in the same window, web links in the browser."""

    def __init__(self, path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Lattice Desktop — User guide")
        self.browser = GuideBrowser(self)
        self.browser.setOpenExternalLinks(True)
        if path.is_file():
            self.browser.setSource(QUrl.fromLocalFile(str(path)), QTextDocument.ResourceType.MarkdownResource)
        else:
            self.browser.setMarkdown(
                f"# The user guide is missing\n\nThis installation has no `{path}`. "
                "The guide is docs/guide.md in the Lattice Desktop source."
            )
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        screen = QGuiApplication.primaryScreen().availableGeometry()
        self.resize(min(960, screen.width() - 40), min(820, screen.height() - 60))


def shortcut_rows(window: QMainWindow, factory: QWidget) -> list[tuple[str, str, str]]:
    """(where, what, keys) for each menu action with a shortcut and each Factory tab key."""
    native = QKeySequence.SequenceFormat.NativeText
    rows: list[tuple[str, str, str]] = []
    for menu_action in window.menuBar().actions():
        menu = menu_action.menu()
        rows.extend(
            (
                menu_action.text().replace("&", ""),
                action.text().replace("&", ""),
                action.shortcut().toString(native),
            )
            for action in (menu.actions() if isinstance(menu, QMenu) else [])
            if isinstance(action, QAction) and not action.shortcut().isEmpty()
        )
    rows.extend(
        ("Factory tab", shortcut.whatsThis(), shortcut.key().toString(native))
        for shortcut in factory.findChildren(QShortcut)
        if shortcut.whatsThis()
    )
    return rows


class ShortcutsDialog(QDialog):
    def __init__(self, rows: list[tuple[str, str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.table = QTableWidget(len(rows), 3, self)
        self.table.setHorizontalHeaderLabels(["Where", "Action", "Keys"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for row, values in enumerate(rows):
            for col, text in enumerate(values):
                self.table.setItem(row, col, QTableWidgetItem(text))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(560, 520)

    def texts(self) -> list[tuple[str, ...]]:
        items = ((self.table.item(r, c) for c in range(3)) for r in range(self.table.rowCount()))
        return [tuple(item.text() if item else "" for item in row) for row in items]


def about_text() -> str:
    return (
        f"<h3>Lattice Desktop {__version__}</h3>"
        "<p>Grades WebAssembly submissions against performance cases — correctness first, "
        "fuel second — and plays the Lattice factory snapshot by snapshot.</p>"
        f"<p>wasmtime {WASMTIME_VERSION}<br>Qt {qVersion()} (PySide6 {PySide6.__version__})</p>"
        f"<p>{FUEL_NOTE}</p>"
    )


def about_box(parent: QWidget) -> QMessageBox:
    box = QMessageBox(
        QMessageBox.Icon.NoIcon,
        "About Lattice Desktop",
        about_text(),
        QMessageBox.StandardButton.Close,
        parent,
    )
    box.setIconPixmap(parent.windowIcon().pixmap(64, 64))
    return box
