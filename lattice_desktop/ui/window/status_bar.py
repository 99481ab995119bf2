"""The main window's status bar, one message at a time.

QStatusBar paints a `showMessage` text over its normal widgets and hides them only at
the moment the message starts; a progress widget shown afterwards (grading began while a
harness import was being announced) is drawn on top of the text. Here a message is a
label of its own, laid out beside the others, and it steps aside while a progress widget
(grading, a batch) is showing: the progress is the message then. It comes back when the
progress goes, until its timeout."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer, Slot
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget


class StatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note = QLabel(self)
        self.note.setObjectName("statusNote")
        self.note.setMinimumWidth(1)  # a long message is cut, never widens the window
        self._progress: list[QWidget] = []
        self.facts: list[QLabel] = []
        self._expiry = QTimer(self, singleShot=True)
        self._expiry.timeout.connect(self.clearMessage)
        super().addWidget(self.note, 1)
        self.note.hide()

    def addWidget(self, widget: QWidget, stretch: int | None = 0) -> None:
        """A progress widget: shown, it takes the message's place."""
        self.insertWidget(len(self._progress), widget, stretch or 0)
        self._progress.append(widget)
        widget.installEventFilter(self)
        self._arrange()

    def add_facts(self, *facts: tuple[str, str]) -> None:
        """Labels kept at the right whatever happens (the database, the wasmtime version),
        each as (text, tooltip)."""
        for text, tip in facts:
            label = QLabel(text, self)
            label.setToolTip(tip)
            self.addPermanentWidget(label)
            self.facts.append(label)

    @Slot(str, int)
    def showMessage(self, text: str, timeout: int | None = 0) -> None:
        self.note.setText(text)
        self.note.setToolTip(text)
        if timeout:
            self._expiry.start(timeout)
        else:
            self._expiry.stop()
        self._arrange()

    @Slot()
    def clearMessage(self) -> None:
        self._expiry.stop()
        self.note.clear()
        self._arrange()

    def currentMessage(self) -> str:
        return self.note.text()

    def busy(self) -> bool:
        """Whether a progress widget is showing (it is the status then)."""
        return any(not widget.isHidden() for widget in self._progress)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched in self._progress and event.type() in (QEvent.Type.Show, QEvent.Type.Hide):
            self._arrange()
        return False

    def _arrange(self) -> None:
        self.note.setVisible(bool(self.note.text()) and not self.busy())
