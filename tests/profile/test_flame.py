"""The flame graph's layout, search and sandwich on real profiles (wasm run by wasmtime):
widths add up to the figures of the profile, shared callees are apportioned and marked,
recursion is drawn once, and a search sums nested matches once."""

from __future__ import annotations

import pytest

from lattice_desktop.profile.flame import ancestors, icicle, sandwich, search, widths_by_path
from lattice_desktop.profile.model import HOST
from tests.profile.control_flow import CONTROL_FLOW
from tests.profile.wat_profile import profile_and_count

ECHO = "(i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32)) (i64.extend_i32_u (local.get 1)))"

# `shared` is called from `a` (three times) and from `b` (once); it calls `leaf`.
SHARED = f"""
(module (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) i32.const 1024)
  (func $leaf (param i32) (result i32) (i32.mul (local.get 0) (i32.const 3)))
  (func $shared (param i32) (result i32) (call $leaf (i32.add (local.get 0) (i32.const 1))))
  (func $a (result i32) (i32.add (i32.add (call $shared (i32.const 1)) (call $shared (i32.const 2)))
                                 (call $shared (i32.const 3))))
  (func $b (result i32) (call $shared (i32.const 4)))
  (func (export "run") (param i32 i32) (result i64)
    (drop (call $a)) (drop (call $b)) {ECHO}))
"""

# The same shape, but `a` calls `shared` once, not three times: cheaper.
LIGHTER = SHARED.replace(
    "(i32.add (i32.add (call $shared (i32.const 1)) (call $shared (i32.const 2)))\n"
    "                                 (call $shared (i32.const 3)))",
    "(call $shared (i32.const 1))",
)


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    return profile_and_count(tmp_path_factory.mktemp("shared"), SHARED)[0]


@pytest.fixture(scope="module")
def control(tmp_path_factory):
    return profile_and_count(tmp_path_factory.mktemp("control"), CONTROL_FLOW, "some input 42")[0]


def _index(profile, name):
    return next(f.index for f in profile.functions if f.name == name)


def test_bars_nest_and_roots_add_up_to_the_hosts_calls(control):
    bars = icicle(control)
    roots = [b for b in bars if b.depth == 0]
    assert sum(b.width for b in roots) == sum(e.inclusive for e in control.callees(HOST))
    by_path = {b.path: b for b in bars}
    for bar in bars:
        if bar.depth:
            parent = by_path[bar.path[:-1]]
            assert parent.start <= bar.start and bar.end <= parent.end + 1e-6
    # fib calls itself: drawn once, as wide as its inclusive fuel, nothing named fib under it
    fib = [b for b in bars if b.name == "fib"]
    assert len(fib) == 1 and fib[0].width == next(f.inclusive for f in control.functions if f.name == "fib")
    assert all(b.path.count("fib") == 1 for b in bars if "fib" in b.path)


def test_a_shared_callees_children_are_apportioned_and_marked(shared):
    bars = icicle(shared)
    leaves = [b for b in bars if b.name == "leaf"]
    assert {b.path[-3] for b in leaves} == {"a", "b"}
    assert not any(b.exact for b in leaves)
    # between them the two leaf bars are exactly leaf's fuel
    assert sum(b.width for b in leaves) == pytest.approx(
        next(f.inclusive for f in shared.functions if f.name == "leaf")
    )
    assert all(b.exact for b in bars if b.name in ("a", "b", "shared"))


def test_the_sandwich_merges_callers_above_and_callees_below(shared):
    index = _index(shared, "shared")
    view = sandwich(shared, index)
    inclusive = next(f.inclusive for f in shared.functions if f.index == index)
    callers = {b.name: b.width for b in view.callers if b.depth == 1}
    assert callers == {e.name: e.inclusive for e in _named(shared, shared.callers(index), callers=True)}
    assert sum(callers.values()) == inclusive
    assert [b.name for b in view.callers if b.depth == 2] == ["run", "run"]  # each caller's own caller
    callees = [b for b in view.callees if b.depth == 1]
    assert [(b.name, b.width, b.exact) for b in callees] == [
        ("leaf", float(shared.callees(index)[0].inclusive), True)
    ]


def test_search_sums_nested_matches_once(control):
    bars = icicle(control)
    found = search(bars, "RUN")
    run = next(b for b in bars if b.name == "run")
    assert run.index in found.indices and found.fuel == run.width
    everything = search(bars, "")
    assert not everything.indices and everything.fuel == 0
    nested = search(bars, "e")  # many names hold an "e"; those under another match count once
    outermost = [b for b in bars if "e" in b.name and not any("e" in n for n in b.path[:-1])]
    assert nested.fuel == sum(b.width for b in outermost)


def test_breadcrumb_and_matching_by_path(control):
    bars = icicle(control)
    deepest = max(bars, key=lambda b: b.depth)
    crumbs = ancestors(bars, deepest)
    assert [b.name for b in crumbs] == list(deepest.path[:-1])
    assert widths_by_path(bars)[deepest.path] == deepest.width


def _named(profile, edges, *, callers):
    from types import SimpleNamespace

    return [
        SimpleNamespace(name=profile.name_of(e.caller if callers else e.callee), inclusive=e.inclusive)
        for e in edges
    ]
