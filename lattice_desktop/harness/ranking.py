"""Ranking and leaderboards: pure functions over scored runs.

Order, on the exact values (a Score of 10,000,000/10,000,001 is below 1 although both
show 1.00): Score (higher first), then Execution (higher first; missing after any measured
value), then the tie-breakers: earlier last capture (less harness running time to it),
then lower spend to the last capture. Runs equal on all of these share a position and
are listed by harness, model and run id so the order is stable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lattice_desktop.harness.result import HarnessResult


@dataclass(frozen=True)
class Ranked:
    position: int
    """1-based; tied runs share a position."""
    result: HarnessResult


def _merit(r: HarnessResult) -> tuple[object, ...]:
    """The sort key, on exact values: never on what the two-decimal display rounds to."""
    execution = r.execution.exact_value
    elapsed = r.last_capture_elapsed_s
    spend = r.spend_to_last_capture_usd
    return (
        -(r.metrics["score"].exact_value or 0),
        execution is None,
        -(execution or 0),
        math.inf if elapsed is None else elapsed,
        math.inf if spend is None else spend,
    )


def rank(results: list[HarnessResult]) -> list[Ranked]:
    """All runs best first, with shared positions for exact ties."""
    ordered = sorted(results, key=lambda r: (_merit(r), r.harness, r.model, r.run_id))
    ranked: list[Ranked] = []
    for index, result in enumerate(ordered):
        tied = ranked and _merit(ranked[-1].result) == _merit(result)
        ranked.append(Ranked(ranked[-1].position if tied else index + 1, result))
    return ranked


def leaderboard(results: list[HarnessResult]) -> dict[tuple[str, str], list[Ranked]]:
    """One ranking per (stage, box): each harness (with its model) by its best run."""
    groups: dict[tuple[str, str], list[HarnessResult]] = {}
    for result in results:
        groups.setdefault((result.stage, result.box), []).append(result)
    boards = {}
    for key in sorted(groups):
        best: dict[tuple[str, str], HarnessResult] = {}
        for entry in rank(groups[key]):
            best.setdefault((entry.result.harness, entry.result.model), entry.result)
        boards[key] = rank(list(best.values()))
    return boards
