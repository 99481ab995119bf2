"""Focus = 1 - loop penalty: did the harness keep making useful attempts?

A loop is a call, or a cycle of up to MAX_PERIOD calls, repeated back to back with the
same tool names and the same arguments as recorded. Nothing is normalised away: a
framework that stamps a unique id or timestamp on every call makes identical actions
look different, and such loops are missed. A false positive is worse than a miss.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

from lattice_desktop.harness.history import CallIndex
from lattice_desktop.harness.metric import RECORDED, Metric, exact, missing, num, res
from lattice_desktop.harness.trace import ToolCall

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
        return (
            f"{cycle} x{self.repetitions}, lines {self.first_line}-{self.last_line} "
            f"({kind}, penalty {num(self.penalty)})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "tools": list(self.tools)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Loop:
        return cls(**{**data, "tools": tuple(data["tools"])})


def _temporary_failure(call: ToolCall) -> bool:
    return call.status is None or call.status in (408, 429) or 500 <= call.status <= 599


def exemption(index: CallIndex, before: int, after: int) -> str | None:
    """Why repeating call `before` as call `after` is legitimate, or None."""
    previous = index.calls[before]
    if previous.job_running:
        return "polling a running job"
    if _temporary_failure(previous):
        return "retrying a temporary failure"
    if index.changed_between(before, after):
        return "repeating after a modification"
    return None


def _primitive(block: list[int]) -> bool:
    p = len(block)
    return not any(p % d == 0 and block == block[:d] * (p // d) for d in range(1, p))


def _runs(positions: list[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive positions, as (first, one past the last)."""
    runs: list[tuple[int, int]] = []
    for j in positions:
        if runs and runs[-1][1] == j:
            runs[-1] = (runs[-1][0], j + 1)
        else:
            runs.append((j, j + 1))
    return runs


def find_loops(index: CallIndex) -> tuple[list[Loop], Counter[str]]:
    """Every loop of MIN_LOOP or more repetitions, and the exemptions that applied.

    For each period p, position j matches when call j repeats call j - p and no
    exemption applies; a run of matches is a loop of (run length / p + 1) repetitions
    of its first p calls, unless those calls are themselves a shorter cycle.
    """
    calls, keys = index.calls, index.ids
    exempted_at: dict[int, str] = {}
    twice = 0
    loops: list[Loop] = []
    for p in range(1, MAX_PERIOD + 1):
        matched = []
        for j in [j for j in range(p, len(keys)) if keys[j] == keys[j - p]]:
            reason = exemption(index, j - p, j)
            if reason:
                exempted_at.setdefault(j, reason)
            else:
                matched.append(j)
        for start, stop in _runs(matched):
            if not _primitive(keys[start - p : start]):
                continue
            repetitions = (stop - start) // p + 1
            twice += repetitions == 2
            if repetitions >= MIN_LOOP:
                end = start - p + repetitions * p - 1
                loops.append(
                    Loop(
                        tuple(c.tool for c in calls[start - p : start]),
                        repetitions,
                        calls[start - p].line,
                        calls[end].line,
                        loop_penalty(repetitions),
                    )
                )
    loops.sort(key=lambda loop: (-loop.penalty, loop.first_line, len(loop.tools)))
    exempted = Counter(exempted_at.values())
    if twice:
        exempted["repeated only twice"] = twice
    return loops, exempted


def focus_metric(index: CallIndex) -> tuple[Metric, list[Loop]]:
    calls = index.calls
    if not calls:
        return missing("Focus", "the run made no tool calls"), []
    loops, exempted = find_loops(index)
    worst = loops[0] if loops else None
    penalty = exact(worst.penalty) if worst else Fraction(0)
    value = 1 - penalty
    why = worst.describe() if worst else f"no loop of {MIN_LOOP} or more repetitions"
    formula = f"Focus = 1 - loop penalty = 1 - {num(penalty)} ({why}) = {res(value)}"
    inputs = {
        "calls": len(calls),
        "worst_loop": worst.to_dict() if worst else None,
        "loops": len(loops),
        "exempted": dict(sorted(exempted.items())),
    }
    notes = (
        "calls are compared on tool name and arguments as recorded: a unique id or "
        "timestamp in every call hides a loop",
    )
    return Metric(value, RECORDED, formula, inputs, notes), loops
