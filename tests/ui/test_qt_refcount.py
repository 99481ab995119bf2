"""Guard for the installed PySide6: void Qt calls must not leak references to None.

PySide6 6.12.0 on Python 3.11 takes one reference from None on every call to a Qt
method returning void, which aborts the interpreter ("deallocating None") after a few
thousand calls; pyproject.toml excludes that release. This catches it coming back.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QLabel


def test_void_qt_calls_keep_none_alive(qtbot):
    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for _ in range(2000):
        label.setText("x")
        label.hide()
    assert sys.getrefcount(None) - before > -50
