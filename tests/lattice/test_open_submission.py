"""open_submission: a submission whose records cannot be read is a user error that says why."""

from __future__ import annotations

import pytest

from lattice_desktop.errors import UserError
from lattice_desktop.lattice.submission_records import open_submission
from lattice_desktop.manifest.case import load_case
from lattice_desktop.resources import CASES


def test_a_submission_without_its_module_is_a_user_error_saying_so(tmp_path):
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "submission.toml").write_text('[submission]\nmodel = "m"\n[build]\nmodule = "m.wasm"\n')
    case = load_case(CASES / "lattice" / "case.toml")
    with pytest.raises(UserError, match=r"no built module at .*m\.wasm"):
        open_submission(str(folder), case, case.smoke[0].name)


def test_an_unreadable_submission_is_a_user_error(tmp_path):
    case = load_case(CASES / "lattice" / "case.toml")
    with pytest.raises(UserError, match="submission unreadable"):
        open_submission(str(tmp_path / "nowhere"), case, case.smoke[0].name)
