"""Playback: any tick from keyframes equals stepping the reference rules from scratch."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from lattice_desktop.errors import Cancelled
from lattice_desktop.lattice.generator import generate
from lattice_desktop.lattice.playback import Playback, state_bytes
from lattice_desktop.lattice.rules import Factory
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.simulators import (
    PythonSimulator,
    ReplaySimulator,
    WasmSimulator,
    state_from_records,
    stepping_module,
)
from lattice_desktop.lattice.view import FactoryState
from lattice_desktop.lattice.wasm_engine import REFERENCE_WASM, WasmEngine
from lattice_desktop.memory_release import give_back
from lattice_desktop.work import Step, Work
from tests.lattice.slow_state import slow_state, state_of

REPO = Path(__file__).resolve().parents[2]
SMOKE = REPO / "resources" / "cases" / "lattice" / "smoke"
ENGINES = REPO / "resources" / "engines"


def cancelled() -> Work:
    work = Work()
    work.cancel()
    return work


def same_state(a: FactoryState, b: FactoryState) -> bool:
    return (
        a.tick == b.tick
        and np.array_equal(a.entity, b.entity)
        and np.array_equal(a.direction, b.direction)
        and np.array_equal(a.slots, b.slots)
        and np.array_equal(a.source_buffer, b.source_buffer)
        and a.sink_counts == b.sink_counts
        and {c: (r, o, {k: v for k, v in buf.items() if v}) for c, (r, o, buf) in a.assemblers.items()}
        == {c: (r, o, {k: v for k, v in buf.items() if v}) for c, (r, o, buf) in b.assemblers.items()}
    )


def from_scratch(data: bytes, tick: int) -> FactoryState:
    factory = Factory(parse_scenario(data))
    factory.run_to(tick)
    return state_of(factory)


def scenarios() -> list[tuple[str, bytes]]:
    smoke = [(p.stem, p.read_bytes()) for p in sorted(SMOKE.glob("*.lat"))]
    mixed = generate(11, width=40, height=30, ticks=120, snapshot=10, density=1.0, noise=0.02)
    return [*smoke, ("generated", mixed.encode())]


@pytest.fixture(scope="module")
def stepping_wasm() -> Path:
    """The bundled reference engine, which carries the playback (inspection) exports."""
    assert stepping_module(REFERENCE_WASM) is not None
    return REFERENCE_WASM


@pytest.mark.parametrize(("name", "data"), scenarios(), ids=[n for n, _ in scenarios()])
def test_python_keyframes_match_stepping_from_scratch(name, data):
    ticks = parse_scenario(data).ticks
    playback = Playback(data, None, keyframe_every=3)
    order = list(range(ticks + 1))
    random.Random(name).shuffle(order)
    for tick in [*order[:25], ticks, 0, ticks - 1]:
        assert same_state(playback.state_at(tick), from_scratch(data, tick)), (name, tick)
    assert len(playback.keyframe_ticks()) > 1 or ticks < 3


def test_wasm_keyframes_match_the_python_reference(stepping_wasm):
    for name, data in scenarios():
        playback = Playback(data, simulator=WasmSimulator(stepping_wasm, data), keyframe_every=4)
        ticks = playback.ticks
        for tick in [ticks, 1, ticks // 2, ticks // 2 - 1, 0, *random.Random(1).sample(range(ticks + 1), 6)]:
            assert same_state(playback.state_at(tick), from_scratch(data, tick)), (name, tick)


@pytest.mark.slow
def test_adaptive_keyframes_on_a_long_run(stepping_wasm):
    data = generate(3, width=60, height=60, ticks=2000, snapshot=100, density=1.0).encode()
    playback = Playback(data, simulator=WasmSimulator(stepping_wasm, data), keyframe_seconds=0.001)
    playback.prepare()
    assert playback.prepared == 1.0 and len(playback.keyframe_ticks()) > 10
    for tick in (1999, 250, 1234, 2000, 7):
        expected = Factory(parse_scenario(data))
        expected.run_to(tick)
        assert same_state(playback.state_at(tick), state_of(expected))


def test_replay_engine_without_stepping_exports():
    if not REFERENCE_WASM.is_file():
        pytest.skip("the bundled reference engine is not built")
    _, data = scenarios()[-1]
    playback = Playback(data, simulator=ReplaySimulator(WasmEngine(REFERENCE_WASM), data))
    assert playback.prepared == 1.0
    for tick in (37, 5, 120):
        assert same_state(playback.state_at(tick), from_scratch(data, tick))


def test_state_from_records_equals_the_checked_decoder():
    _, data = scenarios()[-1]
    factory = Factory(parse_scenario(data))
    factory.run_to(77)
    records = factory.records()
    pairs = np.array(list(records.items()), np.uint64)
    fast = state_from_records(factory.scenario, pairs, tick=77)
    assert same_state(fast, slow_state(factory.scenario, records, tick=77))
    assert same_state(fast, state_from_records(factory.scenario, pairs.astype("<u8").tobytes(), tick=77))


def test_a_newer_request_cancels_the_stale_one():
    _, data = scenarios()[-1]
    playback = Playback(data, None, keyframe_every=5)
    with pytest.raises(Cancelled):
        playback.state_at(100, cancelled())
    assert same_state(playback.state_at(60), from_scratch(data, 60))


def test_ticks_are_clamped_to_the_run():
    _, data = scenarios()[0]
    playback = Playback(data, simulator=PythonSimulator(parse_scenario(data)))
    assert playback.state_at(-5).tick == 0
    assert playback.state_at(10**9).tick == playback.ticks


@pytest.mark.slow
def test_seeks_keep_raw_keyframes_and_the_walk_packs_them(stepping_wasm):
    data = generate(4, width=60, height=60, ticks=600, snapshot=50, density=1.0).encode()
    playback = Playback(data, simulator=WasmSimulator(stepping_wasm, data), keyframe_every=50)
    assert same_state(playback.state_at(420), from_scratch(data, 420))
    frames = [playback._keyframes[t] for t in playback.keyframe_ticks()]
    assert len(frames) > 5 and not any(f.packed for f in frames)  # no compression inside a seek
    playback.prepare()
    frames = [playback._keyframes[t] for t in playback.keyframe_ticks()]
    assert playback.prepared == 1.0 and all(f.packed for f in frames)
    for tick in (599, 3, 333, 600, 0, 420):  # from packed keyframes now
        assert same_state(playback.state_at(tick), from_scratch(data, tick)), tick


def test_a_long_seek_previews_the_states_it_passes(monkeypatch):
    import lattice_desktop.lattice.playback as playback_module

    monkeypatch.setattr(playback_module, "PREVIEW_SECONDS", 0.0)
    _, data = scenarios()[-1]
    playback = Playback(data, None, keyframe_every=1000)
    steps: list[Step] = []
    final = playback.state_at(90, Work(steps.append))
    seen = [step.item for step in steps]
    assert seen and [s.tick for s in seen] == sorted(s.tick for s in seen)
    assert [step.fraction for step in steps] == [s.tick / 90 for s in seen]
    assert steps[-1].message == "simulating to tick 90"
    assert all(s.tick < 90 for s in seen)
    for state in seen[:: max(1, len(seen) // 5)]:
        assert same_state(state, from_scratch(data, state.tick))
    assert same_state(final, from_scratch(data, 90))


def test_keyframes_kept_on_disk_make_the_next_open_warm(stepping_wasm, monkeypatch, tmp_path):
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path))
    data = generate(5, width=50, height=40, ticks=400, snapshot=50, density=1.0).encode()
    engine = WasmEngine(stepping_wasm)
    first = Playback(data, engine, keyframe_seconds=0.001)
    assert first.prepared == 0.0
    first.prepare()
    [stored] = (tmp_path / "keyframes").glob("*.keyframes")
    second = Playback(data, engine)
    assert second.prepared == 1.0
    assert second.keyframe_ticks() == first.keyframe_ticks()
    for tick in (399, 3, 200, 0, 400):
        assert same_state(second.state_at(tick), from_scratch(data, tick)), tick
    stored.write_bytes(stored.read_bytes()[:-10])  # a damaged file is ignored, then replaced
    third = Playback(data, engine)
    assert third.prepared == 0.0 and not stored.exists()
    assert same_state(third.state_at(123), from_scratch(data, 123))


def test_prewarm_walks_each_stress_scenario_once(tmp_path, monkeypatch):
    from lattice_desktop.services.prewarm import prewarm

    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "case"
    folder.mkdir()
    entries = []
    for i, size in enumerate((20, 30)):
        text = generate(i, width=size, height=size, ticks=60, snapshot=20)
        (folder / f"s{i}.lat").write_text(text)
        entries.append(f'[[case]]\nname = "s{i}"\nkind = "stress"\ninput_file = "s{i}.lat"\nexpected = [1]\n')
    (folder / "case.toml").write_text(
        '[meta]\nname = "tiny"\nversion = 1\nfamily = "lattice-v1"\n'
        '[contract]\nabi = "bytes"\nentry = "lattice_run"\noutput = "u64-list"\n'
        "[sandbox]\nfuel_limit = 1000\n" + "\n".join(entries)
    )
    steps: list[Step] = []
    assert prewarm(folder / "case.toml", Work(steps.append)) == 2
    fractions = [step.fraction for step in steps]
    assert fractions == sorted(fractions) and fractions[0] > 0.0 and fractions[-1] == 1.0
    assert {step.message for step in steps[:-1]} <= {"caching keyframes", "keyframes cached"}
    assert steps[-1].message == "2 scenarios walked"
    assert prewarm(folder / "case.toml") == 0  # already on disk
    data = (folder / "s1.lat").read_bytes()
    warm = Playback(data, WasmEngine(REFERENCE_WASM))
    assert warm.prepared == 1.0
    assert same_state(warm.state_at(45), from_scratch(data, 45))
    with pytest.raises(Cancelled):
        prewarm(folder / "case.toml", cancelled())


def test_cached_states_stay_within_their_byte_budget_and_are_still_exact():
    data = generate(3, width=48, height=40, ticks=30).encode()
    free = Playback(data)
    budget = 3 * state_bytes(free.state_at(30)) + 1  # room for three of its largest states
    tight = Playback(data, max_state_bytes=budget)
    for tick in (5, 9, 14, 20, 26, 30, 9):
        state = tight.state_at(tick)
        assert np.array_equal(state.slots, free.state_at(tick).slots)
        assert len(tight._states) <= max(2, budget // state_bytes(state))
    assert 3 <= len(tight._states) < 6 and len(free._states) == 6  # a small factory keeps the usual six


def test_giving_back_freed_memory_is_safe_to_call_from_any_thread():
    import threading

    answers: list[bool] = []
    threads = [threading.Thread(target=lambda: answers.append(give_back())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(answers) == 4 and all(isinstance(a, bool) for a in answers)


def test_seeking_back_and_forth_does_not_grow_the_engines_memory(stepping_wasm):
    """A keyframe is the engine's whole linear memory, which cannot shrink; restored over a
    larger memory, the engine's allocator (whose idea of where memory ends is inside that
    memory) grew it again on its next allocation: 7 MB a seek on a 1024² factory, 2 GB
    after 300 seeks. Restoring now starts from a fresh instance when the memory is larger."""
    data = generate(5, width=96, height=96, ticks=120, density=1.0).encode()
    playback = Playback(data, simulator=WasmSimulator(stepping_wasm, data), keyframe_every=10)
    playback.prepare()
    sim = playback.sim
    sizes = []
    for _ in range(5):  # the same seeks five times: the memory must not keep growing
        for tick in [115, 3, 118, 12, 99, 1, 120, 7]:
            state = playback.state_at(tick)
        sizes.append(sim.memory.data_len(sim.store))
    assert max(sizes[1:]) <= sizes[0], sizes
    expected = Factory(parse_scenario(data))
    expected.run_to(7)
    assert same_state(state, state_of(expected))
