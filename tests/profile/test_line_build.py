"""The bundled engines carry DWARF lines without a change to their code, and a profile of
`lines` names the source line of every unit of its fuel."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter

from lattice_desktop.grading.grader import grade_entry
from lattice_desktop.lattice.build_engines import COMMON_HEADER, COMPILE_ARGS, ENGINES_DIR, SUBMISSIONS_DIR
from lattice_desktop.manifest.case import load_case
from lattice_desktop.profile.run import profile_case
from lattice_desktop.profile.source_lines import has_line_table
from lattice_desktop.profile.wasm_sections import CUSTOM, sections
from lattice_desktop.resources import demo_case
from lattice_desktop.sandbox.compiler import compile_module
from lattice_desktop.work import Work


def _code(wasm: bytes) -> bytes:
    """Every section but the custom ones: what runs and what fuel is charged for."""
    return b"".join(wasm[s.start : s.end] for s in sections(wasm) if s.id != CUSTOM)


def test_the_shipped_engine_is_a_g0_build_plus_debug_sections(tmp_path):
    shutil.copyfile(ENGINES_DIR / "lines.c", tmp_path / "engine.c")
    shutil.copyfile(ENGINES_DIR / COMMON_HEADER, tmp_path / COMMON_HEADER)
    args = [a for a in COMPILE_ARGS if a not in ("-g", "-fdebug-compilation-dir=.")]
    subprocess.run([sys.executable, *args, "-g0"], cwd=tmp_path, check=True)
    stripped = (tmp_path / "engine.wasm").read_bytes()
    shipped = (SUBMISSIONS_DIR / "lines" / "engine.wasm").read_bytes()
    assert has_line_table(shipped) and not has_line_table(stripped)
    assert _code(shipped) == _code(stripped)


def test_lines_profile_has_a_source_line_for_every_unit_of_fuel():
    case = load_case(demo_case())
    entry = min(case.stress, key=lambda e: e.size)
    wasm = (SUBMISSIONS_DIR / "lines" / "engine.wasm").read_bytes()
    graded = grade_entry(case, entry, compile_module(wasm, max_bytes=1 << 24, timeout=60).module, Work())
    profile = profile_case(wasm, case, entry)
    assert profile.line_table and profile.total == graded.fuel
    per_function = Counter()
    for s in profile.lines:
        per_function[s.function] += s.fuel
        assert s.line > 0 and s.file in ("engine.c", COMMON_HEADER)
    assert all(per_function[f.index] == f.self_fuel for f in profile.functions)
    assert sum(per_function.values()) == graded.fuel
    engine_lines = (ENGINES_DIR / "lines.c").read_text().count("\n") + 1
    assert max(s.line for s in profile.lines if s.file == "engine.c") <= engine_lines
