"""One object for long work, shared by whoever started it and the work itself (no Qt here).

The starter may `cancel()` it and watch its progress; the work checks it between chunks
(`raise_if_cancelled`) and says how far it got (`report`: a fraction of the whole, a
message, and optionally something made on the way — a graded case's result, a state
passed on a long seek). Builds, compiles, grading, seeks, the keyframe walk, prewarm and
harness imports all take one; the app forwards its steps to the GUI thread as signals.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from lattice_desktop.errors import Cancelled


@dataclass(frozen=True)
class Step:
    """How far the work got: `fraction` of the whole (0..1), what it is doing, and what it
    made on the way (None when nothing)."""

    fraction: float
    message: str = ""
    item: object = None


Listener = Callable[[Step], None]


class _Shared:
    def __init__(self, listener: Listener | None) -> None:
        self.event = threading.Event()
        self.hooks: list[Callable[[], None]] = []
        self.lock = threading.Lock()
        self.listener = listener
        self.step = Step(0.0)


class Work:
    """Cancel and progress for one piece of work. `part(a, b)` gives a view for a stretch
    of it: the same cancel, its fractions mapped into [a, b] of the whole."""

    def __init__(self, listener: Listener | None = None) -> None:
        self._shared = _Shared(listener)
        self._span = (0.0, 1.0)

    # --- cancel -----------------------------------------------------------------------------

    @property
    def cancelled(self) -> bool:
        return self._shared.event.is_set()

    def cancel(self) -> None:
        shared = self._shared
        with shared.lock:
            if shared.event.is_set():
                return
            shared.event.set()
            hooks = list(shared.hooks)
        for hook in hooks:
            hook()

    def on_cancel(self, hook: Callable[[], None]) -> None:
        """Run `hook` when cancelled (at once if it already was): for work that cannot
        check between chunks, such as running wasm or a child process."""
        shared = self._shared
        with shared.lock:
            if not shared.event.is_set():
                shared.hooks.append(hook)
                return
        hook()

    def raise_if_cancelled(self) -> None:
        if self._shared.event.is_set():
            raise Cancelled()

    # --- progress ---------------------------------------------------------------------------

    @property
    def step(self) -> Step:
        """The latest step reported (of the whole work)."""
        return self._shared.step

    def report(self, fraction: float, message: str = "", item: object = None) -> None:
        start, end = self._span
        step = Step(start + (end - start) * min(1.0, max(0.0, fraction)), message, item)
        self._shared.step = step
        if self._shared.listener is not None:
            self._shared.listener(step)

    def part(self, start: float, end: float) -> Work:
        """This work's stretch from `start` to `end` (fractions of this one)."""
        view = Work.__new__(Work)
        view._shared = self._shared
        low, high = self._span
        view._span = (low + (high - low) * start, low + (high - low) * end)
        return view
