"""Profile a WAT module on one input, next to wasmtime's own count of the same call."""

from __future__ import annotations

from pathlib import Path

import wasmtime

from lattice_desktop.manifest.case import load_case
from lattice_desktop.profile.model import Profile
from lattice_desktop.profile.run import profile_case
from lattice_desktop.sandbox.compiler import compile_module
from lattice_desktop.sandbox.runner import execute
from tests.core.wat_cases import write_case


def profile_and_count(folder: Path, wat: str, text: str = "input") -> tuple[Profile, int | None]:
    """The profile of `wat`'s `run` on `text`, and the fuel the grader's runner counts."""
    cases = f'[[case]]\nname = "only"\nkind = "stress"\ninput = "{text}"\nexpected = "{text}"\n'
    case = load_case(write_case(folder, cases, fuel_limit=50_000_000))
    wasm = bytes(wasmtime.wat2wasm(wat))
    entry = case.entry("only")
    module = compile_module(wasm, max_bytes=1 << 20, timeout=30).module
    counted = execute(module, case.contract, case.sandbox, entry, budget=case.budget(entry))
    return profile_case(wasm, case, entry), counted.fuel
