"""`profile … --pprof FILE`: a gzipped pprof profile whose samples add up to each
function's self fuel and each line's fuel, with the call stacks, read back by protobuf and
by the real pprof (`go tool pprof -top` / `-traces`, where Go is installed: .ci/run installs
Debian's golang-go)."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
from collections import Counter

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.profile.pprof import CUT_SHORT, pprof
from lattice_desktop.profile.pprof_proto import message_classes
from tests.core.wat_cases import write_case, write_submission
from tests.profile.lines_profile import profile_with_lines
from tests.profile.test_cli import CASES
from tests.profile.test_exports import TREE
from tests.profile.test_flame import SHARED
from tests.profile.test_limits import SPIN
from tests.profile.test_source_lines import COUNTED
from tests.profile.wat_profile import profile_and_count

GO = shutil.which("go")
needs_pprof = pytest.mark.skipif(
    GO is None, reason="`go tool pprof` needs Go (Debian: apt-get install golang-go)"
)


def _read(data: bytes):
    message = message_classes()["Profile"]()
    message.ParseFromString(gzip.decompress(data))
    return message


def _stacks(message) -> Counter:
    """(function names innermost first, line of the innermost) -> fuel, as pprof stores it."""
    strings = message.string_table
    functions = {f.id: strings[f.name] for f in message.function}
    locations = {loc.id: loc.line[0] for loc in message.location}
    found: Counter = Counter()
    for sample in message.sample:
        names = tuple(functions[locations[i].function_id] for i in sample.location_id)
        found[names, locations[sample.location_id[0]].line] += sample.value[0]
    return found


def _go_pprof(tmp_path, *args: str) -> str:
    env = os.environ | {"HOME": str(tmp_path), "PPROF_TMPDIR": str(tmp_path), "GOCACHE": str(tmp_path / "go")}
    done = subprocess.run(
        [GO, "tool", "pprof", *args], check=False, capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _top(text: str) -> dict[str, tuple[int, int]]:
    """`pprof -top`'s rows: name -> (flat, cum)."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+)$", line)
        if m:
            rows[m.group(3).strip()] = (int(m.group(1)), int(m.group(2)))
    return rows


def _traces(text: str) -> dict[tuple[str, ...], int]:
    """`pprof -traces`' blocks: the stack (innermost first) -> its fuel."""
    stacks: dict[tuple[str, ...], int] = {}
    for block in re.split(r"^-+\+-+$", text, flags=re.M):
        rows = [line.split() for line in block.splitlines() if line.strip()]
        if rows and rows[0][0].isdigit():
            stacks[tuple([rows[0][1]] + [row[0] for row in rows[1:]])] = int(rows[0][0])
    return stacks


def test_a_call_tree_is_exact_flat_and_cumulative(tmp_path):
    profile, counted = profile_and_count(tmp_path / "p", TREE, "abc")
    written = pprof(profile, module_label="tree.wasm")
    assert written.approximate is None
    message = _read(written.data)
    assert [message.string_table[t.type] for t in message.sample_type] == ["fuel"]
    stacks = _stacks(message)
    assert sum(stacks.values()) == profile.total == counted
    self_fuel = Counter()
    for (names, _), fuel in stacks.items():
        self_fuel[names[0]] += fuel
    assert dict(self_fuel) == {f.name: f.self_fuel for f in profile.functions if f.self_fuel}
    assert {names for names, _ in stacks} == {
        ("leaf", "middle", "run"),
        ("middle", "run"),
        ("run",),
        ("alloc",),
    }


def test_a_shared_function_keeps_its_exact_self_fuel_and_says_the_stacks_are_split(tmp_path):
    profile, _ = profile_and_count(tmp_path / "p", SHARED, "abc")
    written = pprof(profile)
    assert written.approximate is not None and "shared" in written.approximate
    message = _read(written.data)
    assert any("approximate call stacks" in message.string_table[c] for c in message.comment)
    self_fuel = Counter()
    for (names, _), fuel in _stacks(message).items():
        self_fuel[names[0]] += fuel
    assert dict(self_fuel) == {f.name: f.self_fuel for f in profile.functions if f.self_fuel}


def test_each_line_keeps_its_fuel(tmp_path):
    profile, counted = profile_with_lines(tmp_path / "p", COUNTED)
    assert profile.line_table
    message = _read(pprof(profile).data)
    per_line = Counter()
    for (names, line), fuel in _stacks(message).items():
        per_line[names[0], line] += fuel
    expected = Counter()
    for s in profile.lines:
        expected[profile.name_of(s.function), s.line] += s.fuel
    assert +per_line == +expected and sum(per_line.values()) == counted
    files = {message.string_table[f.filename] for f in message.function}
    assert files == {"t.wat"}


@needs_pprof
def test_go_tool_pprof_reads_it_back(tmp_path, capsys):
    case = write_case(tmp_path / "case", CASES, fuel_limit=10_000_000)
    sub = write_submission(tmp_path / "sub", TREE)
    out = tmp_path / "tree.pb.gz"
    args = ["profile", str(sub), "--case", str(case), "--case-name", "big", "--json", "--pprof", str(out)]
    assert main([*args, "--db", str(tmp_path / "db")]) == 0
    data = json.loads(capsys.readouterr().out)
    top = _top(_go_pprof(tmp_path, "-top", "-nodefraction=0", str(out)))
    assert top == {f["name"]: (f["self_fuel"], f["inclusive_fuel"]) for f in data["functions"]}
    traces = _go_pprof(tmp_path, "-traces", str(out))
    stacks = _traces(traces)
    assert sum(stacks.values()) == data["total_fuel"]
    assert stacks[("leaf", "middle", "run")] == top["leaf"][0]
    assert stacks[("middle", "run")] == top["middle"][0]


@needs_pprof
def test_go_tool_pprof_shows_the_source_lines(tmp_path):
    profile, _ = profile_with_lines(tmp_path / "p", COUNTED)
    out = tmp_path / "lines.pb.gz"
    out.write_bytes(pprof(profile).data)
    rows = _top(_go_pprof(tmp_path, "-top", "-lines", "-nodefraction=0", str(out)))
    expected = Counter()
    for s in profile.lines:
        if s.fuel:
            expected[f"{profile.name_of(s.function)} t.wat:{s.line}"] += s.fuel
    assert {name: flat for name, (flat, _) in rows.items() if flat} == dict(expected)


def test_fuel_a_trap_cut_short_is_one_sample_of_its_own(tmp_path):
    profile, counted = profile_and_count(tmp_path / "p", SPIN)
    assert counted == profile.budget
    assert profile.outcome == "out_of_fuel" and profile.unattributed > 0
    message = _read(pprof(profile).data)
    stacks = _stacks(message)
    assert stacks[(CUT_SHORT,), 0] == profile.unattributed
    assert sum(stacks.values()) == profile.total
    assert any("did not return (out_of_fuel)" in message.string_table[c] for c in message.comment)


def test_a_pprof_file_that_was_not_written_gets_no_note_on_its_stacks(tmp_path, capsys):
    case = write_case(tmp_path / "case", CASES, fuel_limit=10_000_000)
    sub = write_submission(tmp_path / "sub", SHARED)
    db = ["--db", str(tmp_path / "db")]
    out = tmp_path / "missing" / "shared.pb.gz"
    args = ["profile", str(sub), "--case", str(case), "--case-name", "big", "--pprof", str(out), *db]
    assert main(args) == 6  # profiled, the export refused
    err = capsys.readouterr().err
    assert "not written: cannot write" in err and not out.exists()
    assert "flat fuel per function and line is exact" not in err  # a note on a file that is not there
    written = tmp_path / "shared.pb.gz"
    assert main([*args[:-4], "--pprof", str(written), *db]) == 0
    assert "flat fuel per function and line is exact" in capsys.readouterr().err  # said of a real file
