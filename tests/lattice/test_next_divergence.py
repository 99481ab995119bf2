"""`next_divergence`: the first tick after a given one where a wrong engine's state parts
from the reference's, found with per-tick checksums and checked against the records of
every tick, run by the real engines."""

from __future__ import annotations

import pytest

from lattice_desktop.lattice.divergence import next_divergence, rewrite_run
from lattice_desktop.lattice.records import diff_pairs
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.resources import CASES
from lattice_desktop.work import Work

SUBMISSIONS = CASES / "lattice" / "submissions"
pytestmark = pytest.mark.skipif(
    not (SUBMISSIONS / "buggy" / "engine.wasm").is_file(), reason="the bundled sample engines are not built"
)


def partings(data: bytes, reference: WasmEngine, other: WasmEngine) -> list[int]:
    """Every tick where the records differ after a tick where they agreed, tick by tick."""
    ticks = parse_scenario(data).ticks
    apart = [bool(diff_pairs(reference.records(data, t), other.records(data, t))) for t in range(ticks + 1)]
    return [t for t in range(1, ticks + 1) if apart[t] and not apart[t - 1]]


@pytest.mark.parametrize("name", ["side_load_priority", "ring_rotation"])
def test_it_stops_on_each_tick_where_the_states_part(name):
    data = (CASES / "lattice" / "smoke" / f"{name}.lat").read_bytes()
    reference, buggy = (WasmEngine(SUBMISSIONS / n / "engine.wasm") for n in ("reference", "buggy"))
    ticks = parse_scenario(data).ticks
    steps: list[str] = []
    work = Work(lambda step: steps.append(step.message))
    found, start = [], 0
    while True:
        divergence = next_divergence(
            data,
            start=start,
            end=ticks,
            reference_checksums=reference.run,
            submission_checksums=buggy.run,
            reference_records=lambda t: reference.records(data, t),
            submission_records=lambda t: buggy.records(data, t),
            work=work,
            window=4,
        )
        if divergence is None:
            break
        assert divergence.diffs and divergence.agreed == divergence.tick - 1
        found.append(divergence.tick)
        start = divergence.tick
    assert found == partings(data, reference, buggy)
    assert any(s.startswith("compared tick by tick through") for s in steps)  # progress on the way
    assert name != "side_load_priority" or found[:1] == [2]


def test_a_second_search_reads_the_reference_checksums_the_first_one_ran():
    data = (CASES / "lattice" / "smoke" / "side_load_priority.lat").read_bytes()
    reference, buggy = (WasmEngine(SUBMISSIONS / n / "engine.wasm") for n in ("reference", "buggy"))
    ticks = parse_scenario(data).ticks
    reference_runs: list[int] = []

    def counted(probe: bytes) -> list[int]:
        reference_runs.append(len(probe))
        return reference.run(probe)

    known: list[int] = []
    found, runs_after = [], []
    for _ in range(2):  # the same search twice: the second runs only the submission
        divergence = next_divergence(
            data,
            start=0,
            end=ticks,
            reference_checksums=counted,
            submission_checksums=buggy.run,
            reference_records=lambda t: reference.records(data, t),
            submission_records=lambda t: buggy.records(data, t),
            window=4,
            known=known,
        )
        assert divergence is not None
        found.append(divergence.tick)
        runs_after.append(len(reference_runs))
    assert found[0] == found[1] == partings(data, reference, buggy)[0]
    assert runs_after[0] >= 1 and runs_after[1] == runs_after[0]
    assert len(known) >= found[0]
    assert known == reference.run(rewrite_run(data, ticks=len(known), snapshot=1))
