"""The box's [inspect] table, and reading a log without the optional inspect_ai package:
these need no inspect_ai and run in every install."""

from __future__ import annotations

import builtins

import pytest
from harness_builders import RESOURCES

from lattice_desktop.errors import UserError
from lattice_desktop.harness import parse_box
from lattice_desktop.harness.inspect_log import read_inspect_log

BOX_TEXT = (RESOURCES / "inspect" / "webshop_ctf.box.toml").read_text()


def test_the_example_mapping_is_read():
    mapping = parse_box(BOX_TEXT).inspect
    assert [r.describe() for r in mapping.captures] == [
        "user: a tool result contains 'FLAG{user-7f3a}'",
        "root: scorer 'includes' gave 'C'",
    ]
    assert mapping.price("mockllm/model").per_mtok == {"input": 3.0, "output": 15.0}
    assert mapping.price("other/model") is None


@pytest.mark.parametrize(
    ("old", "new", "message", "key", "on_line"),
    [
        (
            'objective = "root"',
            'objective = "admin"',
            "objective 'admin' is not defined",
            "inspect.captures[1].objective",
            'objective = "admin"',
        ),
        (
            'value = "C"',
            'value = "C"\nflag = "x"',
            "either 'scorer'",
            "inspect.captures[1].scorer",
            'scorer = "includes"',
        ),
        # A missing key: the line of its table.
        (
            'value = "C"',
            "",
            "'value' is required with 'scorer'",
            "inspect.captures[1].value",
            "[[inspect.captures]]",
        ),
        (
            "input_per_mtok = 3.0",
            'input_per_mtok = "three"',
            "must be a number",
            "inspect.prices[0].input_per_mtok",
            'input_per_mtok = "three"',
        ),
        (
            "input_per_mtok = 3.0",
            "input_per_token = 3.0",
            "unknown key 'input_per_token'",
            "inspect.prices[0].input_per_token",
            "input_per_token = 3.0",
        ),
        (
            'harness = "inspect-basic-agent"',
            'harness = "x"\nscorers = 1',
            "unknown key 'scorers'",
            "inspect.scorers",
            "scorers = 1",
        ),
    ],
)
def test_mapping_mistakes_name_the_line_and_key(old, new, message, key, on_line):
    text = BOX_TEXT.replace(old, new, 1)
    assert text != BOX_TEXT
    with pytest.raises(UserError, match=message) as info:
        parse_box(text, source="ctf.toml")
    assert info.value.location.key == key
    line = info.value.location.line
    assert line is not None and text.splitlines()[line - 1].startswith(on_line)


def test_without_inspect_ai_a_log_is_a_clear_error(tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_inspect(name, *args, **kwargs):
        if name.startswith("inspect_ai"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_inspect)
    log = tmp_path / "run.eval"
    log.write_bytes(b"PK")
    with pytest.raises(UserError, match=r"pip install 'lattice-desktop\[inspect\]'"):
        read_inspect_log(log, parse_box(BOX_TEXT))


def test_the_core_never_imports_inspect_ai_at_import_time():
    import subprocess
    import sys

    code = (
        "import sys, lattice_desktop.harness, lattice_desktop.harness.inspect_log, "
        "lattice_desktop.services.harness_import, lattice_desktop.cli.harness_cmd; "
        "print(any(m.startswith('inspect_ai') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
