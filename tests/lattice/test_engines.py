"""The bundled wasm engines: the contract, the smoke scenarios, and differential tests
(reference.wasm vs lines.wasm vs the Python engine in `lattice_desktop.lattice.rules`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import wasmtime
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lattice_desktop.lattice import build_engines
from lattice_desktop.lattice.checksum import checksum_from_records
from lattice_desktop.lattice.generator import generate
from lattice_desktop.lattice.rules import Factory, simulate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.stress import stress_scenarios
from lattice_desktop.lattice.wasm_engine import WasmEngine

REPO = Path(__file__).resolve().parents[2]
SMOKE = REPO / "resources" / "cases" / "lattice" / "smoke"
SUBMISSIONS = build_engines.SUBMISSIONS_DIR
NAMES = [sample.name for sample in build_engines.SAMPLES]
SMOKE_FILES = sorted(SMOKE.glob("*.lat"))

REFERENCE = WasmEngine(SUBMISSIONS / "reference" / "engine.wasm")
LINES = WasmEngine(SUBMISSIONS / "lines" / "engine.wasm")
BUGGY = WasmEngine(SUBMISSIONS / "buggy" / "engine.wasm")

# Small worlds with every feature plus random single cells (odd corners of the rules).
scenarios = st.builds(
    lambda seed, w, h, noise, ticks: generate(
        seed, width=w, height=h, ticks=ticks, snapshot=3, density=1.0, noise=noise
    ),
    st.integers(0, 2**32),
    st.integers(1, 40),
    st.integers(1, 30),
    st.sampled_from([0.0, 0.05, 0.2]),
    st.integers(1, 120),
)
FAST = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def tiny(grid: list[str], *header: str, ticks: int = 8, snapshot: int = 1) -> bytes:
    lines = ["lattice 1", f"size {len(grid[0])} {len(grid)}", f"ticks {ticks}"]
    lines += [f"snapshot {snapshot}", *header, "grid", *grid]
    return ("\n".join(lines) + "\n").encode()


def belt_items(records: dict[int, int]) -> set[tuple[int, int, int]]:
    """(cell, slot, type) of every belt item in a record set."""
    return {((k >> 16) & 0xFFFFFF, (k >> 8) & 0xFF, k & 0xFF) for k in records if k >> 56 == 1}


# ---- the contract (§7, §8) ----


@pytest.mark.parametrize("name", NAMES)
def test_exports_exactly_the_contract_and_imports_nothing(name):
    engine = wasmtime.Engine()
    module = wasmtime.Module.from_file(engine, str(SUBMISSIONS / name / "engine.wasm"))
    assert list(module.imports) == []
    exports = {e.name: e.type for e in module.exports}
    # The contract (§7, §8) plus the documented inspection exports used for playback.
    assert set(exports) == {
        "memory",
        "alloc",
        "lattice_run",
        "lattice_records",
        "lattice_begin",
        "lattice_step",
        "lattice_records_now",
    }
    assert isinstance(exports["memory"], wasmtime.MemoryType)
    i32, i64 = wasmtime.ValType.i32(), wasmtime.ValType.i64()
    assert list(exports["alloc"].params) == [i32] and list(exports["alloc"].results) == [i32]
    assert list(exports["lattice_run"].params) == [i32, i32]
    assert list(exports["lattice_run"].results) == [i64]
    assert list(exports["lattice_records"].params) == [i32, i32, i64]
    assert list(exports["lattice_records"].results) == [i64]


@pytest.mark.parametrize("name", NAMES)
def test_submission_folder_builds_on_its_own(name):
    folder = SUBMISSIONS / name
    assert (folder / build_engines.COMMON_HEADER).read_bytes() == (
        build_engines.ENGINES_DIR / build_engines.COMMON_HEADER
    ).read_bytes()
    assert (folder / "engine.c").read_bytes() == (build_engines.ENGINES_DIR / f"{name}.c").read_bytes()
    sample = next(s for s in build_engines.SAMPLES if s.name == name)
    assert (folder / "submission.toml").read_text() == build_engines.manifest_text(sample)


@pytest.mark.skipif(importlib.util.find_spec("ziglang") is None, reason="ziglang not installed")
@pytest.mark.slow
def test_rebuild_is_byte_identical(tmp_path):
    built = build_engines.build_all(tmp_path)
    for path in built:
        committed = SUBMISSIONS / path.parent.name / "engine.wasm"
        assert path.read_bytes() == committed.read_bytes(), path.parent.name


def test_buggy_differs_from_reference_in_the_side_load_ranking_only():
    ref = (build_engines.ENGINES_DIR / "reference.c").read_text().splitlines()
    bug = (build_engines.ENGINES_DIR / "buggy.c").read_text().splitlines()
    code = [(a, b) for a, b in zip(ref[1:], bug[5:], strict=True) if a != b]
    assert code == [
        (
            "/* The order in which contenders for slot 0 are ranked: behind, left, right (§4c). */",
            "/* The order in which contenders for slot 0 are ranked. WRONG on purpose: "
            "behind, right, left. */",
        ),
        (
            "static const u32 CONTENDER_ORDER[3] = {0, 1, 2};",
            "static const u32 CONTENDER_ORDER[3] = {0, 2, 1};",
        ),
    ]


# ---- hand-worked cases ----


def test_source_to_sink_by_hand():
    data = tiny(["S>>K"], "source 0 0 E 7 2", ticks=12)
    # Produced at t = 1, 3, 5, ...; each item enters slot 0 on its production tick and
    # needs 8 moves to leave the second belt, so the first reaches the sink at t = 9.
    assert belt_items(REFERENCE.records(data, 1)) == {(1, 0, 7)}
    assert belt_items(REFERENCE.records(data, 4)) == {(1, 3, 7), (1, 1, 7)}
    assert belt_items(REFERENCE.records(data, 5)) == {(2, 0, 7), (1, 2, 7), (1, 0, 7)}
    assert REFERENCE.records(data, 8).get((3 << 56) | (3 << 16) | 7) is None
    assert REFERENCE.records(data, 9)[(3 << 56) | (3 << 16) | 7] == 1
    assert REFERENCE.records(data, 12)[(3 << 56) | (3 << 16) | 7] == 2


def test_full_ring_rotates_and_a_corner_feeder_jams_it_by_hand():
    # A 2x2 clockwise ring fed from behind its top-left corner: the feeder outranks the
    # ring's own item there, so once the ring is full nothing moves.
    data = tiny(["S>v", ".^<"], "source 0 0 E 3 1", ticks=40)
    for engine in (REFERENCE, LINES):
        full = engine.records(data, 30)
        assert len(belt_items(full)) == 16
        assert engine.records(data, 31) == full
    # Fed from the outside of a straight edge, the ring's own item wins: a full ring turns.
    data = tiny([".S..", ">>>v", "^..v", "^<<<", "..S."], "source 1 0 S 3 1", "source 2 4 N 5 1", ticks=80)
    for engine in (REFERENCE, LINES):
        a, b = belt_items(engine.records(data, 70)), belt_items(engine.records(data, 71))
        assert len(a) == len(b) == 40 and a != b
        assert {t for _, _, t in a} == {3, 5}
        assert engine.records(data, 70)[(2 << 56) | (1 << 16) | 3] == 1


@pytest.mark.parametrize("name", NAMES)
def test_records_recompute_the_checksum(name):
    engine = WasmEngine(SUBMISSIONS / name / "engine.wasm")
    data = generate(7, width=30, height=20, ticks=40, snapshot=10, noise=0.05).encode()
    sums = engine.run(data)
    assert len(sums) == 4
    for i, tick in enumerate((10, 20, 30, 40)):
        assert checksum_from_records(engine.records(data, tick), tick) == sums[i]


# ---- smoke scenarios: every engine against the Python reference ----


@pytest.mark.parametrize("path", SMOKE_FILES, ids=lambda p: p.stem)
def test_smoke_reference_and_lines_match_python(path):
    data = path.read_bytes()
    expected = simulate(parse_scenario(data))
    assert REFERENCE.run(data) == expected
    assert LINES.run(data) == expected


@pytest.mark.parametrize("path", SMOKE_FILES, ids=lambda p: p.stem)
def test_buggy_fails_only_side_load_priority(path):
    data = path.read_bytes()
    same = BUGGY.run(data) == REFERENCE.run(data)
    assert same == (path.stem not in ("side_load_priority", "side_load_priority_all_sides"))


def test_buggy_takes_the_right_side_load_first():
    # Belt (1, 1) faces E; its left neighbour is north (type 1), its right south (type 2).
    data = tiny([".S.", ".>K", ".S."], "source 1 0 S 1 1", "source 1 2 N 2 1")
    assert belt_items(REFERENCE.records(data, 1)) == {(4, 0, 1)}
    assert belt_items(BUGGY.records(data, 1)) == {(4, 0, 2)}
    assert BUGGY.run(data) != REFERENCE.run(data)


def test_buggy_differs_on_some_generated_merges():
    runs = [
        generate(seed, width=40, height=30, ticks=150, snapshot=10, features=("merges",)).encode()
        for seed in range(12)
    ]
    assert any(BUGGY.run(data) != REFERENCE.run(data) for data in runs)


# ---- differential ----


@FAST
@given(scenarios)
@pytest.mark.slow
def test_lines_matches_reference(text):
    data = text.encode()
    assert LINES.run(data) == REFERENCE.run(data)


@SLOW
@given(scenarios)
def test_reference_matches_python(text):
    data = text.encode()
    assert REFERENCE.run(data) == simulate(parse_scenario(data))


@SLOW
@given(scenarios, st.integers(0, 60))
def test_records_match_across_engines(text, tick):
    data = text.encode()
    factory = Factory(parse_scenario(data))
    factory.run_to(tick)
    expected = factory.records()
    assert REFERENCE.records(data, tick) == expected
    assert LINES.records(data, tick) == expected


def test_large_grid_does_not_crash():
    data = generate(11, width=4096, height=64, ticks=3, snapshot=1, density=0.05)
    assert LINES.run(data.encode()) == REFERENCE.run(data.encode())


# ---- stress cases ----

STRESS = stress_scenarios()


def test_stress_cases_grow_to_a_large_busy_factory():
    assert len(STRESS) >= 5
    sizes = [case.size for case in STRESS]
    assert sizes == sorted(sizes) and sizes[-1] >= 512
    largest = STRESS[-1]
    data = largest.text().encode()
    for tick in range(largest.snapshot, largest.ticks + 1, largest.snapshot):
        items = sum(1 for key in LINES.records(data, tick) if key >> 56 == 1)
        assert items >= 100_000, tick


# Both engines' runs of every stress case, their agreement and the largest case's 20x fuel
# gap are checked once, where the case rebuild measures them:
# tests/lattice/test_case_builder.py::test_a_rebuild_gives_each_stress_case_its_committed_answer_fuel_and_census
