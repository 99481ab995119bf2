"""What the Factory tab shows where the map would be when there is no factory to draw: a
scenario file that could not be opened, with its error (file, line, what is wrong) in
words that wrap to the map's width — never a faint line in the toolbar over a black map,
and never a line so long it widens the window past the screen."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, Slot
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QVBoxLayout

from lattice_desktop.manifest import CaseManifest
from lattice_desktop.ui.factory.canvas import FactoryCanvas

TEXT_WIDTH = 620  # the message's widest line (px), however wide the map is


def no_factory_text(run_open: bool, case: CaseManifest | None) -> str:
    """Why the tab has no factory to show: no run is open, or the run's case is not a
    Lattice one (the Factory tab replays Lattice scenarios only; Results, Fuel, Leaderboard
    and Profile apply to every case)."""
    if not run_open:
        return "No run open — pick a run in the runs list to replay its factory."
    if case is not None and case.family != "lattice-v1":
        return (
            f"The Factory tab applies to Lattice cases only: {case.name} {case.version} has no "
            "factory to replay. Results, Fuel, Leaderboard and Profile show this run."
        )
    return "This run has no Lattice scenarios to replay."


class MapMessage(QFrame):
    """A message laid over `canvas` (its child, kept at its size), hidden until shown and
    again once the canvas shows another scenario. `source()` names what was being opened."""

    def __init__(self, canvas: FactoryCanvas, source: Callable[[], str | None]) -> None:
        super().__init__(canvas)
        self._source = source
        self.setObjectName("mapMessage")
        self.setAutoFillBackground(True)
        self.title = QLabel(self)
        self.title.setObjectName("mapMessageTitle")
        self.body = QLabel(self)
        self.hint = QLabel(self)
        for label in (self.title, self.body, self.hint):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)
            # Ignored: a long word (a path) may not set the label's, and so the window's, width.
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.25)
        self.title.setFont(font)
        self.hint.setStyleSheet("color: palette(mid);")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 24)
        layout.addStretch(1)
        for label in (self.title, self.body, self.hint):
            layout.addWidget(label, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(1)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        canvas.installEventFilter(self)
        canvas.scenario_set.connect(self.hide)
        self.hide()

    @Slot(str, str)
    def show_open_error(self, message: str, details: str = "") -> None:
        """What was being opened (a scenario file or a run's scenario) could not be: say why
        (`details`: a traceback, for a bug)."""
        source = self._source()
        name = Path(source).name if source else "The scenario"
        self.title.setText(f"⚠ {name} could not be opened")
        where, what = split_location(message, source)
        self.body.setText(what)
        self.body.setToolTip(details or message)
        hint = (
            "This is a bug in Lattice Desktop, not in the file: its traceback is in the tooltip."
            if details
            else "Fix the file and open it again (File › Open scenario…, Ctrl+Shift+O), "
            "or pick another scenario above."
        )
        self.hint.setText(f"{where}\n\n{hint}" if where else hint)
        self._fit()
        self.show()
        self.raise_()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize:
            self._fit()
        return False

    def _fit(self) -> None:
        parent = self.parentWidget()
        if parent is not None:
            self.setGeometry(parent.rect())
            width = max(120, min(TEXT_WIDTH, parent.width() - 48))
            for label in (self.title, self.body, self.hint):
                label.setFixedWidth(width)


def split_location(message: str, source: str | None) -> tuple[str, str]:
    """("in FILE", "line N: what is wrong") from "FILE:N: what is wrong" when the message
    starts with `source`; else ("", message). The path goes below: it is long, the fault short."""
    if not source or not message.startswith(f"{source}:"):
        return "", message
    rest = message[len(source) + 1 :]
    line, _, what = rest.partition(": ")
    if line.isdigit() and what:
        return f"in {source}", f"Line {line}: {what}"
    return f"in {source}", rest.strip()
