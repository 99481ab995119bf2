"""Python's cyclic garbage collector runs on whichever thread happens to allocate when a
generation's threshold is crossed: in this app, usually a worker simulating a factory or
grading a submission. A Qt object found in a garbage cycle there is deleted on that worker
thread while it lives on the GUI thread (its pending events, its children, a paint in
progress), which crashes Qt. So the app turns automatic collection off and collects on the
GUI thread instead, from a timer, with the same thresholds (Anki does the same)."""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Slot

INTERVAL_MS = 500


class GuiThreadCollector(QObject):
    """Collects garbage cycles on the GUI thread only; `install()` makes the one."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect)
        gc.disable()
        self._timer.start()

    @Slot()
    def collect(self) -> int:
        """Collect the oldest generation whose threshold has been crossed, as automatic
        collection would; returns the number of objects found unreachable."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        generation = -1
        for gen, (count, threshold) in enumerate(zip(counts, thresholds, strict=True)):
            if threshold and count > threshold:
                generation = gen
        return gc.collect(generation) if generation >= 0 else 0


def install() -> GuiThreadCollector:
    """Turn on collection on the GUI thread for the running application (once)."""
    app = QCoreApplication.instance()
    assert app is not None, "create the QApplication first"
    existing = app.findChild(GuiThreadCollector)
    return existing if existing is not None else GuiThreadCollector(app)
