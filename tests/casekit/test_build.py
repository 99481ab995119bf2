"""`case new` and `case build`: a new case builds and checks as it stands; its answers are
the reference's, its figures the rule's applied to the reference's graded fuel; an unchanged
case rebuilds byte-identical, `--check` lists a change without writing, and mistakes are
named where they are."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

from lattice_desktop.casebuild.calibrate import calibrate
from lattice_desktop.casekit.compile import compile_submission
from lattice_desktop.casekit.kit_file import read_kit
from lattice_desktop.cli.main import main
from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.profile.source_lines import has_line_table
from lattice_desktop.profile.wasm_sections import CUSTOM, sections
from tests.casekit.conftest import snapshot


def test_a_new_case_builds_and_checks_out_of_the_box(tmp_path, capsys):
    assert main(["case", "new", "fresh", "--dir", str(tmp_path)]) == 0
    folder = tmp_path / "fresh"
    assert {"case.toml", "kit.toml", "generate.py", "README.md"} <= {p.name for p in folder.iterdir()}
    assert (folder / "submissions" / "reference" / "solution.c").is_file()
    assert main(["case", "build", str(folder), "--allow-case-code"]) == 0
    capsys.readouterr()
    assert main(["case", "check", str(folder)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("the case is sound")


def test_the_templates_modules_carry_lines_and_the_code_of_their_g0_build(template):
    # The template builds with -g -fdebug-compilation-dir=.: a line table for the profile's
    # fuel per line, and not one byte of code (so not one unit of fuel) changed by it.
    manifests = sorted(template.glob("**/submission.toml"))
    assert len(manifests) == 1 + len(read_kit(template / "kit.toml").slips)
    for manifest in manifests:
        built = load_submission(manifest.parent).module_path.read_bytes()
        assert "-g -fdebug-compilation-dir=." in manifest.read_text()
        manifest.write_text(manifest.read_text().replace("-g -fdebug-compilation-dir=.", "-g0"))
        stripped = compile_submission(manifest.parent).read_bytes()
        assert has_line_table(built) and not has_line_table(stripped), manifest
        assert _code(built) == _code(stripped), manifest


def _code(wasm: bytes) -> bytes:
    """Every section but the custom ones: what runs and what fuel is charged for."""
    return b"".join(wasm[s.start : s.end] for s in sections(wasm) if s.id != CUSTOM)


def test_a_second_case_new_of_the_same_name_is_refused(template, capsys):
    assert main(["case", "new", "sums", "--dir", str(template.parent)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["case", "new", "Bad Name", "--dir", str(template.parent)]) == 2


def test_the_expected_answers_are_the_problems_answers(template):
    # The template's problem is a sum: the answers written must be the inputs' sums.
    case = load_case(template)
    for entry in case.stress:
        (answer,) = struct.unpack("<Q", entry.expected_bytes())
        assert answer == sum(int(v) for v in entry.input_bytes().split())


def test_the_figures_are_the_rule_on_the_references_graded_fuel(template):
    case = load_case(template)
    kit = read_kit(template / "kit.toml")
    report = grade(case, load_submission(kit.reference))
    stress = [r for r in report.results if not r.is_smoke]
    fuel = [r.fuel or 0 for r in stress]
    figures = calibrate([r.size for r in stress], fuel, fuel, kit.rule)
    assert case.sandbox.fuel_limit == figures.ceiling
    assert [int(e.fuel_runway) for e in case.stress] == list(figures.runways)
    text = (template / "case.toml").read_text()
    assert all(f"# the reference: {f:,} fuel" in text for f in fuel)


def test_an_unchanged_case_rebuilds_byte_identical(template, capsys):
    before = snapshot(template)
    assert main(["case", "build", str(template), "--allow-case-code"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "nothing changed"
    assert snapshot(template) == before
    assert main(["case", "build", str(template), "--allow-case-code", "--check"]) == 0


def test_check_lists_what_a_build_would_change_and_writes_nothing(template, capsys):
    generator = template / "generate.py"
    generator.write_text(generator.read_text().replace("random.Random(n)", "random.Random(n + 1)"))
    before = snapshot(template)
    capsys.readouterr()
    assert main(["case", "build", str(template), "--allow-case-code", "--check"]) == 1
    listed = {
        line.removeprefix("differs: ") for line in capsys.readouterr().out.splitlines() if "differs" in line
    }
    case = load_case(template)
    inputs = {str(e.input_path.relative_to(template)) for e in case.stress if e.input_path}
    answers = {str(e.expected_path.relative_to(template)) for e in case.stress if e.expected_path}
    assert inputs | answers <= listed
    assert snapshot(template) == before
    assert main(["case", "build", str(template), "--allow-case-code"]) == 0
    assert main(["case", "build", str(template), "--allow-case-code", "--check"]) == 0


def test_a_reference_that_disagrees_with_an_inline_answer_is_named(template, capsys):
    manifest = template / "case.toml"
    manifest.write_text(manifest.read_text().replace("expected = [10]", "expected = [11]"))
    before = snapshot(template)
    assert main(["case", "build", str(template), "--allow-case-code"]) == 2
    message = capsys.readouterr().err
    assert "separators" in message and "[10]" in message and "[11]" in message
    assert str(manifest) in message and "case-build-" not in message  # the case's path, not the stage's
    assert snapshot(template) == before


def test_a_broken_reference_fails_the_build_with_the_compilers_words(template, capsys):
    source = template / "submissions" / "reference" / "solution.c"
    source.write_text(source.read_text().replace("u64 sum = 0;", "u64 sum = 0"))
    assert main(["case", "build", str(template), "--allow-case-code"]) == 2
    message = capsys.readouterr().err
    assert "submission.toml" in message and "expected ';'" in message


def test_kit_mistakes_are_located(template, capsys):
    kit = template / "kit.toml"
    kit.write_text(kit.read_text().replace("breaks = ", "brakes = ", 1))
    line = next(i for i, text in enumerate(kit.read_text().splitlines(), 1) if "brakes" in text)
    assert main(["case", "build", str(template), "--allow-case-code"]) == 2
    message = capsys.readouterr().err
    assert f"kit.toml:{line}" in message and "did you mean 'breaks'" in message


def test_a_case_without_a_kit_has_nothing_to_build(tmp_path, capsys):
    (tmp_path / "case.toml").write_text("")
    assert main(["case", "build", str(tmp_path), "--allow-case-code"]) == 2
    assert "no kit.toml" in capsys.readouterr().err


def test_paths_resolve_from_the_case_folder(template):
    kit = read_kit(template / "kit.toml")
    assert kit.reference == (template / "submissions" / "reference").resolve()
    assert [s.folder.parent.name for s in kit.slips] == ["slips"] * len(kit.slips)
    assert kit.generator == (template / "generate.py").resolve()
    assert isinstance(kit.generator, Path)


def test_a_build_logged_into_the_case_folder_leaves_the_log_alone(template):
    """Issue 46 D7: `case build . > log.txt` inside the case folder printed "wrote log.txt"
    and left NUL bytes at the start of the log."""
    (template / "stress" / "n-1000.txt").unlink()  # something for the build to write
    command = f"{sys.executable} -m lattice_desktop case build . --allow-case-code > log.txt"
    done = subprocess.run(["sh", "-c", command], cwd=template, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    log = (template / "log.txt").read_bytes()
    assert b"\0" not in log and b"wrote log.txt" not in log
    assert b"wrote stress/n-1000.txt" in log and log.endswith(b"\n")
