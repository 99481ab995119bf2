"""Long work off the GUI thread: a function runs on a pool thread, its result or its
error comes back through a signal to an object living on the GUI thread.

    task = Task(fn, arg, work=True)            # fn(arg, work=task.work) if work
    task.signals.done.connect(self.on_done)    # slot on a GUI-thread object, not a lambda
    task.signals.failed.connect(self.on_error) # (message, traceback text)
    task.signals.progress.connect(self.on_step)  # each `Step` the work reports
    tasks.start(task)
    task.work.cancel()                         # the function raises Cancelled between chunks

A `Task` is a QRunnable and not a QObject, so its signals live on a separate QObject
created by the caller (on the GUI thread). The pool deletes a finished runnable on its
worker thread, so `start` hands the signals to a keeper on the GUI thread, which deletes
them there once their last signal has been delivered.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QRunnable, QThreadPool, Signal, Slot

from lattice_desktop.errors import Cancelled, UserError
from lattice_desktop.work import Work

WORKER_STACK = 16 * 1024 * 1024  # wasm runs on the worker's native stack


class TaskSignals(QObject):
    done = Signal(object)  # the function's return value
    failed = Signal(str, str)  # message, traceback ("" for a user error)
    cancelled = Signal()
    progress = Signal(object)  # a `Step` the function's work reported
    finished = Signal()  # always last, whatever the outcome


class Task(QRunnable):
    def __init__(self, fn: Callable[..., Any], *args: Any, work: bool = False, **kwargs: Any) -> None:
        super().__init__()
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.signals = TaskSignals()
        self.work: Work | None = None
        if work:
            self.work = Work(self.signals.progress.emit)
            self.kwargs["work"] = self.work
        self.setAutoDelete(True)

    def run(self) -> None:
        try:
            result = self.fn(*self.args, **self.kwargs)
        except Cancelled:
            self.signals.cancelled.emit()
        except UserError as exc:
            self.signals.failed.emit(str(exc), "")
        except Exception as exc:  # unexpected: the user sees the traceback
            self.signals.failed.emit(f"{type(exc).__name__}: {exc}", traceback.format_exc())
        else:
            self.signals.done.emit(result)
        finally:
            self.signals.finished.emit()


class _Keeper(QObject):
    """Owns the signals of running tasks on the GUI thread; deletes each when it is done."""

    @Slot()
    def release(self) -> None:
        signals = self.sender()
        if signals is not None:
            signals.deleteLater()


_keeper: _Keeper | None = None


def _the_keeper() -> _Keeper:
    global _keeper
    if _keeper is None:
        _keeper = _Keeper()
        _keeper.moveToThread(QCoreApplication.instance().thread())
    return _keeper


def pool() -> QThreadPool:
    p = QThreadPool.globalInstance()
    if p.stackSize() < WORKER_STACK:
        p.setStackSize(WORKER_STACK)
    return p


def start(task: Task) -> None:
    """Run `task` on the pool. Call on the GUI thread, after connecting its signals."""
    keeper = _the_keeper()
    task.signals.setParent(keeper)
    task.signals.finished.connect(keeper.release)
    pool().start(task)
