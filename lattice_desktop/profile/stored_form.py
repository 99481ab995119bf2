"""A stored profile read back strictly: a database row is input like any other.

The row's JSON is parsed only when its nesting is shallow (a profile nests three deep), every
field must have its type, and the figures must hold together the way the profiler makes them:
self fuel adds up to the total when the run returned (never more when it did not), each
function's calls are the calls of the edges into it, inclusive fuel is at least self fuel,
and a function's source lines add up to its self fuel (at least it, when a trap cut
activations short).
A row that fails says why (`BadProfile`); the caller profiles again rather than show it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from lattice_desktop.profile.model import FORMAT, HOST, EdgeStats, FunctionStats, LineStats, Profile

MAX_DEPTH = 4
MAX_TEXT = 256 * 1024 * 1024
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")
_FUNCTION_KEYS: dict[str, type] = {
    "index": int,
    "name": str,
    "calls": int,
    "self_fuel": int,
    "inclusive": int,
}
_EDGE_KEYS: dict[str, type] = {"caller": int, "callee": int, "calls": int, "inclusive": int}
_LINE_KEYS: dict[str, type] = {"function": int, "file": str, "line": int, "fuel": int}
_OUTCOMES = re.compile(r"^[a-z_]{1,40}$")


class BadProfile(ValueError):
    """A stored profile that does not check out; the message says what is wrong."""


def profile_from_json(text: str) -> Profile:
    """The profile stored as `text`, or `BadProfile` saying why it cannot be trusted."""
    data = _shallow_json(text)
    if not isinstance(data, dict):
        raise BadProfile(f"the stored profile is a {type(data).__name__}, not an object")
    if data.pop("format", None) != FORMAT:
        raise BadProfile("the stored profile is of another format")
    expected = set(Profile.__dataclass_fields__)
    if set(data) != expected:
        raise BadProfile(f"the stored profile's fields differ: {sorted(set(data) ^ expected)[:5]}")
    for name in ("module_sha256", "case_name", "case_hash", "outcome", "detail", "wasmtime_version"):
        _check(data, name, str)
    for name in ("total", "budget"):
        _count(data, name)
    for name in ("instrumented_fuel", "graded_fuel"):
        if data[name] is not None:
            _count(data, name)
    if not isinstance(data["wall_time"], int | float) or isinstance(data["wall_time"], bool):
        raise BadProfile("the stored profile's wall_time is not a number")
    if not isinstance(data["line_table"], bool):
        raise BadProfile("the stored profile's line_table is not true or false")
    if not _OUTCOMES.match(data["outcome"]):
        raise BadProfile("the stored profile's outcome is not an outcome")
    data["functions"] = tuple(FunctionStats(**_record(f, _FUNCTION_KEYS)) for f in _list(data, "functions"))
    data["edges"] = tuple(EdgeStats(**_record(e, _EDGE_KEYS)) for e in _list(data, "edges"))
    data["lines"] = tuple(LineStats(**_record(s, _LINE_KEYS)) for s in _list(data, "lines"))
    profile = Profile(**data)
    problem = inconsistency(profile)
    if problem is not None:
        raise BadProfile(problem)
    return profile


def inconsistency(profile: Profile) -> str | None:
    """How the profile's figures contradict each other, or None when they hold together."""
    indices = Counter(f.index for f in profile.functions)
    if any(n > 1 for n in indices.values()):
        return "a function is listed twice"
    into: Counter[int] = Counter()
    for e in profile.edges:
        if e.callee not in indices or (e.caller != HOST and e.caller not in indices):
            return f"an edge names an unknown function ({e.caller} → {e.callee})"
        into[e.callee] += e.calls
    for f in profile.functions:
        if f.inclusive < f.self_fuel or (f.calls == 0 and f.inclusive) or into[f.index] != f.calls:
            return f"{f.name}'s figures contradict each other or its callers' edges"
    problem = _lines_problem(profile, set(indices))
    if problem is not None:
        return problem
    if profile.complete and profile.attributed != profile.total:
        return f"self fuel adds up to {profile.attributed:,}, not the total {profile.total:,}"
    if profile.attributed > profile.total:
        return f"self fuel adds up to {profile.attributed:,}, more than the total {profile.total:,}"
    return None


def _lines_problem(profile: Profile, indices: set[int]) -> str | None:
    """Lines only with a line table, of known functions, once each, adding up per function."""
    if profile.lines and not profile.line_table:
        return "the profile has source lines but no line table"
    per: Counter[int] = Counter()
    for s in profile.lines:
        if s.function not in indices:
            return f"a source line names an unknown function ({s.function})"
        per[s.function] += s.fuel
    if len({(s.function, s.file, s.line) for s in profile.lines}) != len(profile.lines):
        return "a source line is listed twice"
    if not profile.line_table:
        return None
    for f in profile.functions:
        if per[f.index] != f.self_fuel and (profile.complete or per[f.index] < f.self_fuel):
            return f"{f.name}'s source lines add up to {per[f.index]:,}, not its self fuel {f.self_fuel:,}"
    return None


def _shallow_json(text: str) -> Any:
    """`json.loads`, after checking the nesting without recursion (a deep row cannot crash it)."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise BadProfile("the stored profile is not text of a sensible size")
    depth = 0
    for bracket in _BRACKET.finditer(_STRING.sub('""', text)):
        depth += 1 if bracket.group() in "[{" else -1
        if depth > MAX_DEPTH:
            raise BadProfile(f"the stored profile nests deeper than {MAX_DEPTH}")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise BadProfile(f"the stored profile is not JSON: {exc}") from None


def _check(data: dict[str, Any], name: str, kind: type) -> None:
    if not isinstance(data[name], kind):
        raise BadProfile(f"the stored profile's {name} is not a {kind.__name__}")


def _count(data: dict[str, Any], name: str) -> None:
    value = data[name]
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 64:
        raise BadProfile(f"the stored profile's {name} is not a count of fuel")


def _list(data: dict[str, Any], name: str) -> list[Any]:
    if not isinstance(data[name], list):
        raise BadProfile(f"the stored profile's {name} is not a list")
    return data[name]


def _record(item: Any, keys: dict[str, type]) -> dict[str, Any]:
    if not isinstance(item, dict) or set(item) != set(keys):
        raise BadProfile("a stored function, edge or line does not have its fields")
    for name, kind in keys.items():
        value = item[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise BadProfile(f"a stored function, edge or line's {name} is not a {kind.__name__}")
        low = HOST if name == "caller" else 0
        if isinstance(value, int) and not low <= value < 1 << 64:
            raise BadProfile(f"a stored function, edge or line's {name} is out of range")
    return item
