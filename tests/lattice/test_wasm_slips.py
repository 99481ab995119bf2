"""The wasm slips (`slip_engines/engine.c`, `wasm_slips.py`) are the Python mutants in C: the
switch-less build is the reference, each slip gives its Python mutant's checksums, and each
is caught by the small stress cases where its rule is decisive. `python -m
tests.lattice.wasm_slips` runs them on every stress case."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from lattice_desktop.lattice.build_engines import COMPILE_ARGS
from lattice_desktop.lattice.census import stored_census
from lattice_desktop.lattice.generator import generate
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case
from tests.lattice.mutants import CAUGHT_BY, Mutant
from tests.lattice.wasm_slips import COMMON_HEADER, ENGINE_C, SLIPS, first_wrong, macro, run

CASE = load_case(demo_case())
SMOKE = {entry.name: entry.input_bytes() for entry in CASE.smoke}
# Small scenarios the Python mutants run in a blink: the default features, and rings (which
# fill only in a longer run).
GENERATED = {
    "gen-2": generate(2, width=16, height=16, ticks=40, snapshot=4),  # an item lands on another
    "gen-5": generate(5, width=16, height=16, ticks=40, snapshot=4),
    "gen-7": generate(7, width=16, height=16, ticks=40, snapshot=5, noise=0.2),
    "rings-8": generate(8, width=12, height=12, ticks=80, snapshot=8, features=("rings", "jammed_rings")),
}
# A grid one cell wide, where c ± 1 and c ± W coincide: with wrapped exits the belt above
# the assembler reaches it from its N and its W side, the one below from its E and S, so
# mutants.py ranks them N, E, S, W = above, below, below, above (not by exit direction).
NARROW = b"""lattice 1
size 1 5
ticks 12
snapshot 1
recipe 1 9 50 1:1
source 0 0 S 1 1
assembler 0 2 E 1
source 0 4 N 1 1
grid
S
>
A
<
S
"""
SCENARIOS = {**SMOKE, **{name: text.encode() for name, text in GENERATED.items()}, "narrow": NARROW}
IDS = [slip.__name__ for slip in SLIPS]


def python_checksums(engine: type[Mutant], data: bytes) -> list[int]:
    scenario = parse_scenario(data)
    factory = engine(scenario)
    out = []
    for _ in range(scenario.snapshots):
        factory.run_to(factory.tick + scenario.snapshot)
        out.append(factory.checksum())
    return out


def expected(entry_name: str) -> list[int]:
    return np.frombuffer(CASE.entry(entry_name).expected_bytes(), "<u8").tolist()


@pytest.mark.parametrize("name", [*sorted(SMOKE), "stress-64"])
def test_without_a_slip_the_engine_gives_the_expected_answers(name):
    assert run(None, CASE.entry(name).input_bytes()) == expected(name)


def test_without_a_slip_the_engine_is_the_python_reference_on_the_small_scenarios():
    for name in [*GENERATED, "narrow"]:
        data = SCENARIOS[name]
        assert run(None, data) == simulate(parse_scenario(data)), name


def test_every_slip_has_its_own_switch_and_an_unknown_one_does_not_build(tmp_path):
    source = ENGINE_C.read_text()
    numbers = {macro(slip): re.search(rf"#define {macro(slip)} (\d+)\n", source) for slip in SLIPS}
    assert all(numbers.values()), [name for name, found in numbers.items() if not found]
    assert sorted(int(found[1]) for found in numbers.values()) == list(range(1, len(SLIPS) + 1))
    # a misspelt switch must not quietly build the reference
    shutil.copyfile(ENGINE_C, tmp_path / "engine.c")
    shutil.copyfile(COMMON_HEADER, tmp_path / "lattice_common.h")
    args = [*COMPILE_ARGS]
    args.insert(args.index("-o"), "-DSLIP=SLOT_ONE_LANDNIG")
    done = subprocess.run([sys.executable, *args], check=False, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode != 0 and "SLIP names no slip" in done.stderr
    assert not (tmp_path / "engine.wasm").exists()


@pytest.mark.parametrize("slip", SLIPS, ids=IDS)
def test_a_wasm_slip_gives_its_python_mutants_checksums(slip):
    differs = []
    for name, data in SCENARIOS.items():
        got, want = run(slip, data), python_checksums(slip, data)
        assert got == want, f"{name}: snapshot {first_wrong(got, want)} differs"
        differs += [name] if got != run(None, data) else []
    # not vacuous: the slip shows on the smoke test named after its rule, at least
    (named,) = [name for name, slips in CAUGHT_BY.items() if slip in slips]
    assert named in differs, slip.slip


@pytest.mark.parametrize("case_name", ["stress-64", "stress-128"])
@pytest.mark.parametrize("slip", SLIPS, ids=IDS)
def test_a_wasm_slip_is_caught_where_its_rule_is_decisive(slip, case_name):
    data = CASE.entry(case_name).input_bytes()
    counted = stored_census(data, case_dir=CASE.path.parent)
    assert counted is not None
    if getattr(counted, slip.decisive) == 0:
        pytest.skip(f"{slip.decisive} is 0 in {case_name}")
    assert first_wrong(run(slip, data), expected(case_name)) is not None, slip.slip


# The whole checksum list of the smallest stress case, where every rule is decisive: a
# second of pure Python per slip.
@pytest.mark.slow
@pytest.mark.parametrize("slip", SLIPS, ids=IDS)
def test_a_wasm_slip_gives_its_python_mutants_checksums_on_the_smallest_stress_case(slip):
    data = CASE.entry("stress-64").input_bytes()
    assert run(slip, data) == python_checksums(slip, data)
