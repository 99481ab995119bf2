"""Cooperative cancellation shared by builds, grading and simulation (no Qt here)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from lattice_desktop.errors import Cancelled


class CancelToken:
    """Set once by whoever wants the work stopped; checked by the work itself."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._hooks: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            hooks = list(self._hooks)
        for hook in hooks:
            hook()

    def on_cancel(self, hook: Callable[[], None]) -> None:
        """Run `hook` when cancelled (at once if it already was)."""
        with self._lock:
            if not self._event.is_set():
                self._hooks.append(hook)
                return
        hook()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled()
