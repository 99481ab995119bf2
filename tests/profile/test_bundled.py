"""Every bundled sample's profile adds up to the fuel the grader records, to the unit."""

from __future__ import annotations

from functools import cache

import pytest

from lattice_desktop.grading.grader import grade_entry
from lattice_desktop.lattice.build_engines import SAMPLES, SUBMISSIONS_DIR
from lattice_desktop.manifest.case import load_case
from lattice_desktop.profile.instrument import instrument
from lattice_desktop.profile.run import profile_case
from lattice_desktop.resources import demo_case
from lattice_desktop.sandbox.compiler import compile_module
from lattice_desktop.work import Work

NAMES = [sample.name for sample in SAMPLES]


@cache
def _case():
    return load_case(demo_case())


@cache
def _module(name: str) -> tuple[bytes, object, object]:
    wasm = (SUBMISSIONS_DIR / name / "engine.wasm").read_bytes()
    compiled = compile_module(wasm, max_bytes=1 << 24, timeout=60).module
    return wasm, compiled, instrument(wasm)


def _check(name: str, case_name: str) -> int:
    case = _case()
    entry = case.entry(case_name)
    wasm, compiled, instrumented = _module(name)
    graded = grade_entry(case, entry, compiled, Work())
    assert graded.fuel is not None, graded.detail
    profile = profile_case(wasm, case, entry, instrumented=instrumented)
    assert profile.outcome == "returned", profile.detail
    assert profile.total == graded.fuel, (name, case_name)
    assert sum(f.self_fuel for f in profile.functions) == graded.fuel
    assert profile.instrumented_fuel is not None and profile.instrumented_fuel > profile.total
    return graded.fuel


@pytest.mark.parametrize("name", NAMES)
def test_profile_total_is_the_graded_fuel_on_a_smoke_case(name):
    _check(name, _case().smoke[0].name)


def test_profile_total_is_the_graded_fuel_on_the_smallest_stress_case():
    smallest = min(_case().stress, key=lambda e: e.size)
    _check("lines", smallest.name)


# `buggy` is `reference` with one rule changed: the same functions, the same fuel to within a
# percent. At full size it repeats the reference's 105 G fuel (twice: graded, then profiled)
# and adds no path, so it runs every smoke test and the two smallest stress cases. The
# reference runs those and the largest: the full-size path, past 2**32 fuel in one call. Its
# middle sizes (6 to 31 G fuel) take no other path (2**32 is already crossed at 512) and cost
# 8 of its 17 s of CPU. The `lines` engines are cheap at any size and run every case.
REFERENCE_TWINS = {"buggy"}
REFERENCE_SIZES = {"reference"}


def _entries(name: str) -> list:
    case = _case()
    if name in REFERENCE_TWINS:
        return [*case.smoke, *case.stress[:2]]
    if name in REFERENCE_SIZES:
        return [*case.smoke, *case.stress[:2], max(case.stress, key=lambda e: e.size)]
    return case.cases


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_profile_total_is_the_graded_fuel_on_every_case(name):
    fuels = [_check(name, entry.name) for entry in _entries(name)]
    if name in REFERENCE_SIZES:  # the full-size path: one call past 2**32 fuel
        assert max(fuels) > 2**32, fuels


def test_bundled_profiles_read_as_their_c_functions():
    case = _case()
    wasm, _, instrumented = _module("lines")
    profile = profile_case(wasm, case, case.smoke[0], instrumented=instrumented)
    names = {f.name for f in profile.functions}
    assert {"lattice_run", "alloc", "engine_tick", "decide", "parse"} <= names
    assert not any(name.startswith("func[") for name in names)
