"""`case check` proves each smoke test with its slip: a slip must fail exactly the smoke
tests of the behaviour it names, and every smoke test must be failed by a slip of its own
behaviour; anything else is reported as weak and the check exits 1."""

from __future__ import annotations

import shutil

from lattice_desktop.casekit.kit_file import read_kit
from lattice_desktop.casekit.slips import behaviour_tests, check_slip
from lattice_desktop.cli.main import main
from lattice_desktop.manifest import load_case


def add_slip(template, name: str, breaks: str, source_from: str = "submissions/reference") -> None:
    """A slip folder copied from another submission, declared in kit.toml."""
    folder = template / "slips" / name
    shutil.copytree(template / source_from, folder)
    manifest = folder / "submission.toml"
    manifest.write_text(manifest.read_text().replace('expected_verdict = "correct"\n', ""))
    with (template / "kit.toml").open("a") as kit:
        kit.write(f'\n[[slip]]\nsubmission = "slips/{name}"\nbreaks = "{breaks}"\n')


def weak_lines(capsys) -> list[str]:
    return [line.strip() for line in capsys.readouterr().out.splitlines() if line.strip().startswith("weak:")]


def test_the_templates_slips_each_fail_exactly_their_smoke_test(template):
    case = load_case(template)
    for slip in read_kit(template / "kit.toml").slips:
        result = check_slip(case, slip)
        assert result.ok, result
        assert result.failed == behaviour_tests(case, slip.breaks) == (slip.breaks,)


def test_a_slip_its_smoke_test_does_not_catch_is_reported_blind(template, capsys):
    add_slip(template, "harmless", "separators")  # the reference itself: no mistake at all
    assert main(["case", "check", str(template)]) == 1
    assert weak_lines(capsys) == [
        "weak: slip harmless passes separators: blind to a slip of its own behaviour"
    ]


def test_a_slip_that_fails_another_behaviours_test_is_not_isolated(template, capsys):
    # The 32-bit sum fails wide_sum; declared as breaking `separators`, it is both blind
    # (separators passes it) and stray (wide_sum fails it).
    add_slip(template, "mislabelled", "separators", "slips/sum_in_32_bits")
    assert main(["case", "check", str(template)]) == 1
    weak = weak_lines(capsys)
    assert "weak: slip mislabelled passes separators: blind to a slip of its own behaviour" in weak
    assert "weak: slip mislabelled also fails wide_sum, of another behaviour: not isolated" in weak


def test_a_smoke_test_no_slip_exercises_is_weak(template, capsys):
    kit = template / "kit.toml"
    text = kit.read_text()
    kit.write_text(text[: text.index("[[slip]]")])  # no slips at all
    assert main(["case", "check", str(template)]) == 1
    assert weak_lines(capsys) == [
        f"weak: smoke test {e.name}: no slip of its behaviour fails it" for e in load_case(template).smoke
    ]


def test_a_slip_naming_no_behaviour_is_weak(template, capsys):
    add_slip(template, "lost", "no_such_behaviour")
    assert main(["case", "check", str(template)]) == 1
    (line,) = weak_lines(capsys)
    assert "lost" in line and "'no_such_behaviour' names no smoke test or behaviour" in line
    assert "kit.toml:" in line


def test_a_behaviour_is_named_by_its_text_or_by_any_of_its_smoke_tests(template):
    case = load_case(template)
    for entry in case.smoke:
        assert behaviour_tests(case, entry.behaviour) == behaviour_tests(case, entry.name)
        assert entry.name in behaviour_tests(case, entry.behaviour)
