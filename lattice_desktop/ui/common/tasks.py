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

Whoever starts tasks on the user's behalf is an `Op` (grading, a batch, the keyframe walk,
a harness import, every `LatestQuery`): each registers itself, so a closing window stops
all of them with `cancel_all(window)` instead of naming each owner, and an op that writes
says what it `changed`, so only the views whose data changed are refreshed.
"""

from __future__ import annotations

import enum
import functools
import traceback
import weakref
from collections.abc import Callable
from typing import Any

import shiboken6
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


@functools.cache
def _the_keeper() -> _Keeper:
    """The one keeper, made on first use (the QApplication exists by then)."""
    keeper = _Keeper()
    app = QCoreApplication.instance()
    assert app is not None, "create the QApplication before starting tasks"
    keeper.moveToThread(app.thread())
    return keeper


def pool() -> QThreadPool:
    p = QThreadPool.globalInstance()
    if p.stackSize() < WORKER_STACK:
        p.setStackSize(WORKER_STACK)
    return p


def start(task: Task, on: QThreadPool | None = None) -> None:
    """Run `task` on the pool (or the pool `on`). Call on the GUI thread, after connecting its
    signals: the keeper holds them until the task's last signal, however early it is cancelled."""
    keeper = _the_keeper()
    task.signals.setParent(keeper)
    task.signals.finished.connect(keeper.release)
    (on or pool()).start(task)


class Changed(enum.Flag):
    """What an op changed in the database, so each view refreshes only when its data did."""

    NOTHING = 0
    RUNS = enum.auto()  # the runs list: a run (or harness run) was added or changed state
    SCORES = enum.auto()  # a run finished or went: what the leaderboards rank


class Op(QObject):
    """Background work started for the user. `cancel()` stops what it runs (between
    chunks); `changed` says what it stored. Every op is registered while it lives."""

    changed = Signal(object)  # Changed

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        _ops.add(self)

    def cancel(self) -> None:
        raise NotImplementedError(f"{type(self).__name__} must say how it is cancelled")


class Background(Op):
    """Its owner's one task that a newer start (or cancel) stops: a keyframe walk, a
    census count, the search for a first wrong tick, prewarming the demo."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.work: Work | None = None

    def start(self, task: Task) -> None:
        """Cancel the task started before, run `task` (made with `work=True`)."""
        self.cancel()
        self.work = task.work
        start(task)

    def cancel(self) -> None:
        if self.work is not None:
            self.work.cancel()
            self.work = None


_ops: weakref.WeakSet[Op] = weakref.WeakSet()


def _inside(obj: QObject, owner: QObject) -> bool:
    parent: QObject | None = obj
    while parent is not None:
        if parent is owner:
            return True
        parent = parent.parent()
    return False


def ops(owner: QObject | None = None) -> list[Op]:
    """The live ops (those inside `owner`'s object tree, when given)."""
    return [op for op in list(_ops) if shiboken6.isValid(op) and (owner is None or _inside(op, owner))]


def cancel_all(owner: QObject | None = None, *, timeout_ms: int = 30_000) -> bool:
    """Cancel every op (those inside `owner`'s object tree, when given) and wait for the
    pool; True when every worker has finished."""
    for op in ops(owner):
        op.cancel()
    return pool().waitForDone(timeout_ms)
