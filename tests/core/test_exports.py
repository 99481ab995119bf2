"""Exports of stored runs, the runs list and a leaderboard: CSV that holds the stored
values (and a spreadsheet opens safely), and one self-contained HTML report whose inline
SVG plots are drawn from the numbers. Real grading, a real SQLite file."""

from __future__ import annotations

import csv
import io
import itertools
import math
import re

import pytest

from lattice_desktop.errors import UserError
from lattice_desktop.manifest import load_submission
from lattice_desktop.services.exports import board_export, run_export, runs_export, write_export
from lattice_desktop.services.exports.svg import Bar, LogAxis, bar_chart
from lattice_desktop.services.grade_jobs import GradeJob, run_job
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import leaderboard
from lattice_desktop.store.queries import list_runs, load_run
from lattice_desktop.store.writer import Writer
from tests.core.wat_cases import ECHO, SLOW_ECHO, module_with_run_body, write_case, write_submission

SIZES = (10, 100, 1000)
CASES = """
[[case]]
name = "hello"
kind = "smoke"
behaviour = "echoes a short input"
input = "hello"
expected = "hello"
""" + "".join(
    f'\n[[case]]\nname = "stress-{n}"\nkind = "stress"\ninput = "{"x" * n}"\nexpected = "{"x" * n}"\n'
    for n in SIZES
)
WRONG = module_with_run_body("(i64.const 0)")


@pytest.fixture
def graded(tmp_path):
    """A fast echo, a slow echo (fuel grows with the input), a wrong one; models named as
    a hostile user might name them."""
    writer = Writer(open_database(tmp_path / "runs.db"))
    case = write_case(tmp_path / "case", CASES, fuel_limit=10_000_000)
    ids = {}
    for model, wat in (("fast <b>", ECHO), ("=HYPERLINK(1)", SLOW_ECHO), ("wrong", WRONG)):
        folder = write_submission(tmp_path / f"s{len(ids)}", wat, model=model)
        ids[model] = run_job(GradeJob(case, load_submission(folder)), writer).run_id
    yield ids
    writer.close()


def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_a_run_as_csv_holds_every_result_with_its_stored_fuel(graded):
    run_id = graded["=HYPERLINK(1)"]
    rows = _csv(run_export(run_id, "csv").text)
    stored = load_run(run_id)
    assert [r["name"] for r in rows] == ["hello", *(f"stress-{n}" for n in SIZES)]
    assert [int(r["fuel"]) for r in rows] == [r.fuel for r in stored.results]
    assert {r["model"] for r in rows} == {"'=HYPERLINK(1)"}  # kept as text, not run as a formula
    assert {r["verdict"] for r in rows} == {"correct"}
    assert [r["size"] for r in rows[1:]] == [str(n) for n in SIZES]


def test_a_run_report_is_one_file_with_its_plots_drawn_from_the_numbers(graded):
    run_id = graded["=HYPERLINK(1)"]
    page = run_export(run_id, "html").text
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 2
    for outside in ("<script", "<link", "src=", "href=", "url(", "@import"):
        assert outside not in page  # nothing fetched: it reads the same offline
    fuels = [r.fuel for r in load_run(run_id).results if not r.is_smoke]
    bars = re.findall(r'<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', page)
    assert len(bars) == len(SIZES)
    # Each bar's length is the log of its fuel on the drawn axis: equal ratios, equal steps.
    ends = [float(x) + float(w) for x, w in bars]
    steps = [b - a for a, b in itertools.pairwise(ends)]
    ratios = [math.log10(b / a) for a, b in itertools.pairwise(fuels)]
    assert steps[0] / steps[1] == pytest.approx(ratios[0] / ratios[1], rel=0.02)
    slope = re.search(r"slope (\d\.\d\d) ≈ O\(n\)", page)
    assert slope is not None and 0.8 < float(slope.group(1)) < 1.2  # fuel grows with the input
    assert "field best" in page  # the fast echo holds the field's best on every case


def test_stored_text_is_escaped_in_the_report(graded):
    page = run_export(graded["fast <b>"], "html").text
    assert "fast &lt;b&gt;" in page and "fast <b>" not in page


def test_a_wrong_run_report_says_its_smoke_test_failed(graded):
    page = run_export(graded["wrong"], "html").text
    assert "Smoke test hello failed — stress cases skipped (counted failed)" in page
    assert "✗ wrong answer" in page


def test_the_runs_list_and_the_leaderboard_export_what_they_show(graded):
    runs = _csv(runs_export(list_runs(), "csv").text)
    assert [int(r["run"]) for r in runs] == sorted(graded.values(), reverse=True)
    assert {r["hidden"] for r in runs} == {"no"}
    board = leaderboard("echo")
    rows = _csv(board_export(board, "csv").text)
    assert [(r["rank"], r["model"]) for r in rows] == [("1", "fast <b>"), ("2", "'=HYPERLINK(1)")]
    assert [int(r["fuel"]) for r in rows] == [e.fuel for e in board.entries]
    html = board_export(board, "html").text
    assert html.count("<svg") == 1 and "#1 fast &lt;b&gt;" in html and "×1.00" in html
    listing = runs_export(list_runs(), "html").text
    assert "3 runs" in listing and "2 ✓ correct" in listing and "1 ✗ incorrect" in listing


def test_an_export_is_written_whole_and_a_bad_path_is_named(graded, tmp_path):
    export = run_export(graded["wrong"], "csv")
    target = write_export(export, tmp_path / "wrong.csv")
    assert target.read_text() == export.text
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".wrong")] == []  # no scratch left
    with pytest.raises(UserError, match=r"no-such-folder/x\.csv: cannot write run"):
        write_export(export, tmp_path / "no-such-folder" / "x.csv")
    with pytest.raises(UserError, match="there is no run 999"):
        run_export(999, "html")


def test_a_log_axis_spans_whole_decades_and_maps_them_evenly():
    axis = LogAxis.around([3_000, 450_000], 100, 400)
    assert axis.decades() == [1e3, 1e4, 1e5, 1e6]
    assert [axis.at(v) for v in axis.decades()] == [100, 200, 300, 400]
    assert axis.at(0) == 100  # no reading sits on the axis, never off it
    assert LogAxis.around([], 0, 10).decades() == [1.0, 10.0]


def test_a_bar_without_a_reading_says_so_instead_of_drawing_a_zero():
    svg = bar_chart("t", [Bar("ran", 500.0, "#009E73", "✓ pass"), Bar("trapped", None, "#D55E00", "✗ trap")])
    assert svg.count("<rect") == 1 and "✗ trap · no fuel reading" in svg
