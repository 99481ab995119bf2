"""Every number a harness run's page prints follows the one rounding rule
(`formatting.rounded`: two decimals, half up from the exact value): formulas included, where
an Inspect AI log's float times once printed as "0.6594527639999797". The stored formula
keeps its operands exact, so a run still recomputes from it."""

from __future__ import annotations

import re
from fractions import Fraction

from harness_builders import RESOURCES

from lattice_desktop.formatting import rounded
from lattice_desktop.harness import parse_box, parse_trace, score
from lattice_desktop.harness.inspect_log import read_inspect_log
from lattice_desktop.harness.metric import shown_formula
from lattice_desktop.services.exports.harness_export import harness_html, harness_table
from lattice_desktop.services.harness_import import import_traces
from lattice_desktop.store.database import open_database
from lattice_desktop.store.harness_runs import load_harness_run
from lattice_desktop.store.writer import Writer

INSPECT = RESOURCES / "inspect"
NUMBER = re.compile(r"(?<![\w.])≈?(\d+)\.(\d+)(?![\w.])")


def decimals(text: str) -> list[int]:
    """How many decimals each number in `text` has (names such as "v1.234" are not numbers)."""
    return [len(match.group(2)) for match in NUMBER.finditer(text)]


def inspect_result():
    box = parse_box((INSPECT / "webshop_ctf.box.toml").read_text(), source="webshop_ctf.box.toml")
    (sample,) = read_inspect_log(INSPECT / "webshop_ctf.eval", box)
    return score(box, parse_trace(sample.text, source=sample.source))


def test_an_inspect_runs_formulas_print_every_number_by_the_rule():
    result = inspect_result()
    metrics = {**result.metrics, "execution": result.execution}
    # The stored formulas carry the log's float times and exact sums in full...
    assert "0.6594527639999797" in metrics["time"].formula
    assert max(decimals(metrics["time"].formula)) > 2
    assert max(decimals(metrics["execution"].formula)) > 2
    # ...and as a page prints them, no number has more than the rule's two decimals.
    for name, metric in metrics.items():
        assert max(decimals(metric.shown_formula), default=0) <= 2, (name, metric.shown_formula)
    time = metrics["time"].shown_formula
    assert time.startswith("elapsed = (≈0.66 - 0.00) - ≈0.01 paused = ≈0.65 s;")
    assert time.endswith(f"= {metrics['time'].shown}")


def test_a_rounded_number_is_marked_and_rounded_half_up_from_its_exact_decimal():
    # 0.575 is 23/40 exactly: half up gives 0.58 (a binary float once gave 0.57); 0.125 -> 0.13.
    assert shown_formula("x = (0.575 + 0.125) / 2.00") == "x = (≈0.58 + ≈0.13) / 2.00"
    for text in ("0.575", "0.125", "0.6594527639999797", "1440.005", "0.0049999"):
        assert shown_formula(text) == f"≈{rounded(Fraction(text))}"
    # Numbers already at two decimals, integers, small fractions and names stay as written.
    kept = "Score = (user 2.00 + v1.2345) / 5.00 = 0.40; refusals = 1 / (1 + 3) = 0.25; mean(4/7)"
    assert shown_formula(kept) == kept
    # A 9-digit approximation is rounded like the rest, one "≈" only.
    assert shown_formula("0.25 x ≈0.998923746") == "0.25 x ≈1.00"


def test_the_html_export_prints_formulas_by_the_rule_and_the_csv_keeps_them_exact(tmp_path):
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
    cells = re.findall(r"<td[^>]*>(.*?)</td>", html)
    assert "elapsed = (≈0.66 - 0.00)" in html and "0.6594527639999797" not in html
    assert all(max(decimals(cell), default=0) <= 2 for cell in cells), cells
    assert "the CSV export carries each formula exactly" in html
    formulas = {row[6]: row[11] for row in harness_table(stored).rows}
    assert "0.6594527639999797" in str(formulas["time"])
