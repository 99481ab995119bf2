"""The fast decoder gives the state the records describe, its sparse layers included, exactly as
the checked Python decoder (tests/lattice/slow_state.py) lays them out; and reading records out
of a live engine refuses an answer that lies outside its memory."""

from __future__ import annotations

import numpy as np
import pytest

from lattice_desktop.lattice.fast_decode import decode_state
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.simulators import WasmSimulator
from lattice_desktop.lattice.view import layout
from lattice_desktop.lattice.wasm_engine import EngineError
from lattice_desktop.resources import CASES
from tests.lattice.slow_state import slow_state

LINES = CASES / "lattice" / "submissions" / "lines" / "engine.wasm"
pytestmark = pytest.mark.skipif(not LINES.is_file(), reason="the sample engines are not built")


@pytest.mark.parametrize("name", ["stress-64", "stress-128"])
def test_decoded_states_equal_the_checked_decoders(name):
    data = (CASES / "lattice" / "stress" / f"{name}.lat").read_bytes()
    scenario = parse_scenario(data)
    sim = WasmSimulator(LINES, data)
    for tick in (0, 7, 40):
        sim.step(tick - sim.tick)
        pairs = sim.records()
        fast = decode_state(scenario, pairs, tick=tick, grid=layout(scenario))
        slow = slow_state(
            scenario, dict(zip(pairs[:, 0].tolist(), pairs[:, 1].tolist(), strict=True)), tick=tick
        ).drawable()
        assert np.array_equal(fast.slots, slow.slots) and np.array_equal(
            fast.source_buffer, slow.source_buffer
        )
        assert dict(fast.sink_counts) == slow.sink_counts and dict(fast.assemblers) == dict(slow.assemblers)
        for a, b in zip((*fast.items, fast.held_sources), (*slow.items, slow.held_sources), strict=True):
            assert np.array_equal(a, b)
        assert all(
            np.array_equal(a, b) for a, b in zip(fast.assembler_arrays, slow.assembler_arrays, strict=True)
        )


def test_records_pointing_outside_memory_are_refused():
    sim = WasmSimulator(LINES, (CASES / "lattice" / "stress" / "stress-64.lat").read_bytes())
    size = sim.memory.data_len(sim.store)
    sim._records_now = lambda store: (size - 8) << 32 | 64  # 64 bytes from 8 before the end
    with pytest.raises(EngineError, match="outside memory"):
        sim.records()
