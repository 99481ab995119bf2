"""The sparse layers a frame paints (`FactoryState.items`, `held_sources`,
`assembler_arrays`) and the assembler table `state_from_records` builds with numpy: the
same factory as the Python rules' own state, on generated scenarios with crafts under way."""

from __future__ import annotations

import numpy as np
import pytest

from lattice_desktop.lattice.generator import generate
from lattice_desktop.lattice.records import as_pairs
from lattice_desktop.lattice.rules import Factory
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.simulators import state_from_records
from tests.lattice.slow_state import state_of


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_layers_and_the_table_describe_the_rules_own_state(seed: int) -> None:
    scenario = parse_scenario(generate(seed, width=40, height=30, ticks=60))
    factory = Factory(scenario)
    crafting = 0
    for tick in (0, 7, 25, 60):
        factory.run_to(tick)
        slow = state_of(factory)
        fast = state_from_records(scenario, as_pairs(factory.records()), tick=tick)

        assert dict(fast.assemblers) == slow.assemblers and len(fast.assemblers) == len(scenario.assemblers)
        cells, remaining, output = fast.assembler_arrays
        assert cells.tolist() == sorted(slow.assemblers)
        assert remaining.tolist() == [slow.assemblers[c][0] for c in sorted(slow.assemblers)]
        assert output.tolist() == [slow.assemblers[c][1] for c in sorted(slow.assemblers)]
        assert slow.assembler_arrays[1].tolist() == remaining.tolist()  # the dict's way agrees
        crafting += int((remaining != 0).sum())

        belts, lead = fast.items
        held = fast.slots.reshape(-1, 4)
        assert belts.tolist() == [c for c in range(len(held)) if held[c].any()]
        assert lead.tolist() == [next(int(t) for t in held[c][::-1] if t) for c in belts.tolist()]
        assert fast.held_sources.tolist() == np.flatnonzero(slow.source_buffer).tolist()
    assert crafting > 0  # the comparison saw assemblers at work


def test_the_table_answers_like_a_dict() -> None:
    scenario = parse_scenario(generate(4, width=30, height=30, ticks=40))
    factory = Factory(scenario)
    factory.run_to(40)
    table = state_from_records(scenario, as_pairs(factory.records()), tick=40).assemblers
    some = next(iter(scenario.assemblers))
    not_one = next(c for c in range(scenario.width * scenario.height) if c not in scenario.assemblers)
    assert some in table and not_one not in table
    assert table.get(not_one) is None
    with pytest.raises(KeyError):
        table[not_one]
    assert table == state_of(factory).assemblers
