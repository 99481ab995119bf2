"""Explaining a divergence: conservation, the rules ranked at the first wrong tick, the trail."""

from __future__ import annotations

import numpy as np
import pytest

from lattice_desktop.lattice import build_engines
from lattice_desktop.lattice.divergence import first_difference
from lattice_desktop.lattice.explain.conservation import check_laws
from lattice_desktop.lattice.explain.diagnosis import Diagnosis, diagnose
from lattice_desktop.lattice.explain.find import explain_scenario
from lattice_desktop.lattice.explain.trail import why_trail
from lattice_desktop.lattice.records import as_pairs
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case

SUBMISSIONS = build_engines.SUBMISSIONS_DIR
LINES = WasmEngine(SUBMISSIONS / "lines" / "engine.wasm")
CASE = load_case(demo_case())


def _u64s(data: bytes) -> list[int]:
    return [int.from_bytes(data[i : i + 8], "little") for i in range(0, len(data), 8)]


def _explain(engine: WasmEngine, name: str) -> Diagnosis:
    entry = CASE.entry(name)
    data = entry.input_bytes()
    row = first_difference(_u64s(entry.expected_bytes()), engine.run(data))
    assert row is not None, f"{name} does not catch the engine"
    snapshot = parse_scenario(data).snapshot
    _, diagnosis = explain_scenario(
        data,
        case=name,
        agrees=row * snapshot,
        differs=(row + 1) * snapshot,
        reference_checksums=LINES.run,
        submission_checksums=engine.run,
        reference_records=lambda t: LINES.records(data, t),
        submission_records=lambda t: engine.records(data, t),
    )
    return diagnosis


def test_buggy_is_named_for_its_side_load_ranking_with_the_junction_as_evidence():
    d = _explain(WasmEngine(SUBMISSIONS / "buggy" / "engine.wasm"), "stress-64")
    assert d.rules[0].rule == "side_load_priority" and d.explained
    assert d.conservation == ()
    evidence = d.rules[0].evidence[0]
    assert evidence.tick == d.tick and "left" in evidence.spec and "where the spec has" in evidence.submission
    json = d.to_json()
    assert {"case", "tick", "cell", "conservation", "rules"} <= json.keys()
    assert Diagnosis.from_json(json, width=64).to_json() == json


def test_stuck_rings_is_named_for_ring_rotation():
    d = _explain(WasmEngine(SUBMISSIONS / "stuck_rings" / "engine.wasm"), "stress-64")
    assert d.rules[0].rule == "ring_rotation"
    assert "rotates the full ring" in d.rules[0].evidence[0].spec


def test_items_vanishing_break_conservation_and_no_move_rule_explains_them():
    entry = CASE.entry("stress-64")
    data = entry.input_bytes()
    scenario = parse_scenario(data)
    before, after = as_pairs(LINES.records(data, 30)), as_pairs(LINES.records(data, 31))
    assert check_laws(scenario, before, after, 31, side="reference") == []
    belt_rows = np.nonzero((after[:, 0] >> np.uint64(56)) == np.uint64(1))[0][:40]
    lost = np.delete(after, belt_rows, axis=0)  # 40 belt items gone
    (law,) = check_laws(scenario, before, lost, 31, side="submission", reference=after)
    assert law.law == "items_conserved" and law.text.startswith("40 items") and "vanished" in law.text
    d = diagnose(scenario, case="stress-64", tick=31, before=before, reference=after, submission=lost)
    assert not d.explained and d.summary.startswith("No rule of the spec explains it: 40 items")


def test_a_state_that_agrees_is_refused():
    entry = CASE.entry("stress-64")
    data = entry.input_bytes()
    records = LINES.records(data, 5)
    with pytest.raises(ValueError, match="agree"):
        diagnose(
            parse_scenario(data),
            case="x",
            tick=5,
            before=LINES.records(data, 4),
            reference=records,
            submission=records,
        )


def test_the_why_trail_of_a_later_wrong_cell_ends_at_the_first_wrong_decision():
    buggy = WasmEngine(SUBMISSIONS / "buggy" / "engine.wasm")
    d = _explain(buggy, "stress-64")
    data = CASE.entry("stress-64").input_bytes()
    scenario = parse_scenario(data)
    later = d.tick + 6
    ref, sub = LINES.records(data, later), buggy.records(data, later)
    wrong = sorted({(k >> 16) & 0xFFFFFF for k in set(ref.items()) ^ set(sub.items()) for k in [k[0]]})
    trail = why_trail(
        scenario,
        cell=wrong[0],
        tick=later,
        agreed=d.tick - 1,
        reference_records=lambda t: LINES.records(data, t),
        submission_records=lambda t: buggy.records(data, t),
    )
    assert trail[-1].origin and all(not s.origin for s in trail[:-1])
    assert d.tick <= trail[-1].tick <= later
    assert [s.tick for s in trail] == sorted((s.tick for s in trail), reverse=True)
