"""Ranking and leaderboards: pure functions over scored runs.

Every run is placed in one order, on exact values (a Score of 10,000,000/10,000,001 is
below 1 although both show 1.00):

1. Score, higher first: for every run, ranked or not, so a run that captured more weight is
   never placed below one that captured less, whatever is unknown about its cost;
2. among runs of equal Score, ranked runs before unranked ones (errored, cancelled, or a
   model call of unknown cost before the last capture);
3. Execution, higher first (missing after any measured value). An unranked run's Execution
   is taken at its worst: an unknown cost as Cost 0, so hiding a cost can never lift it;
4. the tie-breakers: earlier last capture, then lower spend to it (unknown spend last).

Runs equal on all of these share a position and are listed by harness, model and run id so
the order is stable. Each step can only move a run down when it hides spend (nulls costs)
or drops a capture, which `test_harness_hidden_cost.py` checks as a property.

A leaderboard has one entry per agent: harness, model and, for an Inspect AI log, the
agent the log recorded (its solver or plan), so a box's `[inspect] harness` name never
merges different agents. Each agent's entry is its best run in the order above, ranked or
not (an unranked entry is marked, with its reason); every Inspect AI epoch is a run of its
own, so the best epoch counts (Inspect's epoch reducer is not used).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from lattice_desktop.harness.box import EXECUTION_METRICS
from lattice_desktop.harness.execution import weighted_mean
from lattice_desktop.harness.result import HarnessResult


@dataclass(frozen=True)
class Ranked:
    position: int
    """1-based place in the order; tied runs share a position."""
    result: HarnessResult

    @property
    def ranked(self) -> bool:
        """False for a run placed on the board but not ranked (its reason in `unranked`)."""
        return self.result.unranked is None


def cost_unknown(r: HarnessResult) -> bool:
    """A model call before the last capture has no cost: spend and Cost are bounds."""
    return bool(r.metrics["cost"].inputs.get("unreported_lines"))


def worst_execution(r: HarnessResult) -> Fraction | None:
    """Execution as the board compares it: exact, and for a run whose cost is unknown, with
    Cost at its worst (0) rather than the upper bound the known spend gives."""
    execution = r.execution.exact_value
    if execution is None or not cost_unknown(r):
        return execution
    values = {m: r.metrics[m].exact_value or Fraction(0) for m in EXECUTION_METRICS if r.metrics[m].measured}
    return weighted_mean(r.execution.inputs["weights"], {**values, "cost": Fraction(0)})


def _merit(r: HarnessResult) -> tuple[object, ...]:
    """The sort key, on exact values: never on what the two-decimal display rounds to."""
    execution = worst_execution(r)
    elapsed = r.last_capture_elapsed_s
    spend = None if cost_unknown(r) else r.spend_to_last_capture_usd
    return (
        -(r.metrics["score"].exact_value or 0),
        r.unranked is not None,
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

UNRANKED_NOTE = (
    "* not ranked (reason below): placed by its Score, after the ranked runs of that Score, "
    "an unknown cost taken as Cost 0"
)


def leaderboard(results: list[HarnessResult]) -> dict[tuple[str, str], list[Ranked]]:
    """One board per (stage, box): each agent by its best run, ranked or not (`Ranked.ranked`
    tells them apart), all in the one order of `rank`."""
    groups: dict[tuple[str, str], list[HarnessResult]] = {}
    for result in results:
        groups.setdefault((result.stage, result.box), []).append(result)
    boards = {}
    for key in sorted(groups):
        best: dict[tuple[str, str, str], HarnessResult] = {}
        for entry in rank(groups[key]):
            best.setdefault(agent_of(entry.result), entry.result)
        boards[key] = rank(list(best.values()))
    return boards


def unranked_runs(results: list[HarnessResult]) -> dict[tuple[str, str], list[HarnessResult]]:
    """Per (stage, box), the runs that are not ranked, each with its `unranked` reason (a
    board still places an agent's best one by its Score)."""
    groups: dict[tuple[str, str], list[HarnessResult]] = {}
    for result in sorted(results, key=lambda r: (r.harness, r.model, r.run_id)):
        if result.unranked is not None:
            groups.setdefault((result.stage, result.box), []).append(result)
    return groups
