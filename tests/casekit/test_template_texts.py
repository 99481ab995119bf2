"""Issue 46 item 4: the template says true things of itself, `case check` says each thing
once, and a slow sample's runway is measured rather than found by trial.

Before: the template's slips opened with the reference's header ("The reference: its
answers are the case's expected answers…"), its kit.toml had no `slack` though the rule
uses it, `case check` printed "runway exhausted exhausted the runway…", and a slower
correct sample needed `reading` found by trial (the template's 4 made a quadratic one
"incorrect").
"""

from __future__ import annotations

import re

import wasmtime

from lattice_desktop.casekit.kit_file import read_kit
from lattice_desktop.casekit.template import files
from lattice_desktop.cli.main import main

# Answers nothing on the smoke tests and loops on every stress input.
LOOPS = """
(module (memory (export "memory") 1)
 (func (export "alloc") (param i32) (result i32) i32.const 1024)
 (func (export "solve") (param i32 i32) (result i64)
   (if (i32.gt_u (local.get 1) (i32.const 1000)) (then (loop $l (br $l))))
   i64.const 0))
"""


def test_each_slip_opens_with_its_own_header():
    made = files("sums")
    assert made["submissions/reference/solution.c"].startswith("/* The reference:")
    slips = {path: text for path, text in made.items() if path.startswith("slips/") and path.endswith(".c")}
    assert len(slips) == 2
    for path, text in slips.items():
        header = text.split("*/", 1)[0]
        assert "The reference" not in header and header.startswith("/* A slip:"), path
        assert "The mistake:" in header, path
    assert "`separators`" in slips["slips/newline_ends_input/solution.c"]
    assert "`wide_sum`" in slips["slips/sum_in_32_bits/solution.c"]


def test_the_templates_kit_states_every_number_of_the_rule(template):
    kit = (template / "kit.toml").read_text()
    for number in ("headroom", "reading", "step", "slack"):
        assert re.search(rf"^{number} = [0-9.]+ +# ", kit, re.MULTILINE), number
    assert "reading_sample" in kit
    assert read_kit(template / "kit.toml").rule.slack == 1.0


def _add_sample(template, name: str, verdict: str) -> None:
    sample = template / "submissions" / name
    sample.mkdir()
    (sample / "solution.c").write_text((template / "submissions" / "reference" / "solution.c").read_text())
    manifest = (template / "submissions" / "reference" / "submission.toml").read_text()
    manifest = manifest.replace("-O2", "-O0 -fno-sanitize=undefined").replace(
        "sample-reference", f"sample-{name}"
    )
    (sample / "submission.toml").write_text(manifest.replace('"correct"', f'"{verdict}"'))


def test_case_check_names_an_exhausted_runway_once(template, capsys):
    sample = template / "submissions" / "loops"
    sample.mkdir()
    (sample / "solution.wasm").write_bytes(bytes(wasmtime.wat2wasm(LOOPS)))
    (sample / "submission.toml").write_text(
        '[submission]\nmodel = "loops"\ncase = "../.."\nexpected_verdict = "correct"\n\n'
        '[build]\ncommands = []\nmodule = "solution.wasm"\n'
    )
    assert main(["case", "check", str(template), "--no-smoke-gate"]) == 1
    out = capsys.readouterr().out
    assert "exhausted exhausted" not in out
    assert re.search(r"n-1000: ✗ runway exhausted at [0-9.]+× the ceiling", out), out


def test_a_reading_sample_sizes_the_runway_from_its_measured_fuel(template, capsys):
    """With `reading = 1` on the reference, the -O0 sample (about 3× the reference's fuel)
    runs out of runway; naming it as the reading sample gives it the runway it was measured
    to need, and it gets its verdict."""
    _add_sample(template, "unoptimised", "over_ceiling")
    kit = template / "kit.toml"
    kit.write_text(kit.read_text().replace("reading = 4 ", "reading = 1 "))
    assert main(["case", "build", str(template), "--allow-case-code"]) == 0
    assert main(["case", "check", str(template)]) == 1
    out = capsys.readouterr().out
    assert re.search(r"FAIL unoptimised .* got incorrect", out), out
    text = kit.read_text().replace(
        '# reading_sample = "submissions/slow"', 'reading_sample = "submissions/unoptimised"'
    )
    kit.write_text(text)
    assert main(["case", "build", str(template), "--allow-case-code"]) == 0
    built = capsys.readouterr().out
    assert re.search(r"reading n-100000 +unoptimised +[0-9,]+ fuel", built), built
    assert "the reading sample unoptimised:" in (template / "case.toml").read_text()
    assert main(["case", "check", str(template)]) == 0, capsys.readouterr().out
