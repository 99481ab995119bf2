"""Callgrind read back by a third-party parser (gprof2dot's) gives the same figures;
speedscope is written only where a flame graph can be exact."""

from __future__ import annotations

import io
import json

import gprof2dot
import pytest

from lattice_desktop.profile.export import callgrind, speedscope, speedscope_problem
from tests.profile.control_flow import CONTROL_FLOW
from tests.profile.wat_profile import profile_and_count

TREE = """
(module (memory (export "memory") 1)
 (func (export "alloc") (param i32) (result i32) i32.const 1024)
 (func $leaf (param i32) (result i32) (i32.mul (local.get 0) (local.get 0)))
 (func $middle (param i32) (result i32) (local $i i32) (local $s i32)
   (loop $l
     (local.set $s (i32.add (local.get $s) (call $leaf (local.get $i))))
     (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get 0))))
   (local.get $s))
 (func (export "run") (param i32 i32) (result i64)
   (drop (call $middle (i32.mul (local.get 1) (i32.const 10))))
   (i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32)) (i64.extend_i32_u (local.get 1)))))
"""


def test_callgrind_read_by_gprof2dot_has_the_same_totals(tmp_path):
    profile, counted = profile_and_count(tmp_path, CONTROL_FLOW, "callgrind check")
    parsed = gprof2dot.CallgrindParser(io.StringIO(callgrind(profile))).parse()
    functions = {f.name: f for f in parsed.functions.values()}
    ran = {f.name: f for f in profile.functions if f.calls}
    assert set(functions) == set(ran)
    assert sum(f[gprof2dot.SAMPLES] for f in functions.values()) == profile.total == counted
    for name, stats in ran.items():
        assert functions[name][gprof2dot.SAMPLES] == stats.self_fuel
    calls_into = {}
    for f in functions.values():
        for call in f.calls.values():
            callee = parsed.functions[call.callee_id].name
            calls_into[callee] = calls_into.get(callee, 0) + call[gprof2dot.CALLS]
    by_name = {f.name: f for f in profile.functions}
    for name, calls in calls_into.items():
        host_calls = sum(
            e.calls for e in profile.edges if e.caller == -1 and profile.name_of(e.callee) == name
        )
        assert calls + host_calls == by_name[name].calls


def test_speedscope_of_a_call_tree_weighs_each_stack_by_self_fuel(tmp_path):
    profile, counted = profile_and_count(tmp_path, TREE, "abc")
    assert speedscope_problem(profile) is None
    document = json.loads(speedscope(profile, name="tree"))
    sampled = document["profiles"][0]
    frames = [f["name"] for f in document["shared"]["frames"]]
    stacks = {
        tuple(frames[i] for i in s): w for s, w in zip(sampled["samples"], sampled["weights"], strict=True)
    }
    assert sum(stacks.values()) == counted
    by_name = {f.name: f.self_fuel for f in profile.functions}
    assert stacks[("run", "middle", "leaf")] == by_name["leaf"]
    assert stacks[("run", "middle")] == by_name["middle"]


def test_speedscope_is_refused_where_a_shared_callee_would_be_guessed(tmp_path):
    profile, _ = profile_and_count(tmp_path, CONTROL_FLOW, "shared")
    problem = speedscope_problem(profile)
    assert problem is not None and "called from" in problem
    with pytest.raises(ValueError):
        speedscope(profile, name="x")
