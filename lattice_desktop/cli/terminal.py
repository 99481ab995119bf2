"""Text that reaches a terminal: everything a submission or a stored row wrote is escaped first.

A model name, an import name or a trap message is someone else's text. Printed raw, an escape
sequence in it retitles or clears the terminal and a newline forges a line of a table. `shown`
makes one value printable on one line; `SafeStream` wraps stdout and stderr so that nothing
printed by any command carries a control character, and writes each line whole so that the
progress lines of two worker threads never interleave mid-line. `ReaderSafeStream` lets the
reader of a pipe go away (`grade … 2>&1 | head -1`), or the stream's device fill up
(`2>/dev/full`), without changing what the command does or stores.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import TextIO

from lattice_desktop.formatting import printable


def shown(value: object, *, keep: str = "") -> str:
    """`value` as text with every control character written as a visible escape (`\\u001b`):
    `formatting.printable`, the one escaping the exports and harness pages use too.

    `keep` names control characters that stay as they are (the stream keeps newlines and tabs).
    """
    return printable(value, keep=keep)


class ReaderSafeStream:
    """A text stream that may stop taking text: its reader leaves (a closed pipe) or its device
    fails (full, or an I/O error). The first write or flush that fails points the stream's
    descriptor at /dev/null, so that write and every later one (and Python's own flush at exit)
    go nowhere: progress lines are only for a reader, and a stream that cannot take them must
    not fail the grading, change the stored verdict or the exit code. A failure other than a
    departed reader is kept in `failed`, so that the command can say its results were lost."""

    def __init__(self, target: TextIO) -> None:
        self.target = target
        self.reader_gone = False
        self.failed: OSError | None = None

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                self.target.write(text)
            except OSError as exc:
                self._lose_reader(exc)
        return len(text)

    def flush(self) -> None:
        if not self.reader_gone:
            try:
                self.target.flush()
            except OSError as exc:
                self._lose_reader(exc)

    def _lose_reader(self, exc: OSError) -> None:
        self.reader_gone = True
        if not isinstance(exc, BrokenPipeError):
            self.failed = exc
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
        except OSError:
            return
        try:
            os.dup2(devnull, self.target.fileno())
        except (OSError, ValueError, AttributeError):  # no descriptor (a test's StringIO)
            pass
        finally:
            os.close(devnull)

    def __getattr__(self, name: str) -> object:  # encoding, isatty, fileno, buffer…
        return getattr(self.target, name)


class SafeStream:
    """A text stream that escapes control characters (all but newline and tab) and writes whole
    lines under one lock, so lines from several threads never mix. Its reader may leave
    (`unescaped` is the same stream without the escaping, for text that is all ours)."""

    def __init__(self, target: TextIO) -> None:
        self.target = target
        self.unescaped = target if isinstance(target, ReaderSafeStream) else ReaderSafeStream(target)
        self._lock = threading.Lock()
        self._pending = threading.local()

    def write(self, text: str) -> int:
        pending = getattr(self._pending, "text", "") + text
        complete, newline, rest = pending.rpartition("\n")
        self._pending.text = rest
        if newline:
            with self._lock:
                self.unescaped.write(shown(complete + newline, keep="\n\t"))
        return len(text)

    def flush(self) -> None:
        rest = getattr(self._pending, "text", "")
        self._pending.text = ""
        with self._lock:
            if rest:
                self.unescaped.write(shown(rest, keep="\t"))
            self.unescaped.flush()

    def __getattr__(self, name: str) -> object:  # encoding, isatty, fileno, buffer…
        return getattr(self.target, name)


def open_standard_descriptors() -> None:
    """Point a closed descriptor 0, 1 or 2 at /dev/null, and give Python a stream for it.

    Started with `2>&-`, a process has no descriptor 2 and Python no `sys.stderr`: the next file
    it opens (the database) would be given descriptor 2, and what a build or a library writes
    to "stderr" would land in it. /dev/null takes the place first.
    """
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            devnull = os.open(os.devnull, os.O_RDWR)
            if devnull != fd:
                os.dup2(devnull, fd)
                os.close(devnull)
    for name, fd in (("stdout", 1), ("stderr", 2)):
        if getattr(sys, name) is None:
            # Kept open for the process's life, as Python's own streams are.
            stream = open(fd, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
            setattr(sys, name, stream)
