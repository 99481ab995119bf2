"""Work run off the GUI thread where only the newest request's answer counts: asking
again while one is in flight makes the older answer stale (and cancels its `Work`, if it
has one), never queued work the user waits behind (the napari layer-slicer idea).

The query keeps no QObject per request: each task's signals are connected to the query's
own slots, which tell the requests apart by their sender. A per-request QObject that is
the query's Qt child and also points back at it makes a reference cycle (the binding keeps
a child's wrapper alive from its parent's), and a cycle leaves a parentless query to the
cyclic garbage collector, which may run on any thread — a worker's — and delete Qt objects
of the GUI thread from there."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from peewee import Database
from PySide6.QtCore import QObject, Signal, Slot

from lattice_desktop.store.base import db_proxy
from lattice_desktop.ui.common import tasks
from lattice_desktop.work import Step, Work


@dataclass(frozen=True)
class _Request:
    serial: int
    work: Work | None


class LatestQuery(tasks.Op):
    """`request(fn, *args)`; `on_result(value)` is called on the GUI thread for the
    newest request only. Errors come out of `failed` (message, traceback).

    With `request(fn, *args, work=True)`, `fn` gets a `work=` keyword: a newer request
    cancels it, and its steps reach `on_step` while it is the newest. With `db`, each
    request reads that database, whichever one was opened last."""

    failed = Signal(str, str)

    def __init__(
        self,
        on_result: Callable[[Any], None],
        parent: QObject | None = None,
        *,
        on_step: Callable[[Step], None] | None = None,
        db: Database | None = None,
    ) -> None:
        super().__init__(parent)
        self.db = db
        self._on_result = on_result
        self._on_step = on_step
        self._serial = 0
        self._pending: dict[QObject, _Request] = {}

    @property
    def busy(self) -> bool:
        return bool(self._pending)

    def request(self, fn: Callable[..., Any], *args: Any, work: bool = False) -> None:
        self.forget()
        task = (
            tasks.Task(fn, *args, work=work)
            if self.db is None
            else tasks.Task(_read, self.db, fn, *args, work=work)
        )
        signals = task.signals
        signals.progress.connect(self._step)
        signals.done.connect(self._answer)
        signals.failed.connect(self._fail)
        signals.cancelled.connect(self._cancelled)
        self._pending[signals] = _Request(self._serial, task.work)
        tasks.start(task)

    def forget(self) -> None:
        """Make every request in flight stale (none of their answers will be delivered)
        and cancel the work of those that have one."""
        self._serial += 1
        for req in self._pending.values():
            if req.work is not None:
                req.work.cancel()

    def cancel(self) -> None:
        self.forget()

    def _newest(self, req: _Request | None) -> bool:
        return req is not None and req.serial == self._serial

    @Slot(object)
    def _step(self, step: Step) -> None:
        if self._newest(self._pending.get(self.sender())) and self._on_step is not None:
            self._on_step(step)

    @Slot(object)
    def _answer(self, value: object) -> None:
        if self._newest(self._pending.pop(self.sender(), None)):
            self._on_result(value)

    @Slot(str, str)
    def _fail(self, message: str, details: str) -> None:
        if self._newest(self._pending.pop(self.sender(), None)):
            self.failed.emit(message, details)

    @Slot()
    def _cancelled(self) -> None:
        self._pending.pop(self.sender(), None)


def _read(db: Database, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args)` on the calling (worker) thread, with the store bound to `db`."""
    with db_proxy.bound(db):
        return fn(*args, **kwargs)
