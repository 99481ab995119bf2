"""Text that reaches a terminal: everything a submission or a stored row wrote is escaped first.

A model name, an import name or a trap message is someone else's text. Printed raw, an escape
sequence in it retitles or clears the terminal and a newline forges a line of a table. `shown`
makes one value printable on one line; `SafeStream` wraps stdout and stderr so that nothing
printed by any command carries a control character, and writes each line whole so that the
progress lines of two worker threads never interleave mid-line. `ReaderSafeStream` lets the
reader of a pipe go away (`grade … 2>&1 | head -1`) without changing what the command does.
"""

from __future__ import annotations

import os
import re
import threading
from functools import lru_cache
from typing import TextIO

# Control characters (C0, DEL, C1), line and paragraph separators, and the format characters
# that reorder or hide text (bidirectional marks, embeddings, overrides and isolates).
_UNSAFE = "\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"


@lru_cache(maxsize=8)
def _pattern(keep: str) -> re.Pattern[str]:
    unsafe = f"[{_UNSAFE}]"
    return re.compile(unsafe if not keep else f"(?![{re.escape(keep)}]){unsafe}")


def _escaped(match: re.Match[str]) -> str:
    """`\\u001b`: readable, and still valid where it lands inside a JSON string."""
    return f"\\u{ord(match.group()):04x}"


def shown(value: object, *, keep: str = "") -> str:
    """`value` as text with every control character written as a visible escape (`\\u001b`).

    `keep` names control characters that stay as they are (the stream keeps newlines and tabs).
    """
    return _pattern(keep).sub(_escaped, str(value))


class ReaderSafeStream:
    """A text stream whose reader may leave. The first write that finds the pipe closed points
    the stream's descriptor at /dev/null, so that write and every later one (and Python's own
    flush at exit) go nowhere: progress lines are only for a reader, and a reader's leaving
    must not fail the grading, change the stored verdict or the exit code."""

    def __init__(self, target: TextIO) -> None:
        self.target = target
        self.reader_gone = False

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                self.target.write(text)
            except BrokenPipeError:
                self._lose_reader()
        return len(text)

    def flush(self) -> None:
        if not self.reader_gone:
            try:
                self.target.flush()
            except BrokenPipeError:
                self._lose_reader()

    def _lose_reader(self) -> None:
        self.reader_gone = True
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
