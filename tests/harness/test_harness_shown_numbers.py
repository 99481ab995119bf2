"""Every number a harness run's page prints follows one rule: a formula's operands are the
exact values its result was computed from (an Inspect AI log's float times in full,
"0.6594527639999797"; a fraction with no finite decimal as p/q), and only results are
rounded (`formatting.rounded`: two decimals, half up from the exact value). So the page's
own numbers give the page's results (test_harness_pages_recompute.py checks every surface).
Scorer version 4 rounded operands too and marked them "≈": the Execution of the bundled
schema_violation run read "(0.30 x ≈0.93 + … + 0.20 x ≈0.98 + …) = 0.97", whose numbers
give 0.98."""

from __future__ import annotations

import re
from fractions import Fraction
from html import escape

from harness_builders import RESOURCES

from lattice_desktop.harness import parse_box, parse_trace, score
from lattice_desktop.harness.inspect_log import read_inspect_log
from lattice_desktop.harness.metric import Metric, divisor, num
from lattice_desktop.services.exports.harness_export import harness_html, harness_table
from lattice_desktop.services.harness_import import import_traces
from lattice_desktop.store.database import open_database
from lattice_desktop.store.harness_runs import load_harness_run
from lattice_desktop.store.writer import Writer

INSPECT = RESOURCES / "inspect"


def inspect_result():
    box = parse_box((INSPECT / "webshop_ctf.box.toml").read_text(), source="webshop_ctf.box.toml")
    (sample,) = read_inspect_log(INSPECT / "webshop_ctf.eval", box)
    return score(box, parse_trace(sample.text, source=sample.source))


def test_an_inspect_runs_formulas_are_printed_as_computed():
    result = inspect_result()
    time = result.metrics["time"]
    assert time.shown_formula == time.formula
    assert time.formula.startswith("elapsed = (0.6594527639999797 - 0.00) - ")
    assert time.formula.endswith(f"= {time.shown}")
    for metric in [*result.metrics.values(), result.execution]:
        assert "≈" not in metric.shown_formula


def test_an_operand_is_never_approximated():
    assert num(Fraction(10_000_000, 10_000_001)) == "10000000/10000001"
    assert num(Fraction(1, 3)) == "1/3" and num(Fraction(23, 40)) == "0.575"
    assert num(0.6594527639999797) == "0.6594527639999797" and num(0.3) == "0.30"
    # A fraction that divides is bracketed: "/ 5/11" would read as "/ 5 / 11".
    assert divisor(Fraction(5, 11)) == "(5/11)" and divisor(Fraction(2, 5)) == "0.40"
    # Only the result is rounded, half up from the exact value.
    assert Metric(Fraction(23, 40), "recorded", "x").shown == "0.58"


def test_the_html_and_the_csv_print_the_same_exact_formulas(tmp_path):
    writer = Writer(open_database(tmp_path / "h.db"))
    try:
        (stored_id,) = import_traces(
            writer, INSPECT / "webshop_ctf.box.toml", [INSPECT / "webshop_ctf.eval"]
        ).stored
    finally:
        writer.close()
    stored = load_harness_run(stored_id)
    assert stored is not None
    html = harness_html(stored)
    assert "elapsed = (0.6594527639999797 - 0.00)" in html and "≈" not in html
    formulas = {row[6]: row[11] for row in harness_table(stored).rows}
    assert "0.6594527639999797" in str(formulas["time"])
    cells = re.findall(r"<td[^>]*>(.*?)</td>", html)
    for formula in formulas.values():
        assert escape(str(formula)) in cells
