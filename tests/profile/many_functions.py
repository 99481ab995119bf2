"""A generated module of many small functions, for the profiler's bounds and its benchmark."""

from __future__ import annotations


def many_functions_wat(count: int) -> str:
    """`count` small named functions, each calling the next, under the echo contract's `run`."""
    functions = [
        f"(func $f{n} (param i32) (result i32) local.get 0 i32.const {n} i32.add call $f{n + 1})"
        for n in range(count - 1)
    ]
    functions.append(f"(func $f{count - 1} (param i32) (result i32) local.get 0)")
    return f"""
(module (memory (export "memory") 1)
 (func (export "alloc") (param i32) (result i32) i32.const 1024)
 (func $run (export "run") (param i32 i32) (result i64)
   (drop (call $f0 (i32.const 0)))
   (i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32))
           (i64.extend_i32_u (local.get 1))))
 {chr(10).join(functions)})
"""
