"""Tiny real cases and submissions written in WAT, for tests of the core."""

from __future__ import annotations

import struct
import textwrap
from pathlib import Path

import wasmtime

# Echo the input back: output = input bytes. Costs a few fuel per call.
ECHO = """
(module (memory (export "memory") 1)
 (func (export "alloc") (param i32) (result i32) i32.const 1024)
 (func (export "run") (param i32 i32) (result i64)
   (i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32))
           (i64.extend_i32_u (local.get 1)))))
"""

# Echo, but burn `n` loop iterations first where n = input length * 100 (fuel ~ size).
SLOW_ECHO = """
(module (memory (export "memory") 1)
 (func (export "alloc") (param i32) (result i32) i32.const 1024)
 (func (export "run") (param i32 i32) (result i64) (local $i i32)
   (local.set $i (i32.mul (local.get 1) (i32.const 100)))
   (block $done (loop $spin
     (br_if $done (i32.eqz (local.get $i)))
     (local.set $i (i32.sub (local.get $i) (i32.const 1)))
     (br $spin)))
   (i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32))
           (i64.extend_i32_u (local.get 1)))))
"""


def module_with_run_body(body: str, *, extra: str = "", memory: str = "1") -> str:
    return f"""
(module (memory (export "memory") {memory})
 {extra}
 (func (export "alloc") (param i32) (result i32) i32.const 1024)
 (func $run (export "run") (param i32 i32) (result i64) {body}))
"""


def write_case(
    folder: Path,
    cases_toml: str,
    *,
    fuel_limit: int = 100_000,
    sandbox: str = "wall_clock_s = 20",
    contract: str = 'abi = "bytes"\nentry = "run"',
    meta: str = 'name = "echo"\nversion = 1\nvariant = "standard"',
) -> Path:
    """A case manifest in `folder`; `cases_toml` holds its [[case]] tables."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "case.toml"
    path.write_text(
        f"[meta]\n{meta}\n\n[contract]\n{contract}\n\n"
        f"[sandbox]\nfuel_limit = {fuel_limit}\n{sandbox}\n\n{textwrap.dedent(cases_toml)}"
    )
    return path


ECHO_CASES = """
[[case]]
name = "hello"
kind = "smoke"
behaviour = "echoes a short input"
input = "hello"
expected = "hello"

[[case]]
name = "longer"
kind = "stress"
input = "a somewhat longer input string"
expected = "a somewhat longer input string"
fuel_runway = 4
"""


def write_submission(folder: Path, wat: str, *, model: str = "model-a", build: bool = False) -> Path:
    """A submission folder that ships its module (or, with build=True, builds it from WAT)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "module.wat").write_text(textwrap.dedent(wat))
    if build:
        command = (
            "python -c \\\"import wasmtime; open('module.wasm','wb')"
            ".write(wasmtime.wat2wasm(open('module.wat').read()))\\\""
        )
        commands = f'commands = ["{command}"]'
    else:
        (folder / "module.wasm").write_bytes(bytes(wasmtime.wat2wasm(wat)))
        commands = "commands = []"
    (folder / "submission.toml").write_text(
        f'[submission]\nmodel = "{model}"\n\n[build]\n{commands}\nmodule = "module.wasm"\n'
    )
    return folder


def u64s(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}Q", *values)
