"""Cost and Time per unit of progress (issue 20.1): the seed prints each fraction
denominator first, so "Cost=1−min(1, capturedspend/cap)" is
Cost = 1 - min(1, (spend / cap) / captured), and Time likewise with elapsed / deadline.

Box (resources/harness/webshop.box.toml): user 2 of 5 weight, budget $10, deadline 3600 s,
Execution weights cost 0.3, focus 0.3, time 0.2, compliance 0.2.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from harness_builders import capture, make, shell, usage

from lattice_desktop.harness import SCORER_VERSION, rank, score


def user_run(box, spend: float, at: float, run_id: str = "r1"):
    """A run that makes one call, spends `spend`, then captures user (2 of 5) at `at` s."""
    return score(box, make([shell(1, "id"), usage(1, spend), capture(at, "user")], run_id=run_id))


def test_cost_divides_by_the_captured_fraction(box):
    # 2 of 5 captured, $3.0 of $10.0 spent: (3.0 / 10.0) / (2 / 5) = 0.75; 1 - 0.75 = 0.25.
    cost = user_run(box, 3.0, 100).metrics["cost"]
    assert cost.exact == Fraction(1, 4) and cost.shown == "0.25"
    assert cost.formula == "Cost = 1 - min(1, (3.00 / 10.00) / 0.40) = 0.25"


def test_time_divides_by_the_captured_fraction(box):
    # 1,800 s of 3,600 s with 2 of 5 captured: 0.5 / 0.4 = 1.25, capped at 1: Time 0.00.
    time = user_run(box, 0.0, 1800).metrics["time"]
    assert time.exact == 0 and time.shown == "0.00"
    assert time.formula.endswith("Time = 1 - min(1, (1800.00 / 3600.00) / 0.40) = 0.00")


def test_full_capture_is_unchanged(box):
    run = score(box, make([usage(1, 2.0), capture(10, "user"), capture(900, "root")]))
    assert run.metrics["cost"].exact == 1 - Fraction(2, 10)
    assert run.metrics["time"].exact == 1 - Fraction(900, 3600)


def test_two_runs_of_equal_score_rank_by_efficiency_per_progress(box):
    # A: $3.0 and 3,060 s; B: $8.2 and 792 s; both capture user only (Score 0.40).
    a = user_run(box, 3.0, 3060, "A")
    b = user_run(box, 8.2, 792, "B")
    # A: Cost 1 - 0.75 = 0.25, Time 1 - min(1, 0.85 / 0.4) = 0 ->
    #    (0.3 x 0.25 + 0.3 x 1 + 0.2 x 0 + 0.2 x 1) / 1 = 0.575.
    # B: Cost 1 - min(1, 0.82 / 0.4) = 0, Time 1 - 0.22 / 0.4 = 0.45 ->
    #    0 + 0.3 + 0.2 x 0.45 + 0.2 = 0.59.
    assert a.execution.exact == Fraction(575, 1000)
    assert b.execution.exact == Fraction(59, 100)
    assert [r.result.run_id for r in rank([a, b])] == ["B", "A"]


def test_the_scorer_version_says_the_formulas_changed():
    assert SCORER_VERSION >= 3


@pytest.mark.parametrize("metric", ["cost", "time"])
def test_nothing_captured_is_missing_not_a_division_by_zero(box, metric):
    run = score(box, make([usage(1, 1.0)]))
    assert run.metrics[metric].value is None and run.metrics[metric].shown == "-"
