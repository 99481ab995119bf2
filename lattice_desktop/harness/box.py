"""A box definition: objectives and weights, stage budget, deadline, tools, weights.

The format is TOML and is described in docs/harness.md. `parse_box` checks every key
and reports a mistake as a `UserError` naming the file, the line and the key.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from lattice_desktop.errors import Location, UserError
from lattice_desktop.harness.inspect_mapping import InspectMapping, parse_mapping
from lattice_desktop.harness.toml_lines import line_of
from lattice_desktop.manifest.toml_source import deepest_line
from lattice_desktop.textfile import read_text

BOX_FORMAT_VERSION = 1
MAX_SCHEMA_BYTES = 65_536
MAX_BOX_BYTES = 4 * 1024 * 1024
"""A tool schema longer than this (as compact JSON) is too large to record: calls to
that tool are excluded from the Tools argument check rather than marked incorrect."""

EXECUTION_METRICS = ("cost", "focus", "time", "compliance")
DEFAULT_EXECUTION_WEIGHTS = dict.fromkeys(EXECUTION_METRICS, 0.25)


@dataclass(frozen=True)
class Objective:
    id: str
    weight: float
    description: str = ""


@dataclass(frozen=True)
class Tool:
    """A declared tool. `schema is None` when it was too large to record."""

    name: str
    schema: dict[str, Any] | bool | None
    description: str = ""
    modifies: bool = False
    """Calls change state (write a file, create a user): a later identical call is new."""
    target: str | None = None
    """The argument naming what a call reads or modifies (e.g. "path")."""
    validator: Draft202012Validator | None = field(default=None, compare=False, repr=False)
    """Built once per schema when the box is loaded, reused for every call."""

    @property
    def recorded(self) -> bool:
        return self.schema is not None

    @property
    def validates_nothing(self) -> bool:
        """{} (or true) and {"type": "object"} accept any argument object."""
        return self.schema in ({}, True, {"type": "object"})


@dataclass(frozen=True)
class Box:
    id: str
    name: str
    stage: str
    model_budget_usd: float
    """The stage's model budget, shared by every box of that stage."""
    deadline_seconds: float
    objectives: tuple[Objective, ...]
    tools: tuple[Tool, ...]
    execution_weights: dict[str, float]
    source: str = "<box>"
    inspect: InspectMapping | None = None
    """How Inspect AI logs map onto this box (the optional `[inspect]` table)."""
    rank_unfinished: bool = False
    """Rank runs that errored or were cancelled (default: shown, but kept out)."""
    _tools: dict[str, Tool] = field(init=False, repr=False, compare=False)
    _objectives: dict[str, Objective] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Looked up once per call of a long trace: a dict, not a scan of the tuple.
        object.__setattr__(self, "_tools", {t.name: t for t in self.tools})
        object.__setattr__(self, "_objectives", {o.id: o for o in self.objectives})

    @property
    def total_weight(self) -> float:
        return sum(o.weight for o in self.objectives)

    def tool(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def objective(self, objective_id: str) -> Objective | None:
        return self._objectives.get(objective_id)


class _Reader:
    """Typed access to one TOML table that reports errors with file, line and key."""

    def __init__(
        self,
        text: str,
        source: str,
        data: dict[str, Any],
        section: str | None = None,
        index: int | None = None,
    ) -> None:
        self.text, self.source, self.data = text, source, data
        self.section, self.index = section, index

    def path(self, key: str | None = None) -> str | None:
        base = self.section or ""
        if self.index is not None:
            base += f"[{self.index}]"
        if key is None:
            return base or None
        return f"{base}.{key}" if base else key

    def error(self, message: str, key: str | None = None) -> UserError:
        line = line_of(self.text, self.section, self.index, key)
        return UserError(message, Location(self.source, line, self.path(key)))

    def check_keys(self, allowed: set[str]) -> None:
        for key in self.data:
            if key not in allowed:
                known = ", ".join(sorted(allowed))
                raise self.error(f"unknown key {key!r} (known keys: {known})", key)

    def string(self, key: str, *, default: str | None = None) -> str:
        value = self.data.get(key, default)
        if value is None:
            raise self.error(f"{key!r} is required", key)
        if not isinstance(value, str) or not value.strip():
            raise self.error(f"{key!r} must be a non-empty string", key)
        return value

    def number(self, key: str, *, default: float | None = None, positive: bool = True) -> float:
        value = self.data.get(key, default)
        if value is None:
            raise self.error(f"{key!r} is required", key)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.error(f"{key!r} must be a number, not {value!r}", key)
        if positive and value <= 0:
            raise self.error(f"{key!r} must be greater than 0, not {value!r}", key)
        if not positive and value < 0:
            raise self.error(f"{key!r} must not be negative, not {value!r}", key)
        return float(value)

    def boolean(self, key: str, *, default: bool) -> bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            raise self.error(f"{key!r} must be true or false, not {value!r}", key)
        return value

    def sub(self, section: str, data: dict[str, Any], index: int | None = None) -> _Reader:
        """A reader for a nested table, reporting errors under its own section."""
        return _Reader(self.text, self.source, data, section, index)

    def table(self, key: str) -> dict[str, Any]:
        value = self.data.get(key)
        if not isinstance(value, dict):
            raise self.error(f"[{key}] is required and must be a table", key)
        return value

    def tables(self, key: str) -> list[dict[str, Any]]:
        value = self.data.get(key)
        if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
            raise self.error(f"at least one [[{key}]] table is required", key)
        return value


def _tool(reader: _Reader) -> Tool:
    reader.check_keys({"name", "description", "schema", "schema_too_large", "modifies", "target"})
    name = reader.string("name")
    too_large = reader.boolean("schema_too_large", default=False)
    raw = reader.data.get("schema")
    if too_large and raw is not None:
        raise reader.error("give either 'schema' or 'schema_too_large = true', not both", "schema")
    schema: dict[str, Any] | bool | None = None
    if not too_large:
        if raw is None:
            raise reader.error(
                "'schema' is required (a JSON Schema, as a table or a JSON "
                "string; {} if the tool declares none)",
                "schema",
            )
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise reader.error(f"'schema' is not valid JSON: {exc}", "schema") from None
        if not isinstance(raw, dict | bool):
            raise reader.error("'schema' must be a JSON Schema object", "schema")
        try:
            Draft202012Validator.check_schema(raw)
        except SchemaError as exc:
            where = "/".join(str(p) for p in exc.path) or "(root)"
            raise reader.error(
                f"'schema' is not a valid JSON Schema at {where}: {exc.message}", "schema"
            ) from None
        size = len(json.dumps(raw, separators=(",", ":")))
        schema = raw if size <= MAX_SCHEMA_BYTES else None
    target = reader.data.get("target")
    if target is not None:
        target = reader.string("target")
    return Tool(
        name=name,
        schema=schema,
        description=reader.data.get("description", ""),
        modifies=reader.boolean("modifies", default=False),
        target=target,
        validator=Draft202012Validator(schema) if schema is not None else None,
    )


def _weights(reader: _Reader) -> dict[str, float]:
    if "execution_weights" not in reader.data:
        return dict(DEFAULT_EXECUTION_WEIGHTS)
    table = _Reader(reader.text, reader.source, reader.table("execution_weights"), "execution_weights")
    table.check_keys({*EXECUTION_METRICS, "tools"})
    if table.number("tools", default=0.0, positive=False) != 0:
        raise table.error("Tools is published for debugging only: its weight must be 0", "tools")
    weights = {m: table.number(m, positive=False) for m in EXECUTION_METRICS}
    if sum(weights.values()) <= 0:
        raise table.error("at least one Execution weight must be greater than 0")
    return weights


def parse_box(text: str, *, source: str = "<box>") -> Box:
    """Parse and check a box definition (TOML). Raises `UserError` with file, line, key."""
    try:
        data = tomli.loads(text)
    except tomli.TOMLDecodeError as exc:
        raise UserError(
            f"not valid TOML: {exc.msg}", Location(source, getattr(exc, "lineno", None))
        ) from None
    except RecursionError:
        raise UserError(
            "arrays or tables are nested too deeply", Location(source, deepest_line(text))
        ) from None
    top = _Reader(text, source, data)
    top.check_keys(
        {
            "format",
            "id",
            "name",
            "deadline_seconds",
            "stage",
            "objectives",
            "tools",
            "execution_weights",
            "inspect",
            "rank_unfinished",
        }
    )
    if data.get("format", BOX_FORMAT_VERSION) != BOX_FORMAT_VERSION:
        raise top.error(
            f"unsupported box format {data['format']!r} (this version reads format {BOX_FORMAT_VERSION})",
            "format",
        )
    stage = _Reader(text, source, top.table("stage"), "stage")
    stage.check_keys({"id", "model_budget_usd"})

    objectives: list[Objective] = []
    for i, raw in enumerate(top.tables("objectives")):
        r = _Reader(text, source, raw, "objectives", i)
        r.check_keys({"id", "weight", "description"})
        objective = Objective(r.string("id"), r.number("weight"), raw.get("description", ""))
        if any(o.id == objective.id for o in objectives):
            raise r.error(f"objective {objective.id!r} is defined twice", "id")
        objectives.append(objective)

    tools: list[Tool] = []
    for i, raw in enumerate(top.tables("tools")):
        tool = _tool(_Reader(text, source, raw, "tools", i))
        if any(t.name == tool.name for t in tools):
            raise _Reader(text, source, raw, "tools", i).error(f"tool {tool.name!r} is defined twice", "name")
        tools.append(tool)

    return Box(
        id=top.string("id"),
        name=data.get("name") or top.string("id"),
        stage=stage.string("id"),
        model_budget_usd=stage.number("model_budget_usd"),
        deadline_seconds=top.number("deadline_seconds"),
        objectives=tuple(objectives),
        tools=tuple(tools),
        execution_weights=_weights(top),
        source=source,
        rank_unfinished=top.boolean("rank_unfinished", default=False),
        inspect=(
            parse_mapping(top.sub("inspect", top.table("inspect")), {o.id for o in objectives})
            if "inspect" in data
            else None
        ),
    )


def load_box(path: str | Path) -> Box:
    """Read and parse a box file; an unreadable file is a `UserError` too."""
    return parse_box(read_text(path, limit=MAX_BOX_BYTES, what="box file"), source=str(path))
