"""An inline message at the top of the window for user errors (a bad manifest, a missing
module, a failed build): what went wrong and where, until dismissed."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from lattice_desktop.ui.common import theme


class MessageBar(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageBar")
        self.icon = QLabel()
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        copy = QToolButton()
        copy.setText("Copy")
        copy.clicked.connect(self._copy)
        close = QToolButton()
        close.setText("✕")
        close.setToolTip("Dismiss")
        close.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.addWidget(self.icon)
        layout.addWidget(self.text, 1)
        layout.addWidget(copy)
        layout.addWidget(close)
        self.hide()

    def show_message(self, text: str, *, kind: str = "error") -> None:
        colour = {"error": theme.RED, "warning": theme.AMBER, "info": theme.BLUE}[kind]
        symbol = {"error": "✗", "warning": "▲", "info": "ℹ"}[kind]
        self.icon.setText(symbol)
        self.text.setText(text)
        self.setStyleSheet(
            f"#messageBar {{ background: {theme.tint(colour, 40).name(QColor.NameFormat.HexArgb)};"
            f" border: 1px solid {colour.name()}; border-radius: 4px; }}"
        )
        self.show()

    def message(self) -> str:
        return "" if self.isHidden() else self.text.text()

    def _copy(self) -> None:
        QApplication.clipboard().setText(self.text.text())
