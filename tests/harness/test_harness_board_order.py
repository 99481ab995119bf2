"""Issue 30.4: Score comes first for every run on a board, ranked or not; an Execution that
rests on an upper-bound Cost is a bound; display rounding is exact, half up."""

from __future__ import annotations

from fractions import Fraction

from harness_builders import capture, make, shell, usage

from lattice_desktop.formatting import rounded
from lattice_desktop.harness import leaderboard, rank, score
from lattice_desktop.harness.metric import PARTIAL, RECORDED, Metric

BOARD = ("qualifier", "webshop")


def test_the_whole_run_is_placed_above_the_same_run_stopped_early(box):
    # The reported pair: user+root with a null-cost call between the captures (Score 1.00),
    # and the same run stopped after the user capture (Score 0.40, every cost known).
    events = [shell(1, "id"), usage(2, 0.5), capture(600, "user"), usage(700, None), capture(1200, "root")]
    whole = score(box, make(events, run_id="whole", harness="a"))
    stopped = score(box, make(events[:3], run_id="stopped", harness="b"))
    assert (whole.metrics["score"].shown, stopped.metrics["score"].shown) == ("1.00", "0.40")
    assert whole.unranked is not None and stopped.unranked is None
    board = leaderboard([stopped, whole])[BOARD]
    assert [(r.position, r.result.run_id, r.ranked) for r in board] == [
        (1, "whole", False),
        (2, "stopped", True),
    ]
    assert [r.result.run_id for r in rank([stopped, whole])] == ["whole", "stopped"]


def test_an_agent_is_entered_with_its_run_of_most_weight(box):
    events = [usage(2, 0.5), capture(600, "user"), usage(700, None), capture(1200, "root")]
    epochs = [
        score(box, make(events, run_id="epoch1", harness="a")),
        score(box, make(events[:2], run_id="epoch2", harness="a")),
    ]
    assert [r.result.run_id for r in leaderboard(epochs)[BOARD]] == ["epoch1"]


def test_execution_on_an_upper_bound_cost_is_a_bound(box):
    events = [shell(0.5, "id"), usage(1, 0.5), usage(2, None), capture(600, "user")]
    run = score(box, make(events))
    cost, execution = run.metrics["cost"], run.execution
    assert cost.at_most and execution.at_most
    assert execution.evidence == PARTIAL
    assert "at most" in execution.formula
    assert execution.shown.startswith("≤") and cost.shown.startswith("≤")
    known = score(box, make([shell(0.5, "id"), usage(1, 0.5), usage(2, 0.0), capture(600, "user")]))
    assert not known.execution.at_most and known.execution.evidence == RECORDED
    assert known.execution.shown == execution.shown[1:]  # the bound is the known-as-zero value


def test_display_rounds_exact_halves_up():
    # 23/40 = 0.575 is 0.57499999999999995559 as a binary float: it once showed 0.57.
    assert rounded(Fraction(23, 40)) == "0.58"
    assert rounded(Fraction(3, 8)) == "0.38"
    assert rounded(0.575) == "0.58"  # a float is read as the decimal it prints as
    assert rounded(Fraction(1, 3)) == "0.33" and rounded(Fraction(2, 3)) == "0.67"
    assert rounded(Fraction(-23, 40)) == "-0.58"
    assert rounded(None) == "-"
    assert Metric(Fraction(23, 40), RECORDED, "").shown == "0.58"


def test_metric_formulas_round_like_the_value(box):
    # Time = 1 - (1530 / 3600) = 0.575 exactly (both captured): shown and in the formula.
    run = score(box, make([capture(0, "user"), capture(1530, "root")]))
    time = run.metrics["time"]
    assert time.exact == Fraction(23, 40)
    assert time.shown == "0.58" and time.formula.endswith("= 0.58")


def test_the_cli_board_places_the_whole_run_first_and_marks_it(box, tmp_path, capsys):
    from harness_builders import BOX_PATH, jsonl

    from lattice_desktop.cli.main import main

    events = [shell(1, "id"), usage(2, 0.5), capture(600, "user"), usage(700, None), capture(1200, "root")]
    (tmp_path / "whole.jsonl").write_text(jsonl(events, run_id="whole", harness="a"))
    (tmp_path / "stopped.jsonl").write_text(jsonl(events[:3], run_id="stopped", harness="b"))
    db = ["--db", str(tmp_path / "board.db")]
    traces = [str(tmp_path / "whole.jsonl"), str(tmp_path / "stopped.jsonl")]
    assert main(["harness", "import", *traces, "--box", str(BOX_PATH), *db]) == 0
    capsys.readouterr()
    assert main(["harness", "leaderboard", *db]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if " / m " in line]
    assert [row[:4] for row in rows[:2]] == [["1*", "a", "/", "m"], ["2", "b", "/", "m"]]
    assert rows[0][4:7] == ["1.00", "≤0.92", "≤0.95"]  # Score, then Execution and Cost as bounds
