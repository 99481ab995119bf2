"""`case mutants`: the operators make the slips they say, only in the code the entry runs;
a run judges each mutant on real wasm builds of the reference, keeps its verdicts for a
resumed run, stops on cancel; and the bundled cases kill the mutants issue 43 names."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from lattice_desktop.casekit.mutants.c_source import functions, mask, reached
from lattice_desktop.casekit.mutants.case_subject import subject_for
from lattice_desktop.casekit.mutants.judge import (
    EQUIVALENT,
    KILLED_BY_SMOKE,
    KILLED_BY_STRESS,
    judge,
    reference_setup,
)
from lattice_desktop.casekit.mutants.operators import generate
from lattice_desktop.casekit.mutants.run import MutationRun, run_mutants
from lattice_desktop.casekit.mutants.score import scores
from lattice_desktop.cli.main import main
from lattice_desktop.cli.mutants_text import _rules_without_code
from lattice_desktop.errors import UserError
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import CASES
from lattice_desktop.work import Work

SMALL = """/* a comment with a < b and x + y */
typedef unsigned int u32;
typedef unsigned long long u64;
static u32 unused(u32 a) { return a + 1; }
static u64 total(const u32 *a, u32 n) {
    u64 sum = 0;
    for (u32 i = 0; i < n; i++) sum += a[i];
    sum = sum * 2;
    sum = sum / 2;
    return sum;
}
u64 entry(u32 *a, u32 n) { char *s = "<<"; (void)s; return total(a, n) == 0 ? 0 : total(a, n); }
"""


@pytest.fixture(autouse=True)
def _temp_in_tmp(tmp_path, monkeypatch):
    """Mutant builds go to pytest's folder, not the system's temp root."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))


def test_the_mask_blanks_comments_and_strings_but_keeps_offsets():
    masked = mask(SMALL)
    assert len(masked) == len(SMALL)
    assert "a < b" not in masked and '"<<"' not in masked
    assert [f.name for f in functions("x.c", masked)] == ["unused", "total", "entry"]


def test_only_the_functions_the_entry_reaches_are_mutated():
    masked = mask(SMALL)
    bodies = {f.name: masked[f.start : f.end] for f in functions("x.c", masked)}
    assert reached(bodies, ("entry",)) == {"entry", "total"}
    mutants = generate({"x.c": SMALL}, ("entry",))
    assert mutants and {m.function for m in mutants} == {"entry", "total"}
    assert len({m.key for m in mutants}) == len(mutants)


def test_every_operator_makes_the_slip_it_names():
    mutants = generate({"x.c": SMALL}, ("entry",))
    after = {(m.operator, m.after) for m in mutants}
    assert ("arithmetic", "sum = sum / 2;") in after  # * → /
    assert ("arithmetic", "for (u32 i = 0; i < n; i++) sum -= a[i];") in after
    assert ("comparison", "for (u32 i = 0; i <= n; i++) sum += a[i];") in after
    assert ("constant", "u64 sum = 1;") in after
    assert ("remove", "") in after
    assert ("swap", "sum = sum / 2;") in after  # the two lines in the other order
    assert ("loop_direction", "for (u32 i = n; i-- > 0;) sum += a[i];") in after
    assert ("narrow", "unsigned int sum = 0;") in after  # u64 → u32
    assert ("narrow", "static u64 total(const unsigned short *a, u32 n) {") in after  # u32 → u16
    # the string "<<" and the comment are never mutated; a declaration is never removed
    assert not any(">>" in m.after and "char" in m.after for m in mutants)
    assert not any(m.operator == "remove" and "u64 sum" in m.before for m in mutants)


def test_a_declared_mutant_whose_text_is_not_in_the_reference_is_a_located_error(tmp_path):
    import shutil

    folder = Path(shutil.copytree(CASES / "inversions", tmp_path / "inversions"))
    kit = folder / "kit.toml"
    kit.write_text(
        kit.read_text() + '\n[[mutant]]\nname = "x"\nbreaks = "ties"\nold = "nowhere"\nnew = "y"\n'
    )
    subject = subject_for(load_case(folder))
    with pytest.raises(UserError, match=r"kit\.toml:\d+: mutant x: its `old` text is not found"):
        subject.mutants()


@pytest.fixture(scope="module")
def inversions():
    case = load_case(CASES / "inversions")
    subject = subject_for(case)
    with tempfile.TemporaryDirectory() as tmp:  # module scope: before the autouse fixture
        tempfile.tempdir = tmp
        try:
            samples = subject.samples(subject.sample_count)
            setup = reference_setup(case, subject.reference, subject.sources(), samples, Work())
        finally:
            tempfile.tempdir = None
    return subject, setup


def test_a_count_kept_in_32_or_16_bits_is_killed_by_the_wide_input(inversions):
    """Issue 43 (a): on version 1 a merge sort counting in 32 bits graded correct."""
    subject, setup = inversions
    narrowed = [
        m
        for m in subject.mutants()
        if m.operator == "narrow" and m.function == "sort" and "u64" in m.before and "unsigned int" in m.after
    ]
    assert len(narrowed) == 2  # the count, and sort's return type
    for m in narrowed:
        verdict = judge(setup, m, subject.sources())
        assert verdict.status == KILLED_BY_STRESS, (m.after, verdict)
        assert verdict.stress == "n-100000"


def test_equivalent_mutants_are_told_apart_from_killed_ones(inversions):
    subject, setup = inversions
    mutants, sources = subject.mutants(), subject.sources()
    # the two statements of a taken right value in the other order: the same code after -O2
    swap = next(
        m for m in mutants if m.operator == "swap" and m.after.startswith("if (a[j] < a[i]) { tmp[k++]")
    )
    verdict = judge(setup, swap, sources)
    assert verdict.status == EQUIVALENT and "own code" in verdict.detail
    # copying the merged run back from the end: other code, the same answers everywhere
    backwards = next(m for m in mutants if m.operator == "loop_direction" and m.function == "sort")
    assert backwards.after == "for (k = n; k-- > 0;) a[k] = tmp[k];"
    verdict = judge(setup, backwards, sources)
    assert verdict.status == EQUIVALENT and verdict.samples == len(setup.samples)
    dropped = next(m for m in mutants if m.operator == "remove" and m.before.startswith("out[n++]"))
    assert judge(setup, dropped, sources).status == KILLED_BY_SMOKE


def test_a_run_resumes_from_its_results_file_and_stops_on_cancel(tmp_path):
    subject = subject_for(load_case(CASES / "inversions"))
    results = tmp_path / "results.jsonl"
    seen: list[str] = []
    first = run_mutants(subject, limit=3, results=results, each=lambda m, v: seen.append(m.key))
    assert first.complete and len(seen) == 3 == len(first.verdicts)
    again = run_mutants(subject, limit=3, results=results, each=lambda m, v: seen.append(m.key))
    assert len(seen) == 3 and again.verdicts == first.verdicts  # nothing judged twice
    work = Work()
    work.cancel()
    stopped = run_mutants(subject, limit=5, results=results, work=work)
    assert not stopped.complete and len(stopped.verdicts) == 3
    lines = results.read_text().splitlines()
    results.write_text(lines[0].replace('"samples": "', '"samples": "x') + "\n" + "\n".join(lines[1:]))
    fresh = run_mutants(subject, limit=1, results=results)  # another run's file: started afresh
    assert len(fresh.verdicts) == 1 and len(results.read_text().splitlines()) == 2


def test_the_json_report_scores_what_it_lists(tmp_path, capsys):
    results = tmp_path / "r.jsonl"
    code = main(
        [
            "case",
            "mutants",
            "inversions",
            "--limit",
            "6",
            "--json",
            "--results",
            str(results),
            "--allow-case-code",
        ]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["judged"] == 6 == len(report["verdicts"]) and report["generated_inputs"] == 40
    live = [v for v in report["verdicts"] if v["status"] not in ("equivalent", "stillborn")]
    killed = [v for v in live if v["status"] == "killed_by_smoke"]
    assert report["score"]["non_equivalent"] == len(live)
    assert report["score"]["smoke"] == pytest.approx(100.0 * len(killed) / len(live) if live else 100.0)


LATTICE_SLIPS = {
    "source_clock_pauses_while_full": "source_period_and_full_buffer",
    "edge_wraps_as_a_torus": "grid_edge",
    "edge_wraps_by_index": "grid_edge",
}


@pytest.mark.slow
def test_lattice_v5_catches_the_slips_of_issue_43_with_their_own_smoke_tests():
    """Issue 43: on version 4 the source clock that pauses while full passed
    source_period_and_full_buffer, and a torus-wrapping grid_edge passed stress-64."""
    case = load_case(CASES / "lattice")
    subject = subject_for(case)
    declared = {m.name: m for m in subject.mutants() if m.operator == "declared"}
    run = run_mutants(subject, limit=len(declared), results=Path(tempfile.gettempdir()) / "lattice.jsonl")
    for name, rule in LATTICE_SLIPS.items():
        verdict = run.verdicts[declared[name].key]
        assert rule in verdict.smoke, (name, verdict)
    torus = run.verdicts[declared["edge_wraps_as_a_torus"].key]
    assert torus.stress == "stress-64"  # the smallest stress case already shows it
    by_rule = {r.rule: r for r in scores(run).rules}
    assert all(not r.missed for r in by_rule.values()), {
        r.rule: [m.name for m in r.missed] for r in by_rule.values()
    }


@pytest.mark.slow
def test_case_check_reports_the_smoke_tests_mutation_score_only_when_asked(capsys):
    assert main(["case", "check", "inversions"]) == 0
    assert "mutants" not in capsys.readouterr().out  # as fast as before: no mutant is built
    assert (
        main(["case", "check", "inversions", "--mutants", "--allow-case-code"]) == 0
    )  # version 2: no survivor
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("  smoke tests kill "))
    assert "the whole case 100.0%" in line
    assert out.splitlines()[-1].startswith("the case is sound")


def test_a_case_without_a_kit_or_a_lattice_reference_is_a_clear_error(tmp_path, capsys):
    import shutil

    folder = Path(shutil.copytree(CASES / "inversions", tmp_path / "inversions"))
    (folder / "kit.toml").unlink()
    assert main(["case", "mutants", str(folder), "--allow-case-code"]) != 0
    err = capsys.readouterr().err
    assert "no kit.toml beside it, so no reference to mutate" in err and str(folder) in err


@pytest.mark.parametrize(
    "words", [["case", "mutants", "inversions"], ["case", "check", "inversions", "--mutants"]]
)
def test_mutants_are_built_only_with_consent_to_run_the_case_s_code(words, capsys):
    assert main(words) == 2
    err = capsys.readouterr().err
    assert "--allow-case-code" in err and "reference's own build commands" in err


def test_the_report_names_the_rules_that_own_no_code_of_the_reference(tmp_path):
    # Lattice's contender list is side_load_priority's code and a jammed ring is the ring
    # code's other outcome: turn and jammed_ring own none, and the report says so rather
    # than leave them out of the per-rule lines.
    subject = subject_for(load_case(CASES / "lattice" / "case.toml"))
    mutants = tuple(subject.mutants())
    run = MutationRun(subject, mutants, len(mutants), {}, 0, tmp_path / "results.jsonl")
    assert _rules_without_code(run, set()) == ["turn", "jammed_ring"]
