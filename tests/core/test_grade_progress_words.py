"""`grade` says "building…" only when it builds: a submission with build commands graded
without --build grades the module it ships, and says so."""

from __future__ import annotations

import wasmtime

from lattice_desktop.cli.common import EXIT_USAGE
from lattice_desktop.cli.main import main
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission


def test_building_is_said_only_when_the_commands_run(tmp_path, capsys):
    case = write_case(tmp_path / "case", ECHO_CASES)
    folder = write_submission(tmp_path / "sub", ECHO, build=True)  # build commands...
    (folder / "module.wasm").write_bytes(bytes(wasmtime.wat2wasm(ECHO)))  # ...and a shipped module
    db = str(tmp_path / "l.db")

    assert main(["grade", str(folder), "--case", str(case), "--db", db]) == 0
    shipped = capsys.readouterr().err
    assert "building…" not in shipped
    assert "loading the shipped module…" in shipped

    assert (
        main(["grade", str(folder), "--case", str(case), "--db", db, "--build", "--allow-unisolated-build"])
        == 0
    )
    built = capsys.readouterr().err
    assert "building…" in built and "shipped" not in built


def test_a_module_that_is_not_shipped_is_not_said_to_be_loaded(tmp_path, capsys):
    case = write_case(tmp_path / "case", ECHO_CASES)
    folder = write_submission(tmp_path / "sub", ECHO, build=True)  # build commands, no module
    db = tmp_path / "l.db"

    assert main(["grade", str(folder), "--case", str(case), "--db", str(db)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "loading the shipped module" not in err
    assert "ships no module.wasm and has build commands" in err and "--build" in err
