"""An index over a run's tool calls that answers, in O(log n), the two questions Focus and
Tools ask about every pair of calls: which later call repeats this one identically, and
did a modifying call touch what a call reads between two points of the run.

Built once per trace in linear time; scanning the calls between two points instead made
the 403/404 analysis quadratic on long runs.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate
from typing import Any

from lattice_desktop.harness.box import Box
from lattice_desktop.harness.trace import ToolCall


def _hashable(value: Any) -> Any:
    """A hashable stand-in that is equal exactly when the JSON values compare equal."""
    if isinstance(value, dict):
        return ("object", frozenset((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("array", tuple(_hashable(v) for v in value))
    return value


def call_target(box: Box, call: ToolCall) -> Any:
    """The value of the argument the call's tool declares as its target, or None."""
    tool = box.tool(call.tool)
    if tool is None or tool.target is None or not isinstance(call.arguments, dict):
        return None
    return call.arguments.get(tool.target)


class CallIndex:
    """The calls' comparison keys, each call's next identical call, and the modifying calls
    (all of them, those with no target, and those of each target) as prefix counts and
    sorted positions."""

    def __init__(self, box: Box, calls: list[ToolCall]) -> None:
        self.calls = calls
        self.keys = [c.key for c in calls]
        ids: dict[tuple[str, str], int] = {}
        self.ids = [ids.setdefault(key, len(ids)) for key in self.keys]
        """One small integer per distinct key: the same call, the same id."""
        self.targets = [call_target(box, c) for c in calls]
        modifies = [(t := box.tool(c.tool)) is not None and t.modifies for c in calls]
        self._modified = [0, *accumulate(modifies)]
        self._untargeted = [
            0,
            *accumulate(m and t is None for m, t in zip(modifies, self.targets, strict=True)),
        ]
        self._by_target: dict[Any, list[int]] = {}
        for i, (m, target) in enumerate(zip(modifies, self.targets, strict=True)):
            if m and target is not None:
                self._by_target.setdefault(_hashable(target), []).append(i)
        self.next_same: list[int | None] = [None] * len(calls)
        seen: dict[int, int] = {}
        for i in range(len(calls) - 1, -1, -1):
            self.next_same[i] = seen.get(self.ids[i])
            seen[self.ids[i]] = i

    def changed_between(self, before: int, after: int) -> bool:
        """Did a modifying call strictly between the two touch what `calls[after]` reads?

        When either side declares no target, any modifying call counts: better to miss a
        loop than to flag a legitimate reread.
        """
        lo, hi = before + 1, after  # the calls in between: lo .. hi - 1
        if lo >= hi:
            return False
        wanted = self.targets[after]
        if wanted is None:
            return self._modified[hi] > self._modified[lo]
        if self._untargeted[hi] > self._untargeted[lo]:
            return True
        positions = self._by_target.get(_hashable(wanted), ())
        k = bisect_left(positions, lo)
        return k < len(positions) and positions[k] < hi
