"""Ctrl+C (SIGINT) and SIGTERM close the app as its close button does.

Python runs a signal's handler only when the interpreter next gets control, which a Qt
event loop waiting in C++ may not give it for minutes; and Python's default SIGINT handler
raises KeyboardInterrupt in whatever Python code runs next — a Qt slot, where it becomes a
traceback and stops nothing. So the handlers installed here only note the signal, and
`signal.set_wakeup_fd` makes the C-level handler write its number into a socket pair whose
reading end a QSocketNotifier watches: the event loop wakes at once and the window closes
through its `closeEvent`, which cancels every op (the proper way, per Qt's and Python's docs).

A SIGINT the app inherited ignored (started with `nohup` or `&` by a non-interactive shell)
stays ignored, as a shell expects.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Callable, Iterable
from types import FrameType

from PySide6.QtCore import QObject, QSocketNotifier, Signal, Slot

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def handled(signals: Iterable[int] = STOP_SIGNALS) -> list[int]:
    """The stop signals this process should act on: those it did not inherit ignored."""
    return [sig for sig in signals if signal.getsignal(sig) is not signal.SIG_IGN]


class StopSignals(QObject):
    """Turns SIGINT and SIGTERM into `received(signum)`, emitted from the GUI thread's event
    loop; `already` are those the launcher noted before Qt was imported (see
    `launcher.note_stop_signals`); `uninstall()` puts back what was there before."""

    received = Signal(int)

    def __init__(self, parent: QObject | None = None, *, already: Iterable[int] = ()) -> None:
        super().__init__(parent)
        self._reader, self._writer = socket.socketpair()
        for end in (self._reader, self._writer):
            end.setblocking(False)
        self._old_fd = signal.set_wakeup_fd(self._writer.fileno(), warn_on_full_buffer=False)
        self._old: dict[int, Callable[..., object] | int | None] = {}
        for sig in handled():
            self._old[sig] = signal.signal(sig, self._note)
        self._notifier = QSocketNotifier(self._reader.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._wake)
        for sig in already:  # noted before this existed: acted on when the loop runs
            self._writer.send(bytes([sig]))

    def _note(self, _signum: int, _frame: FrameType | None) -> None:
        """The Python-level handler: the wakeup fd already carries the signal, so nothing
        is left to do here — above all, nothing is raised inside whatever code runs now."""

    @Slot()
    def _wake(self) -> None:
        try:
            numbers = self._reader.recv(64)
        except BlockingIOError:
            return
        for signum in numbers:
            if signum in self._old:  # the wakeup fd carries every signal Python handles
                self.received.emit(signum)

    def uninstall(self) -> None:
        self._notifier.setEnabled(False)
        signal.set_wakeup_fd(self._old_fd)
        for sig, old in self._old.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)
        self._reader.close()
        self._writer.close()
