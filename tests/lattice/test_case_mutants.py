"""A mutation test of the bundled case itself: every smoke test fails the engine that gets
its own rule wrong (`mutants.py`), so a wrong engine is stopped by the smoke test that
names its mistake, not late on a large stress case."""

from __future__ import annotations

import numpy as np
import pytest

from lattice_desktop.lattice.census import DECISIVE_FIELDS, stored_census
from lattice_desktop.lattice.decisive import DECISIVE
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case
from tests.lattice.mutants import CAUGHT_BY, CAUGHT_SINCE_V5, Mutant
from tests.lattice.slips import first_wrong_snapshot

CASE = load_case(demo_case())
SMOKE = {entry.name: entry for entry in CASE.smoke}
# a rule's first smoke test (since version 6 nine rules have a second, with the same behaviour)
FIRST = {e.name for e in CASE.smoke if e is next(f for f in CASE.smoke if f.behaviour == e.behaviour)}
PAIRS = [(name, mutant) for name, mutants in CAUGHT_BY.items() for mutant in mutants]


def run(engine: type, name: str) -> list[int]:
    scenario = parse_scenario(SMOKE[name].input_bytes(), source=name)
    factory = engine(scenario)
    out = []
    for _ in range(scenario.snapshots):
        factory.run_to(factory.tick + scenario.snapshot)
        out.append(factory.checksum())
    return out


def test_every_smoke_test_names_the_slips_it_must_catch():
    assert sorted(CAUGHT_BY) == sorted(FIRST)


@pytest.mark.parametrize("name", sorted(SMOKE))
def test_the_mutants_harness_is_the_reference_engine_without_a_slip(name):
    expected = np.frombuffer(SMOKE[name].expected_bytes(), "<u8").tolist()
    assert run(Mutant, name) == expected == simulate(parse_scenario(SMOKE[name].input_bytes()))


@pytest.mark.parametrize(("name", "mutant"), PAIRS, ids=[f"{n}-{m.__name__}" for n, m in PAIRS])
def test_a_smoke_test_fails_the_engine_that_breaks_its_rule(name, mutant):
    expected = np.frombuffer(SMOKE[name].expected_bytes(), "<u8").tolist()
    assert mutant.slip
    assert run(mutant, name) != expected, f"{name} is blind to: {mutant.slip}"


LATER = [(name, mutant) for name, mutants in CAUGHT_SINCE_V5.items() for mutant in mutants]


@pytest.mark.parametrize(("name", "mutant"), LATER, ids=[f"{n}-{m.__name__}" for n, m in LATER])
def test_version_5s_smoke_tests_fail_the_slips_found_by_the_mutation_run(name, mutant):
    """Issue 43: on version 4 a source clock that stops while the buffer is full passed
    source_period_and_full_buffer (caught only by side_load_priority)."""
    expected = np.frombuffer(SMOKE[name].expected_bytes(), "<u8").tolist()
    assert run(mutant, name) != expected, f"{name} is blind to: {mutant.slip}"


def test_every_slip_has_a_decisive_count_and_every_rule_a_slip():
    slips = [m for mutants in CAUGHT_BY.values() for m in mutants]
    assert all(m.decisive in DECISIVE_FIELDS for m in slips)
    assert sorted({m.decisive for m in slips}) == sorted(DECISIVE_FIELDS)
    assert sorted({rule.split("/")[0] for rule in DECISIVE}) == sorted(CAUGHT_BY)


# Every stress case is checked this way by `python -m tests.lattice.slips` (minutes of
# pure Python); the suite runs the smallest, where every rule is decisive too.
@pytest.mark.slow
@pytest.mark.parametrize("mutant", [m for _, m in PAIRS], ids=[m.__name__ for _, m in PAIRS])
def test_a_slip_fails_the_smallest_stress_case_where_its_rule_is_decisive(mutant):
    entry = CASE.entry("stress-64")  # the smallest square one; stress-24-long is for length
    counted = stored_census(entry.input_bytes(), case_dir=CASE.path.parent)
    assert counted is not None and getattr(counted, mutant.decisive) > 0
    expected = np.frombuffer(entry.expected_bytes(), "<u8").tolist()
    assert first_wrong_snapshot(mutant, entry.input_bytes(), expected) is not None, mutant.slip
