"""Focus = 1 - loop penalty: did the harness keep making useful attempts?

A loop is a call, or a cycle of up to MAX_PERIOD calls, repeated back to back with the
same tool names and the same arguments as recorded. Nothing is normalised away: a
framework that stamps a unique id or timestamp on every call makes identical actions
look different, and such loops are missed. A false positive is worse than a miss.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from lattice_desktop.harness.box import Box
from lattice_desktop.harness.metric import RECORDED, Metric, missing, num, res
from lattice_desktop.harness.trace import ToolCall, Trace

MAX_PERIOD = 5
"""Longest cycle of calls looked for."""
MIN_LOOP = 3
"""A call repeated only twice is not a loop."""
SERIOUS = 6
"""A loop is serious from six repetitions on."""


def loop_penalty(repetitions: int) -> float:
    """Penalty of one loop: 0 below 3, mild 0.1-0.3 for 3-5, serious 0.5-1.0 from 6.

    Mild penalties stay below the smallest serious one and only the worst loop counts,
    so mild loops never add up to a serious one.
    """
    if repetitions < MIN_LOOP:
        return 0.0
    if repetitions < SERIOUS:
        return (repetitions - 2) / 10
    return min(1.0, (repetitions - 1) / 10)


@dataclass(frozen=True)
class Loop:
    tools: tuple[str, ...]
    """The cycle's tool names (one name for a repeated call)."""
    repetitions: int
    first_line: int
    last_line: int
    penalty: float

    @property
    def serious(self) -> bool:
        return self.repetitions >= SERIOUS

    def describe(self) -> str:
        cycle = " -> ".join(self.tools)
        kind = "serious" if self.serious else "mild"
        return (f"{cycle} x{self.repetitions}, lines {self.first_line}-{self.last_line} "
                f"({kind}, penalty {num(self.penalty)})")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "tools": list(self.tools)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Loop:
        return cls(**{**data, "tools": tuple(data["tools"])})


def _temporary_failure(call: ToolCall) -> bool:
    return call.status is None or call.status in (408, 429) or 500 <= call.status <= 599


def _target(box: Box, call: ToolCall) -> Any:
    tool = box.tool(call.tool)
    if tool is None or tool.target is None or not isinstance(call.arguments, dict):
        return None
    return call.arguments.get(tool.target)


def changed_between(box: Box, calls: list[ToolCall], before: int, after: int) -> bool:
    """Did a modifying call between the two touch what `calls[after]` reads?

    When either side declares no target, any modifying call counts: better to miss a
    loop than to flag a legitimate reread.
    """
    wanted = _target(box, calls[after])
    for call in calls[before + 1:after]:
        tool = box.tool(call.tool)
        if tool is not None and tool.modifies:
            touched = _target(box, call)
            if wanted is None or touched is None or touched == wanted:
                return True
    return False


def exemption(box: Box, calls: list[ToolCall], before: int, after: int) -> str | None:
    """Why repeating `calls[before]` as `calls[after]` is legitimate, or None."""
    previous = calls[before]
    if previous.job_running:
        return "polling a running job"
    if _temporary_failure(previous):
        return "retrying a temporary failure"
    if changed_between(box, calls, before, after):
        return "repeating after a modification"
    return None


def _primitive(block: list[tuple[str, str]]) -> bool:
    p = len(block)
    return not any(p % d == 0 and block == block[:d] * (p // d) for d in range(1, p))


def find_loops(box: Box, calls: list[ToolCall]) -> tuple[list[Loop], Counter[str]]:
    """Every loop of MIN_LOOP or more repetitions, and the exemptions that applied."""
    keys = [c.key for c in calls]
    exempted_at: dict[int, str] = {}
    twice = 0
    loops: list[Loop] = []
    for p in range(1, MAX_PERIOD + 1):
        match = []
        for j in range(len(calls)):
            same = j >= p and keys[j] == keys[j - p]
            reason = exemption(box, calls, j - p, j) if same else None
            if reason:
                exempted_at.setdefault(j, reason)
            match.append(same and reason is None)
        j = p
        while j < len(calls):
            if not match[j]:
                j += 1
                continue
            start = j
            while j < len(calls) and match[j]:
                j += 1
            if not _primitive(keys[start - p:start]):
                continue
            repetitions = (j - start) // p + 1
            twice += repetitions == 2
            if repetitions >= MIN_LOOP:
                end = start - p + repetitions * p - 1
                loops.append(Loop(tuple(c.tool for c in calls[start - p:start]), repetitions,
                                  calls[start - p].line, calls[end].line,
                                  loop_penalty(repetitions)))
    loops.sort(key=lambda loop: (-loop.penalty, loop.first_line, len(loop.tools)))
    exempted = Counter(exempted_at.values())
    if twice:
        exempted["repeated only twice"] = twice
    return loops, exempted


def focus_metric(box: Box, trace: Trace) -> tuple[Metric, list[Loop]]:
    calls = trace.of(ToolCall)
    if not calls:
        return missing("Focus", "the run made no tool calls"), []
    loops, exempted = find_loops(box, calls)
    worst = loops[0] if loops else None
    penalty = worst.penalty if worst else 0.0
    value = 1 - penalty
    why = worst.describe() if worst else f"no loop of {MIN_LOOP} or more repetitions"
    formula = f"Focus = 1 - loop penalty = 1 - {num(penalty)} ({why}) = {res(value)}"
    inputs = {"calls": len(calls), "worst_loop": worst.to_dict() if worst else None,
              "loops": len(loops), "exempted": dict(sorted(exempted.items()))}
    notes = ("calls are compared on tool name and arguments as recorded: a unique id or "
             "timestamp in every call hides a loop",)
    return Metric(value, RECORDED, formula, inputs, notes), loops
