"""Work run off the GUI thread where only the newest request's answer counts: asking
again while one is in flight makes the older answer stale (and cancels its `Work`, if it
has one), never queued work the user waits behind (the napari layer-slicer idea)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from lattice_desktop.ui import tasks
from lattice_desktop.work import Step, Work


class _Request(QObject):
    """Lives on the GUI thread; receives one task's answer and hands it to its owner."""

    def __init__(self, owner: LatestQuery, serial: int, work: Work | None) -> None:
        super().__init__(owner)
        self.owner, self.serial, self.work = owner, serial, work

    @Slot(object)
    def on_step(self, step: Step) -> None:
        self.owner._step(self, step)

    @Slot(object)
    def on_done(self, value: object) -> None:
        self.owner._answer(self, value)

    @Slot(str, str)
    def on_failed(self, message: str, details: str) -> None:
        self.owner._fail(self, message, details)

    @Slot()
    def on_cancelled(self) -> None:
        self.owner._drop(self)


class LatestQuery(QObject):
    """`request(fn, *args)`; `on_result(value)` is called on the GUI thread for the
    newest request only. Errors come out of `failed` (message, traceback).

    With `request(fn, *args, work=True)`, `fn` gets a `work=` keyword: a newer request
    cancels it, and its steps reach `on_step` while it is the newest."""

    failed = Signal(str, str)

    def __init__(
        self,
        on_result: Callable[[Any], None],
        parent: QObject | None = None,
        *,
        on_step: Callable[[Step], None] | None = None,
    ) -> None:
        super().__init__(parent)
        self._on_result = on_result
        self._on_step = on_step
        self._serial = 0
        self._pending: set[_Request] = set()

    @property
    def busy(self) -> bool:
        return bool(self._pending)

    def request(self, fn: Callable[..., Any], *args: Any, work: bool = False) -> None:
        self.forget()
        task = tasks.Task(fn, *args, work=work)
        req = _Request(self, self._serial, task.work)
        task.signals.progress.connect(req.on_step)
        task.signals.done.connect(req.on_done)
        task.signals.failed.connect(req.on_failed)
        task.signals.cancelled.connect(req.on_cancelled)
        self._pending.add(req)
        tasks.start(task)

    def forget(self) -> None:
        """Make every request in flight stale (none of their answers will be delivered)
        and cancel the work of those that have one."""
        self._serial += 1
        for req in self._pending:
            if req.work is not None:
                req.work.cancel()

    def _step(self, req: _Request, step: Step) -> None:
        if req.serial == self._serial and self._on_step is not None:
            self._on_step(step)

    def _answer(self, req: _Request, value: object) -> None:
        if self._drop(req):
            self._on_result(value)

    def _fail(self, req: _Request, message: str, details: str) -> None:
        if self._drop(req):
            self.failed.emit(message, details)

    def _drop(self, req: _Request) -> bool:
        """Forget `req`; True when it was the newest request."""
        self._pending.discard(req)
        req.deleteLater()  # after the signal now being delivered
        return req.serial == self._serial
