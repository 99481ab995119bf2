"""Make sure wasm runs on a native stack deep enough for `max_wasm_stack`.

Wasm runs on the calling thread's stack. If that stack is smaller than the engine's
`max_wasm_stack` plus room for the host frames, deep recursion runs into the guard page
before wasmtime's own limit and the whole process dies with SIGSEGV instead of a clean
`stack_overflow` trap. `on_deep_stack(fn)` runs `fn` where it is safe: on the calling
thread when its stack is big enough, otherwise on a fresh thread with `WORKER_STACK`.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from collections.abc import Callable
from typing import TypeVar, cast

from lattice_desktop.sandbox.engine import WORKER_STACK
from lattice_desktop.sandbox.engine_config import MAX_WASM_STACK

T = TypeVar("T")

HOST_MARGIN = 4 * 1024 * 1024  # Python, ctypes and wasmtime host frames below the wasm frames
NEEDED = MAX_WASM_STACK + HOST_MARGIN

_local = threading.local()
_spawn_lock = threading.Lock()


def current_stack_size() -> int | None:
    """The calling thread's native stack size in bytes, or None where it cannot be asked."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.pthread_self.restype = ctypes.c_ulong
        attr = ctypes.create_string_buffer(256)  # pthread_attr_t is 56 bytes on x86-64 glibc
        if libc.pthread_getattr_np(ctypes.c_ulong(libc.pthread_self()), attr) != 0:
            return None
        address, size = ctypes.c_void_p(), ctypes.c_size_t()
        try:
            ok = libc.pthread_attr_getstack(attr, ctypes.byref(address), ctypes.byref(size)) == 0
        finally:
            libc.pthread_attr_destroy(attr)
    except (OSError, AttributeError):
        return None
    return size.value if ok else None


def stack_is_deep_enough() -> bool:
    """Whether wasm may run on this thread (cached per thread: a stack never changes size)."""
    ok = getattr(_local, "deep_enough", None)
    if ok is None:
        size = current_stack_size()
        ok = size is not None and size >= NEEDED
        _local.deep_enough = ok
    return ok


def on_deep_stack(fn: Callable[[], T]) -> T:
    """Call `fn` on a thread whose stack fits `max_wasm_stack`; re-raise what it raises."""
    if stack_is_deep_enough():
        return fn()
    outcome: list[tuple[bool, object]] = []

    def target() -> None:
        try:
            outcome.append((True, fn()))
        except BaseException as exc:  # handed back to the caller's thread as is
            outcome.append((False, exc))

    with _spawn_lock:  # threading.stack_size is process-wide: set it only around our start
        previous = threading.stack_size(WORKER_STACK)
        try:
            thread = threading.Thread(target=target, name="wasm-deep-stack", daemon=True)
            thread.start()
        finally:
            threading.stack_size(previous)
    thread.join()
    ok, value = outcome[0]
    if ok:
        return cast(T, value)
    assert isinstance(value, BaseException)
    raise value
