"""Every bad manifest is one clear error naming its file, key and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from lattice_desktop.errors import ManifestError
from lattice_desktop.manifest import load_case, load_submission
from tests.core.wat_cases import ECHO_CASES, write_case


def _error(path) -> ManifestError:
    with pytest.raises(ManifestError) as info:
        load_case(path)
    return info.value


def test_a_good_manifest_loads_with_paths_relative_to_it(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "in.txt").write_text("abc")
    path = write_case(
        tmp_path,
        ECHO_CASES
        + """
[[case]]
name = "from-file"
kind = "stress"
input_file = "data/in.txt"
expected = "abc"
""",
    )
    case = load_case(path)
    assert [c.name for c in case.smoke] == ["hello"]
    assert [c.name for c in case.stress] == ["longer", "from-file"]
    assert case.entry("from-file").input_bytes() == b"abc"
    assert case.budget(case.entry("longer")) == 400_000
    assert case.smoke[0].behaviour == "echoes a short input"


def test_unknown_key_suggests_the_right_one_with_its_line(tmp_path):
    path = write_case(tmp_path, ECHO_CASES.replace("fuel_runway = 4", "fuel_runaway = 4"))
    error = _error(path)
    assert "unknown key 'fuel_runaway'" in error.message
    assert "did you mean 'fuel_runway'" in error.message
    lines = path.read_text().splitlines()
    assert lines[error.location.line - 1].startswith("fuel_runaway")
    assert error.location.file == str(path)
    assert error.location.key == "case[1].fuel_runaway"


def test_wrong_type_names_key_and_line(tmp_path):
    path = write_case(tmp_path, ECHO_CASES, fuel_limit='"lots"')
    error = _error(path)
    assert "must be an integer, not a string" in error.message
    assert error.location.key == "sandbox.fuel_limit"
    assert path.read_text().splitlines()[error.location.line - 1].startswith("fuel_limit")


def test_missing_input_file_is_named(tmp_path):
    path = write_case(tmp_path, ECHO_CASES.replace('input = "hello"', 'input_file = "nope.txt"'))
    error = _error(path)
    assert "file not found: nope.txt" in error.message
    assert error.location.key == "case[0].input_file"
    assert error.location.line is not None


def test_duplicate_case_names_are_refused(tmp_path):
    path = write_case(tmp_path, ECHO_CASES.replace('name = "longer"', 'name = "hello"'))
    error = _error(path)
    assert "duplicate case name 'hello'" in error.message
    assert error.location.key == "case[1].name"


def test_invalid_toml_reports_the_line(tmp_path):
    path = write_case(tmp_path, ECHO_CASES + "\n[[case]\nname = 1\n")
    error = _error(path)
    assert error.message.startswith("invalid TOML")
    assert error.location.line == path.read_text().splitlines().index("[[case]") + 1


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda t: t.replace('kind = "smoke"', 'kind = "smok"'), "did you mean 'smoke'"),
        (lambda t: t.replace('behaviour = "echoes a short input"\n', ""), "must say which behaviour"),
        (lambda t: t.replace('input = "hello"', 'input = "hello"\ninput_file = "x"'), "exactly one of"),
        (lambda t: t.replace("fuel_runway = 4", "fuel_runway = 0.5"), "at least 1.0"),
        (lambda t: t.replace('expected = "hello"', "expected = 5"), "must be a string"),
    ],
)
def test_each_bad_case_entry_is_located(tmp_path, edit, fragment):
    path = write_case(tmp_path, edit(ECHO_CASES))
    error = _error(path)
    assert fragment in error.message
    assert error.location.file == str(path) and error.location.line is not None


def test_missing_table_and_empty_case_list(tmp_path):
    path = tmp_path / "case.toml"
    path.write_text('[meta]\nname = "x"\nversion = 1\n[contract]\nabi = "bytes"\nentry = "run"\n')
    assert "missing table [sandbox]" in _error(path).message
    path.write_text(path.read_text() + "[sandbox]\nfuel_limit = 5\n")
    assert "declares no [[case]]" in _error(path).message


def test_missing_and_non_utf8_files(tmp_path):
    assert "file not found" in _error(tmp_path / "absent.toml").message
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'[meta]\nname = "\xff"\n')
    error = _error(bad)
    assert "UTF-8" in error.message and error.location.line == 2


def test_scalar_contract_checks_its_numbers(tmp_path):
    contract = 'abi = "scalar"\nentry = "add"\nparams = ["i32", "i32"]\nresults = ["i32"]'
    cases = '[[case]]\nname = "one"\nkind = "smoke"\nbehaviour = "adds"\ninput = [1, 2]\nexpected = [3]\n'
    case = load_case(write_case(tmp_path, cases, contract=contract))
    assert case.cases[0].scalar_args == (1, 2)
    path = write_case(tmp_path, cases.replace("[1, 2]", "[1]"), contract=contract)
    assert "2 integer(s)" in _error(path).message


def test_submission_manifest_errors(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "submission.toml").write_text('[submission]\nmodle = "x"\n[build]\nmodule = "m.wasm"\n')
    with pytest.raises(ManifestError) as info:
        load_submission(sub)
    assert "did you mean 'model'" in info.value.message
    assert info.value.location.line == 2
    (sub / "submission.toml").write_text('[submission]\nmodel = "x"\n[build]\nmodule = "../m.wasm"\n')
    with pytest.raises(ManifestError, match="inside the submission folder"):
        load_submission(sub)


def test_loading_a_case_again_reads_its_inputs_only_when_they_changed(tmp_path, monkeypatch):
    """Opening a run's page loads its case each time; the inputs are hashed once."""
    (tmp_path / "in.bin").write_bytes(b"x" * 1000)
    (tmp_path / "out.bin").write_bytes(b"x" * 1000)
    path = write_case(
        tmp_path,
        '[[case]]\nname = "big"\nkind = "stress"\ninput_file = "in.bin"\nexpected_file = "out.bin"\n',
    )
    reads: list[str] = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self.name) or real(self))
    first = load_case(path).manifest_hash
    assert sorted(reads) == ["case.toml", "case.toml", "in.bin", "out.bin"]
    reads.clear()
    assert load_case(path).manifest_hash == first
    assert reads == ["case.toml", "case.toml"]  # parsed, and hashed with the inputs' digests
    (tmp_path / "in.bin").write_bytes(b"y" * 1000)  # same size: the times and inode tell
    changed = load_case(path).manifest_hash
    assert changed != first and "in.bin" in reads
