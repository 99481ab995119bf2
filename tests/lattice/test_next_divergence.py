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


@pytest.mark.parametrize(
    ("name", "wrong"), [("side_load_priority", "buggy"), ("ring_rotation", "stuck_rings")]
)
def test_no_window_steps_over_a_tick_known_to_differ(name, wrong):
    """A snapshot known to differ caps the window that would step over it: the same tick is
    found, and the submission runs no further than it must."""
    data = (CASES / "lattice" / "smoke" / f"{name}.lat").read_bytes()
    reference, buggy = (WasmEngine(SUBMISSIONS / n / "engine.wasm") for n in ("reference", wrong))
    ticks = parse_scenario(data).ticks
    parting = partings(data, reference, buggy)[0]
    apart = [
        t for t in range(parting, ticks + 1) if diff_pairs(reference.records(data, t), buggy.records(data, t))
    ]
    cap = apart[1]  # a tick where the states differ, just past the parting
    highs: dict[int | None, list[int]] = {}
    for known_to_differ in (None, cap):
        runs = highs.setdefault(known_to_differ, [])

        def submission(probe: bytes, runs: list[int] = runs) -> list[int]:
            runs.append(parse_scenario(probe).ticks)
            return buggy.run(probe)

        found = next_divergence(
            data,
            start=0,
            end=ticks,
            reference_checksums=reference.run,
            submission_checksums=submission,
            reference_records=lambda t: reference.records(data, t),
            submission_records=lambda t: buggy.records(data, t),
            window=4,
            cap=known_to_differ,
        )
        assert found is not None and found.tick == parting
    assert highs[None][-1] > cap  # doubling steps over it (4, 12, 28, …)
    assert highs[cap][-1] == cap and all(high <= cap for high in highs[cap])
    assert sum(highs[cap]) < sum(highs[None])
