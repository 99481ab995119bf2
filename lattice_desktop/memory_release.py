"""Handing freed memory back to the system.

A playback on a 2048² factory makes and drops arrays of tens of megabytes on worker
threads; glibc keeps what they freed in its per-thread heaps, so the app's resident size
grows by hundreds of megabytes it no longer uses. `give_back` asks glibc to return it
(`malloc_trim`); elsewhere it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools


@functools.cache
def _trim():  # the C function, or None where the C library has none
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


def give_back() -> bool:
    """Return freed heap memory to the system; True when the C library could."""
    trim = _trim()
    return bool(trim(0)) if trim is not None else False
