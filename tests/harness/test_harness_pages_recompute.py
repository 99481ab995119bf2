"""Every number on every harness page recomputes from the numbers printed next to it.

The one rule (docs/harness.md, "A run page, recomputed by hand"): a formula is printed as
stored, every operand the exact value the result was computed from, and only results are
rounded (two decimals, half up). The surfaces a reviewer reads — the metrics table that
`harness score`, `show` and Copy report print, the HTML export, the CSV export, and the
app's Results view with its Copy (tests/ui) — are each parsed back from their text here,
every statement of every formula recomputed from its own digits, and the value shown next
to it compared with the result."""

from __future__ import annotations

import csv
import html
import io
import re

from formula_text import Approximate, check_page_row, evaluate, recompute
from generated_runs import boxes, events, trace_text
from harness_builders import BOX_PATH, RESOURCES, TRACES
from hypothesis import given, settings

from lattice_desktop.cli.main import main
from lattice_desktop.harness import HarnessResult, load_box, load_trace, parse_box, parse_trace, score
from lattice_desktop.harness.inspect_log import read_inspect_log
from lattice_desktop.harness.run_text import format_result
from lattice_desktop.services.exports.csv_text import csv_text
from lattice_desktop.services.exports.harness_export import harness_html, harness_table
from lattice_desktop.store.harness_runs import StoredHarnessRun

INSPECT = RESOURCES / "inspect"
PAGE_ROW = re.compile(r"^(Score|Cost|Focus|Time|Compliance|Tools|Execution)\s+(\S+)\s+(\S+)\s{2}(.*)$")


def bundled_results() -> list[HarnessResult]:
    box = load_box(BOX_PATH)
    results = [score(box, load_trace(path)) for path in sorted(TRACES.glob("*.jsonl"))]
    inspect_box = parse_box((INSPECT / "webshop_ctf.box.toml").read_text(), source="webshop_ctf.box.toml")
    samples = read_inspect_log(INSPECT / "webshop_ctf.eval", inspect_box)
    return results + [score(inspect_box, parse_trace(s.text, source=s.source)) for s in samples]


def stored(result: HarnessResult) -> StoredHarnessRun:
    return StoredHarnessRun(id=7, imported=None, result=result, box_source="box", trace_source="trace")


# Each surface, read back from its text: (metric, value shown, formula shown).


def from_table_text(text: str) -> list[tuple[str, str, str]]:
    """The metrics table as `harness score`, `show` and Copy report print it."""
    return [m.groups()[:2] + m.groups()[3:] for line in text.splitlines() if (m := PAGE_ROW.match(line))]


def from_html(page: str) -> list[tuple[str, str, str]]:
    table = page.split("<table", 2)[1]
    rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)
    out = []
    for row in rows:
        cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)]
        if cells:
            out.append((cells[0], cells[1], cells[3]))
    return out


def from_csv(text: str) -> list[tuple[str, str, str]]:
    def cell(value: str) -> str:  # as a spreadsheet shows it: a leading ' keeps text as text
        return value[1:] if value.startswith("'") else value

    reader = csv.DictReader(io.StringIO(text))
    return [(row["metric"], cell(row["shown"]), cell(row["formula"])) for row in reader]


def surfaces(result: HarnessResult) -> dict[str, list[tuple[str, str, str]]]:
    return {
        "table text (harness score, show, Copy report)": from_table_text(format_result(result)),
        "HTML export": from_html(harness_html(stored(result))),
        "CSV export": from_csv(csv_text(harness_table(stored(result)))),
    }


def check_result(result: HarnessResult) -> None:
    expected = {**result.metrics, "execution": result.execution}
    for surface, rows in surfaces(result).items():
        assert len(rows) == 7, (surface, rows)
        for name, value, formula in rows:
            metric = expected[name.lower()]
            assert value == metric.shown, (surface, name, value)
            check_page_row(f"{surface}: {name}", value, formula)


def test_the_issue_figure_the_execution_of_schema_violation_recomputes_on_every_surface():
    box = load_box(BOX_PATH)
    result = score(box, load_trace(TRACES / "schema_violation.jsonl"))
    assert result.execution.shown == "0.97"
    for surface, rows in surfaces(result).items():
        (execution,) = [formula for name, _v, formula in rows if name.lower() == "execution"]
        # Once "(0.30 x ≈0.93 + 0.30 x 1.00 + 0.20 x ≈0.98 + 0.20 x 1.00) / (…) = 0.97" in
        # the HTML: those numbers give 0.975, i.e. 0.98.
        assert "≈" not in execution, (surface, execution)
        (statement,) = recompute(execution)
        assert statement.printed == "0.97" and statement.reproduces, (surface, execution)


def test_an_evaluated_formula_is_the_arithmetic_as_written():
    assert str(evaluate("1 - min(1, (0.30 / 10.00) / 0.40)")) == "37/40"
    assert str(evaluate("(0.30 x 0.925 + 0.30 x 1.00) / (0.30 + 0.30)")) == "77/80"
    assert str(evaluate("mean(well_formed 0.70, arguments 1/3, adaptation -)")) == "31/60"
    assert str(evaluate("1 - 0.70 (shell x8, lines 5-12 (serious, penalty 0.70))")) == "3/10"
    # A divisor printed as a bare fraction is read left to right, as by hand: "/ 5/11" is
    # "/ 5 / 11". A formula must bracket it.
    assert evaluate("(0.66 / 10.00) / 5/11") != evaluate("(0.66 / 10.00) / (5/11)")
    try:
        evaluate("0.25 x ≈0.998923746")
    except Approximate:
        pass
    else:
        raise AssertionError("an approximate operand was taken as exact")


def test_every_bundled_run_recomputes_on_every_surface():
    for result in bundled_results():
        check_result(result)


@settings(max_examples=120, deadline=None)
@given(boxes(), events())
def test_every_generated_run_recomputes_on_every_surface(box, evs):
    check_result(score(box, parse_trace(trace_text(evs))))


def test_show_prints_pages_that_recompute(tmp_path, capsys):
    """`show ID` on a stored run, through the real command line."""
    db = ["--db", str(tmp_path / "h.db")]
    for path in sorted(TRACES.glob("*.jsonl")):
        assert main(["harness", "import", str(path), "--box", str(BOX_PATH), *db]) == 0
    ids = re.findall(r"stored harness run (\d+)", capsys.readouterr().out)
    assert len(ids) == len(list(TRACES.glob("*.jsonl")))
    for run_id in ids:
        assert main(["show", run_id, *db]) == 0
        rows = from_table_text(capsys.readouterr().out)
        assert [name for name, _v, _f in rows] == [
            "Score",
            "Cost",
            "Focus",
            "Time",
            "Compliance",
            "Tools",
            "Execution",
        ]
        for name, value, formula in rows:
            check_page_row(f"show {run_id}: {name}", value, formula)


def test_the_issue_figure_a_cost_divided_by_five_elevenths_recomputes():
    """Once "(≈0.66 / 10.00) / 5/11": a rounded spend, and a divisor that reads as "/ 5 / 11"."""
    from generated_runs import box_text
    from harness_builders import capture, jsonl, usage

    box = parse_box(
        box_text(user="5", root="6", budget="10.0", deadline="3600", weights=("0.3", "0.3", "0.2", "0.2")),
        source="b.toml",
    )
    result = score(box, parse_trace(jsonl([usage(1, 0.6594527639999797), capture(3, "user")])))
    cost = result.metrics["cost"]
    assert "(0.6594527639999797 / 10.00) / (5/11)" in cost.formula
    check_result(result)
