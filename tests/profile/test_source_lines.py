"""Fuel per source line: exact against lines counted by hand, adding up to each function's
self fuel and to wasmtime's own count; callgrind read back per line by gprof2dot's parser;
no line table, no lines."""

from __future__ import annotations

import io
from collections import Counter

import gprof2dot
import wasmtime

from lattice_desktop.profile.export import callgrind
from lattice_desktop.profile.instrument import instrument
from tests.profile.control_flow import CONTROL_FLOW
from tests.profile.lines_profile import line_of, profile_with_lines
from tests.profile.wat_profile import profile_and_count

LOOPS = 5
FILL = 100
# Marked lines, so the test finds their numbers. A one-byte operator (`i32.lt_u`, `i64.or`)
# shares its line with the operator after it: the line table `wasm-tools parse -g` (1.262)
# generates gives such an operator the next row's line.
COUNTED = f"""(module
  (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32)
    i32.const 1024)  ;; alloc
  (func $f (param i32) (result i32)
    local.get 0  ;; f.first
    i32.const 1  ;; f.const
    i32.add)  ;; f.add
  (func (export "run") (param i32 i32) (result i64)
    (local i32)
    i32.const 2048  ;; run.first
    i32.const 0  ;; fill.value
    i32.const {FILL}  ;; fill.size
    memory.fill  ;; fill
    loop  ;; loop
      local.get 2  ;; body.get
      call $f  ;; body.call
      local.set 2  ;; body.set
      local.get 2 i32.const {LOOPS} i32.lt_u br_if 0  ;; body.test
    end  ;; end
    local.get 0 i64.extend_i32_u i64.const 32 i64.shl local.get 1 i64.extend_i32_u i64.or))  ;; tail
"""


def _per_line(profile):
    found = Counter()
    for s in profile.lines:
        found[(profile.name_of(s.function), s.line)] += s.fuel
    return found


def test_each_line_burns_what_its_operators_cost_times_their_runs(tmp_path):
    profile, counted = profile_with_lines(tmp_path, COUNTED)
    assert profile.line_table and profile.complete
    assert profile.total == counted
    alloc_calls = next(f.calls for f in profile.functions if f.name == "alloc")
    expected = {("alloc", line_of(COUNTED, ";; alloc")): 2 * alloc_calls}  # i32.const and the entry
    # $f runs LOOPS times; its first line also carries each activation's own unit of fuel.
    expected[("f", line_of(COUNTED, ";; f.first"))] = 2 * LOOPS
    expected[("f", line_of(COUNTED, ";; f.const"))] = LOOPS
    expected[("f", line_of(COUNTED, ";; f.add"))] = LOOPS
    run = "run"
    expected[(run, line_of(COUNTED, ";; run.first"))] = 2
    for mark in ("fill.value", "fill.size"):
        expected[(run, line_of(COUNTED, f";; {mark}"))] = 1
    expected[(run, line_of(COUNTED, ";; fill"))] = 1 + FILL  # one per byte filled
    for mark in ("get", "call", "set"):
        expected[(run, line_of(COUNTED, f";; body.{mark}"))] = LOOPS
    expected[(run, line_of(COUNTED, ";; body.test"))] = 4 * LOOPS  # four operators
    expected[(run, line_of(COUNTED, ";; tail"))] = 7
    assert dict(_per_line(profile)) == expected
    assert sum(expected.values()) == counted


def test_lines_add_up_to_each_functions_self_fuel_on_every_construct(tmp_path):
    profile, counted = profile_with_lines(tmp_path, CONTROL_FLOW, "a longer input that takes paths")
    assert profile.line_table and profile.total == counted
    per_function = Counter()
    for s in profile.lines:
        per_function[s.function] += s.fuel
        assert s.file == "t.wat" and s.line > 0
    for f in profile.functions:
        assert per_function[f.index] == f.self_fuel, f.name


class _LineRecorder(gprof2dot.CallgrindParser):
    """gprof2dot's callgrind parser, noting each self-cost line's file and line as it parses."""

    def __init__(self, stream):
        super().__init__(stream)
        self.costs: Counter = Counter()

    def parse_cost_line(self, calls=None):
        line = self.lookahead().split()
        parsed = super().parse_cost_line(calls)
        if parsed and calls is None:  # a self-cost line: LINE COST, LINE resolved by the parser
            self.costs[(self.positions.get("fl"), self.last_positions[0])] += int(line[1])
        return parsed


def test_callgrind_names_each_file_and_line_and_gprof2dot_reads_the_same_totals(tmp_path):
    profile, _ = profile_with_lines(tmp_path, CONTROL_FLOW, "callgrind lines")
    text = callgrind(profile, source_path=lambda name: f"/src/{name}")
    assert "fl=(1) /src/t.wat" in text
    parser = _LineRecorder(io.StringIO(text))
    parsed = parser.parse()
    expected = Counter()
    for s in profile.lines:
        expected[(f"/src/{s.file}", s.line)] += s.fuel
    assert parser.costs == expected
    assert sum(f[gprof2dot.SAMPLES] for f in parsed.functions.values()) == profile.total


def test_without_a_line_table_the_profile_says_so_and_stays_per_function(tmp_path):
    profile, counted = profile_and_count(tmp_path, CONTROL_FLOW, "no lines")
    assert not profile.line_table and profile.lines == ()
    assert profile.total == counted
    assert "fl=(1) module.wasm" in callgrind(profile)
    wasm = bytes(wasmtime.wat2wasm(CONTROL_FLOW))
    assert instrument(wasm).layout.segments == []  # no line counters: no extra cost
