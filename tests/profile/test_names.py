"""Names come from the name section, then exports, then func[N]; and the bundled engines'
name sections cost no fuel: a fully stripped copy grades to the same figure."""

from __future__ import annotations

import subprocess

from lattice_desktop.grading.grader import grade_entry
from lattice_desktop.lattice.build_engines import SUBMISSIONS_DIR
from lattice_desktop.manifest.case import load_case
from lattice_desktop.profile import wat_tools
from lattice_desktop.profile.instrument import instrument
from lattice_desktop.resources import demo_case
from lattice_desktop.sandbox.compiler import compile_module
from lattice_desktop.work import Work


def _strip(wasm: bytes) -> bytes:
    done = subprocess.run(
        [wat_tools.binary(), "strip", "--all", "-"], input=wasm, capture_output=True, check=True
    )
    return done.stdout


def test_names_fall_back_to_exports_then_indices():
    lines = (SUBMISSIONS_DIR / "lines" / "engine.wasm").read_bytes()
    named = instrument(lines).layout.names
    stripped = instrument(_strip(lines)).layout.names
    assert named[4] == "engine_tick" and named[1] == "lattice_run"
    assert stripped[1] == "lattice_run"  # exported
    assert stripped[4] == "func[4]"  # neither named nor exported


def test_the_name_section_costs_no_fuel():
    case = load_case(demo_case())
    entry = min(case.stress, key=lambda e: e.size)
    lines = (SUBMISSIONS_DIR / "lines" / "engine.wasm").read_bytes()
    fuels = []
    for wasm in (lines, _strip(lines)):
        module = compile_module(wasm, max_bytes=1 << 24, timeout=60).module
        fuels.append(grade_entry(case, entry, module, Work()).fuel)
    assert fuels[0] is not None and fuels[0] == fuels[1]
