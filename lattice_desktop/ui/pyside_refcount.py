"""A guard against a reference-count bug seen with PySide6 6.12 on Python 3.11.

Every call to a Qt method returning void (``setText``, ``deleteLater``, ``hide`` …)
takes one reference from ``None`` without giving it (measured with
``sys.getrefcount(None)``: -1 per call). ``None`` starts with a few thousand
references, so after enough calls Python aborts with "none_dealloc: deallocating None"
— at exit, or mid-session. Python 3.12 made these singletons immortal, which is why
the bug does not show there. Until PySide is fixed, give the singletons more references
than any session can lose.
"""

from __future__ import annotations

import ctypes
import sys

_MARGIN = 1 << 40


def pin_singletons() -> None:
    """Make None, True and False effectively immortal on Python < 3.12 (CPython only)."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return
    for obj in (None, True, False):
        refcount = ctypes.c_ssize_t.from_address(id(obj))  # ob_refcnt is PyObject's first field
        if refcount.value < _MARGIN:
            refcount.value += _MARGIN
