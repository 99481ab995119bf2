"""Ranking and leaderboards: pure functions over scored runs.

Order, on the exact values (a Score of 10,000,000/10,000,001 is below 1 although both
show 1.00): Score (higher first), then Execution (higher first; missing after any measured
value), then the tie-breakers: earlier last capture (less harness running time to it),
then lower spend to the last capture. Runs equal on all of these share a position and
are listed by harness, model and run id so the order is stable. An unranked run (errored,
cancelled, or its Cost unknown) comes after every ranked one in `rank` and is left off
the leaderboards (`unranked_runs` lists it with its reason).

A leaderboard has one entry per agent: harness, model and, for an Inspect AI log, the
agent the log recorded (its solver or plan), so a box's `[inspect] harness` name never
merges different agents. Each agent's entry is its best run; every Inspect AI epoch is a
run of its own, so the best epoch counts (Inspect's epoch reducer is not used).
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
        r.unranked is not None,
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


def agent_of(r: HarnessResult) -> tuple[str, str, str]:
    """What one leaderboard entry stands for: harness, model and the recorded agent."""
    return r.harness, r.model, str(r.origin.get("agent") or "")


def agent_label(r: HarnessResult) -> str:
    """`harness / model`, with the recorded agent when it is not the harness name."""
    agent = agent_of(r)[2]
    named = f"{r.harness} [{agent}]" if agent and agent != r.harness else r.harness
    return f"{named} / {r.model}"


EPOCHS_NOTE = (
    "one entry per harness, model and agent: its best run; each Inspect AI epoch is a run, "
    "so the best epoch counts (not Inspect's epoch reducer)"
)


def leaderboard(results: list[HarnessResult]) -> dict[tuple[str, str], list[Ranked]]:
    """One ranking per (stage, box): each agent by its best ranked run."""
    groups: dict[tuple[str, str], list[HarnessResult]] = {}
    for result in results:
        if result.unranked is None:
            groups.setdefault((result.stage, result.box), []).append(result)
    boards = {}
    for key in sorted(groups):
        best: dict[tuple[str, str, str], HarnessResult] = {}
        for entry in rank(groups[key]):
            best.setdefault(agent_of(entry.result), entry.result)
        boards[key] = rank(list(best.values()))
    return boards


def unranked_runs(results: list[HarnessResult]) -> dict[tuple[str, str], list[HarnessResult]]:
    """Per (stage, box), the runs kept out of the ranking, each with its `unranked` reason."""
    groups: dict[tuple[str, str], list[HarnessResult]] = {}
    for result in sorted(results, key=lambda r: (r.harness, r.model, r.run_id)):
        if result.unranked is not None:
            groups.setdefault((result.stage, result.box), []).append(result)
    return groups
