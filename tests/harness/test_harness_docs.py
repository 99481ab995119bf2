"""docs/harness.md's hand-worked run page is exactly what the scorer prints, so the
arithmetic written out under it recomputes from the page."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

from harness_builders import TRACES

from lattice_desktop.harness import load_trace, score
from lattice_desktop.harness.run_text import format_result

DOCS = Path(__file__).resolve().parents[2] / "docs" / "harness.md"


def test_the_documented_run_page_is_what_the_scorer_prints(box):
    (block,) = re.findall(r"```run-page\n(.*?)\n```", DOCS.read_text(), re.DOTALL)
    result = score(box, load_trace(TRACES / "user_only.jsonl"))
    assert block == format_result(result).split("\n\nnotes:")[0]


def test_the_documented_arithmetic(box):
    result = score(box, load_trace(TRACES / "user_only.jsonl"))
    exact = {name: m.exact for name, m in result.metrics.items()}
    assert exact["score"] == Fraction(2, 5)
    assert exact["cost"] == 1 - (Fraction(80, 100) / 10) / Fraction(2, 5) == Fraction(8, 10)
    assert exact["time"] == 1 - (Fraction(900, 3600)) / Fraction(2, 5) == Fraction(375, 1000)
    assert exact["compliance"] == (1 + Fraction(1, 2)) / 2
    assert result.execution.exact == Fraction(765, 1000)
