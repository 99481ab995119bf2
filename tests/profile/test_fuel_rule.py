"""Wasmtime's fuel rule, operator by operator, against wasmtime's own count; and what the
profiler refuses, with its reason."""

from __future__ import annotations

import pytest

from lattice_desktop.errors import UserError
from lattice_desktop.profile.instrument import instrument
from tests.core.wat_cases import module_with_run_body
from tests.profile.wat_profile import profile_and_count

ECHO_TAIL = (
    "(i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32)) (i64.extend_i32_u (local.get 1)))"
)

SNIPPETS = {
    "free operators": "(nop) (drop (i32.const 1)) (block (nop)) (loop (nop))",
    "select": "(drop (select (i32.const 1) (i32.const 2) (local.get 1)))",
    "br_table default": "(block (block (br_table 0 1 (i32.const 9))))",
    "if without else, not taken": "(if (i32.const 0) (then (drop (i32.const 5))))",
    "if/else, else taken": "(if (i32.eqz (local.get 1)) (then (nop)) (else (drop (i32.const 1))))",
    "memory.fill per byte": "(memory.fill (i32.const 2048) (i32.const 7) (i32.const 3000))",
    "memory.fill of nothing": "(memory.fill (i32.const 2048) (i32.const 7) (i32.const 0))",
    "memory.copy per byte": "(memory.copy (i32.const 4000) (i32.const 0) (i32.const 1234))",
    "memory.init per byte": "(memory.init $d (i32.const 5000) (i32.const 0) (i32.const 6))",
    "memory.grow granted": "(drop (memory.grow (i32.const 3)))",
    "memory.grow refused, small": "(drop (memory.grow (i32.const 128)))",
    "memory.grow refused, large": "(drop (memory.grow (i32.const 129)))",
    "global.get/set": "(global.set $g (i32.add (global.get $g) (i32.const 1)))",
    "unreachable code is free": "(block (br 0) (drop (i32.const 1)) (unreachable))",
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_each_rule_matches_wasmtime(tmp_path, name):
    extra = '(data $d "abcdef") (global $g (mut i32) (i32.const 0))'
    wat = module_with_run_body(SNIPPETS[name] + ECHO_TAIL, extra=extra, memory="1 4")
    profile, counted = profile_and_count(tmp_path, wat)
    assert counted is not None
    assert profile.total == counted
    assert profile.attributed == counted


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("(return_call $run (local.get 0) (local.get 1))", "tail calls"),
        ("(drop (table.grow $t (ref.null func) (i32.const 1))) " + ECHO_TAIL, "element count"),
    ],
)
def test_what_cannot_be_counted_is_refused_with_its_reason(body, reason):
    import wasmtime

    wat = module_with_run_body(body, extra="(table $t 1 funcref)")
    with pytest.raises(UserError) as refused:
        instrument(bytes(wasmtime.wat2wasm(wat)))
    assert "run uses" in str(refused.value) and reason in str(refused.value)


def test_a_module_with_imports_is_refused():
    import wasmtime

    wat = '(module (import "env" "f" (func)) (memory (export "memory") 1))'
    with pytest.raises(UserError, match="imports"):
        instrument(bytes(wasmtime.wat2wasm(wat)))
