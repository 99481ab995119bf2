"""Qt's own log messages, as a user sees them on stderr: all of them, except the one line
the offscreen platform prints each time a shown window's size hints change (it says only
that the platform has no windows to hint)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler

PLATFORM_NOISE = "does not support propagateSizeHints"


@contextmanager
def quiet_platform() -> Iterator[None]:
    def handler(_kind: QtMsgType, _context: QMessageLogContext, message: str) -> None:
        if PLATFORM_NOISE not in message:
            print(message, file=sys.stderr)

    previous = qInstallMessageHandler(handler)
    try:
        yield
    finally:
        qInstallMessageHandler(previous)
