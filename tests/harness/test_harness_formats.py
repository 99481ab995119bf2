"""The importers reject bad boxes (file, key, line) and bad traces (line, reason)."""

from __future__ import annotations

import json

import pytest
from harness_builders import BOX_PATH, jsonl

from lattice_desktop.errors import UserError
from lattice_desktop.harness import load_box, load_trace, parse_box, parse_trace

GOOD_BOX = BOX_PATH.read_text()


def box_error(text: str) -> UserError:
    with pytest.raises(UserError) as info:
        parse_box(text, source="box.toml")
    return info.value


def test_bundled_box_loads():
    box = load_box(BOX_PATH)
    assert [(o.id, o.weight) for o in box.objectives] == [("user", 2), ("root", 3)]
    assert box.model_budget_usd == 10.0 and box.deadline_seconds == 3600
    assert box.tool("notes").validates_nothing
    assert not box.tool("shell").validates_nothing
    assert box.tool("write_file").modifies and box.tool("write_file").target == "path"


def test_one_validator_per_schema_built_once(box):
    tool = box.tool("http_request")
    assert tool.validator is tool.validator
    assert tool.validator.schema == tool.schema


def test_toml_syntax_error_has_line():
    err = box_error(GOOD_BOX.replace("deadline_seconds = 3600", "deadline_seconds = "))
    assert err.location.file == "box.toml"
    assert (
        err.location.line
        == GOOD_BOX.splitlines().index(
            next(line for line in GOOD_BOX.splitlines() if line.startswith("deadline_seconds"))
        )
        + 1
    )


@pytest.mark.parametrize(
    ("old", "new", "key", "fragment"),
    [
        ("model_budget_usd = 10.0", "model_budget_usd = -1", "stage.model_budget_usd", "greater than 0"),
        ('id = "root"', 'id = "user"', "objectives[1].id", "defined twice"),
        ("weight = 3", 'weight = "three"', "objectives[1].weight", "must be a number"),
        ("tools = 0 ", "tools = 0.1 ", "execution_weights.tools", "must be 0"),
        ('name = "notes"', 'name = "notes"\nmodifies = "yes"', "tools[6].modifies", "true or false"),
        ('schema = "{}"', 'schema = "{not json"', "tools[6].schema", "not valid JSON"),
        ('schema = "{}"', "schema = '{\"type\": 12}'", "tools[6].schema", "not a valid JSON Schema"),
        ("deadline_seconds = 3600", "deadline_second = 3600", "deadline_second", "unknown key"),
    ],
)
def test_bad_box_names_file_key_and_line(old, new, key, fragment):
    assert old in GOOD_BOX
    text = GOOD_BOX.replace(old, new, 1)
    err = box_error(text)
    assert err.location.key == key
    assert fragment in err.message
    assert err.location.file == "box.toml"
    wanted = new.split("\n")[-1].split("=")[0].strip()
    assert text.splitlines()[err.location.line - 1].startswith(wanted)


def test_missing_stage_and_objectives():
    assert "[stage] is required" in box_error('id = "b"\ndeadline_seconds = 1\n').message
    err = box_error('id = "b"\ndeadline_seconds = 1\n[stage]\nid = "s"\nmodel_budget_usd = 1\n')
    assert "[[objectives]]" in err.message


def test_schema_too_large_is_not_recorded():
    big = {"type": "object", "description": "x" * 70_000}
    text = GOOD_BOX + f"\n[[tools]]\nname = \"huge\"\nschema = '{json.dumps(big)}'\n"
    box = parse_box(text)
    assert not box.tool("huge").recorded and box.tool("huge").validator is None
    declared = parse_box(GOOD_BOX + '\n[[tools]]\nname = "big"\nschema_too_large = true\n')
    assert not declared.tool("big").recorded


def test_unreadable_box_file(tmp_path):
    with pytest.raises(UserError) as info:
        load_box(tmp_path / "nope.toml")
    assert info.value.location.file.endswith("nope.toml")


def trace_error(text: str) -> UserError:
    with pytest.raises(UserError) as info:
        parse_trace(text, source="run.jsonl")
    return info.value


START = {"type": "run_start", "t": 0, "run_id": "r", "harness": "h", "model": "m", "box": "webshop"}
END = {"type": "run_end", "t": 9}


def lines(*objs: object) -> str:
    return "\n".join(o if isinstance(o, str) else json.dumps(o) for o in objs) + "\n"


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("", None, "empty"),
        (lines(START, "{oops", END), 2, "not valid JSON"),
        (lines(START, [1, 2], END), 2, "JSON object"),
        (lines({"type": "capture", "t": 0, "objective": "user"}, END), 1, "first line"),
        (lines(START, {"type": "capture", "t": 1, "objective": "user"}), 2, "cut short"),
        (lines(START, {"type": "teleport", "t": 1}, END), 2, "unknown event type"),
        (lines(START, {"type": "capture", "t": 1}, END), 2, "'objective' is missing"),
        (
            lines(START, {"type": "tool_call", "t": 1, "tool": "shell", "status": 200}, END),
            2,
            "'arguments' is missing",
        ),
        (
            lines(START, {"type": "tool_call", "t": 1, "tool": "shell", "arguments": {}, "status": 999}, END),
            2,
            "HTTP status",
        ),
        (lines(START, {"type": "model_usage", "t": 1, "cost_usd": -1}, END), 2, "negative"),
        (
            lines(
                START,
                {"type": "model_usage", "t": 5, "cost_usd": 1},
                {"type": "model_usage", "t": 4, "cost_usd": 1},
                END,
            ),
            3,
            "goes backwards",
        ),
        (lines(START, {"type": "paused", "t": 5, "until": 4, "reason": "queue"}, END), 2, "before 't'"),
        (lines(START, {"type": "paused", "t": 5, "until": 6, "reason": "lunch"}, END), 2, "must be one of"),
        (
            lines(START, {"type": "boundary_probe", "t": 5, "probe": "p", "result": "maybe"}, END),
            2,
            "must be one of",
        ),
        (lines(START, START, END), 2, "only once"),
        (lines({**START, "harness": ""}, END), 1, "must not be empty"),
        (lines({**START, "t": "soon"}, END), 1, "must be a number"),
    ],
)
def test_bad_trace_names_line_and_reason(text, line, fragment):
    err = trace_error(text)
    assert err.location.line == line
    assert fragment in err.message
    assert str(err).startswith("run.jsonl")


def test_blank_lines_are_skipped_but_counted():
    text = lines(START, "", {"type": "capture", "t": 1}, END)
    assert trace_error(text).location.line == 3


def test_trace_fields_as_recorded():
    trace = parse_trace(
        jsonl(
            [{"type": "tool_call", "t": 1, "tool": "shell", "arguments": "ls", "status": None, "id": "c1"}],
            stage="s",
        )
    )
    (call,) = trace.events
    assert call.arguments == "ls" and call.status is None and call.call_id == "c1"
    assert trace.stage == "s"


def test_undecodable_trace_file_names_its_line(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(UserError, match="not valid UTF-8") as info:
        load_trace(path)
    assert info.value.location.line == 1
