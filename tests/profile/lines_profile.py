"""Profile a WAT module built with DWARF lines that point back into the WAT text itself
(`wasm-tools parse -g`), so each operator's source line is its own line of the test."""

from __future__ import annotations

import subprocess
from pathlib import Path

from lattice_desktop.manifest.case import load_case
from lattice_desktop.profile.model import Profile
from lattice_desktop.profile.run import profile_case
from lattice_desktop.profile.wat_tools import binary
from lattice_desktop.sandbox.compiler import compile_module
from lattice_desktop.sandbox.runner import execute
from tests.core.wat_cases import write_case


def wasm_with_lines(folder: Path, wat: str) -> bytes:
    """`wat` encoded with a DWARF line table mapping each operator to its line of `t.wat`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "t.wat").write_text(wat)
    args = [binary(), "parse", "-g", "t.wat", "-o", "t.wasm"]
    subprocess.run(args, cwd=folder, check=True, capture_output=True)
    return (folder / "t.wasm").read_bytes()


def profile_with_lines(folder: Path, wat: str, text: str = "input") -> tuple[Profile, int | None]:
    """The profile of `wat`'s `run` on `text` (with lines), and the fuel wasmtime counts."""
    wasm = wasm_with_lines(folder / "module", wat)
    cases = f'[[case]]\nname = "only"\nkind = "stress"\ninput = "{text}"\nexpected = "{text}"\n'
    case = load_case(write_case(folder / "case", cases, fuel_limit=50_000_000))
    entry = case.entry("only")
    module = compile_module(wasm, max_bytes=1 << 20, timeout=30).module
    counted = execute(module, case.contract, case.sandbox, entry, budget=case.budget(entry))
    return profile_case(wasm, case, entry), counted.fuel


def line_of(wat: str, marker: str) -> int:
    """The 1-based line of `wat` that holds `marker` (a `;; name` comment)."""
    found = [n for n, line in enumerate(wat.splitlines(), start=1) if line.rstrip().endswith(marker)]
    assert len(found) == 1, marker
    return found[0]
