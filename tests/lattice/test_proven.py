"""The Factory tab's reference side runs the fastest engine proven on the scenario."""

from __future__ import annotations

from lattice_desktop.lattice.proven import proven_engine
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case

CASE = load_case(demo_case())


def test_lines_is_proven_on_the_largest_stress_case_and_the_proof_is_remembered(tmp_path, monkeypatch):
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path))
    entry = max(CASE.stress, key=lambda e: e.size)
    proven = proven_engine(CASE, entry.input_bytes(), entry.expected_bytes())
    assert proven is not None and proven.name == "lines"
    assert proven.engine.run(entry.input_bytes()) == [
        int.from_bytes(entry.expected_bytes()[i : i + 8], "little")
        for i in range(0, len(entry.expected_bytes()), 8)
    ]
    proofs = list((tmp_path / "proofs").glob("*.json"))
    assert len(proofs) == 1 and '"proven": true' in proofs[0].read_text()


def test_an_engine_whose_checksums_differ_is_not_proven(tmp_path, monkeypatch):
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path))
    entry = CASE.entry("turn")
    wrong = bytes(len(entry.expected_bytes()))  # all-zero checksums: no engine produces these
    proven = proven_engine(CASE, entry.input_bytes(), wrong)
    assert proven is not None and proven.name == "reference"  # the reference is the fallback


def test_a_third_party_cases_samples_are_never_run_outside_the_sandbox(tmp_path, monkeypatch):
    """Playback runs its engine unmetered: a copy of the case (its samples no longer ship
    with the app) falls back to the bundled reference."""
    import shutil

    from lattice_desktop.lattice.proven import candidates

    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path / "cache"))
    copy = tmp_path / "lattice"
    shutil.copytree(CASE.path.parent, copy, symlinks=False)
    other = load_case(copy / "case.toml")
    assert [name for name, _ in candidates(other)] == ["reference"]
    entry = other.entry("turn")
    assert proven_engine(other, entry.input_bytes(), entry.expected_bytes()).name == "reference"
    assert [name for name, _ in candidates(CASE)] == ["lines", "reference"]
