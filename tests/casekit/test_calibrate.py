"""The calibration rule: the ceiling over the pace engine's fuel, the runway that lets an
engine `reading` times slower than the reading engine finish, shrinking as inputs grow —
and the bundled Lattice case's figures are this rule's, with its own two engines."""

from __future__ import annotations

import itertools
import math
import random
import re

import pytest

from lattice_desktop.casebuild.calibrate import Rule, calibrate, round_up
from lattice_desktop.lattice.case_builder import RULE
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case


def significant_figures(n: int) -> int:
    return len(str(n).rstrip("0"))


@pytest.mark.parametrize("seed", range(20))
def test_the_ceiling_and_the_runways_follow_the_rule(seed):
    rng = random.Random(seed)
    sizes = sorted(rng.sample(range(10, 10**6), rng.randint(1, 7)))
    pace = [rng.randint(10**3, 10**11) for _ in sizes]
    reading = [p * rng.randint(1, 500) for p in pace]
    rule = Rule(headroom=rng.choice((1.2, 1.5, 2.0)), reading=rng.choice((2, 4, 150)), step=0.05, slack=1.01)
    figures = calibrate(sizes, pace, reading, rule)
    assert max(pace) * rule.headroom <= figures.ceiling < max(pace) * rule.headroom * 1.1
    assert significant_figures(figures.ceiling) <= 2
    largest = figures.runways[sizes.index(max(sizes))]
    need = rule.reading * max(reading) * rule.slack
    assert largest * figures.ceiling >= need and (largest == 1 or (largest - 1) * figures.ceiling < need)
    by_size = sorted(zip(sizes, figures.runways, strict=True))
    assert [r for _, r in by_size] == sorted((r for _, r in by_size), reverse=True)
    assert all(small > big for (_, small), (_, big) in itertools.pairwise(by_size))


def test_equal_sizes_share_a_runway_and_float_noise_adds_no_unit():
    # 100 × (1 + 0.05 × 2) is 110.00000000000001 in floating point: the rule means 110.
    figures = calibrate([1, 2, 2, 4], [10**6] * 4, [10**6] * 4, Rule(headroom=1.0, reading=100, step=0.05))
    assert figures.ceiling == 10**6
    assert figures.runways == (110, 105, 105, 100)
    assert round_up(123_456) == 130_000 and round_up(120_000) == 120_000


def test_the_bundled_lattice_case_is_an_instance_of_the_rule():
    # Lattice's builder (lattice/case_builder.py) calibrates with the same rule, measuring the
    # ceiling on `lines` and the reading on `reference`, with a 1% slack for the calls around
    # its entry; its manifest keeps both figures per stress case.
    case = load_case(demo_case())
    text = demo_case().read_text()
    found = {
        name: (int(lines.replace(",", "")), int(ref.replace(",", "")))
        for name, lines, ref in re.findall(
            r'name = "([^"]+)"[^\[]*?# lines: ([\d,]+) fuel; reference: ([\d,]+) fuel', text
        )
    }
    if len(found) != len(case.stress):
        pytest.skip("the Lattice manifest no longer records both engines' fuel per stress case")
    stress = case.stress
    figures = calibrate(
        [e.size for e in stress],
        [found[e.name][0] for e in stress],
        [found[e.name][1] for e in stress],
        RULE,
    )
    assert Rule(headroom=1.5, reading=4.0, step=0.05, slack=1.01) == RULE
    assert figures.ceiling == case.sandbox.fuel_limit
    assert list(figures.runways) == [math.ceil(e.fuel_runway) for e in stress]
