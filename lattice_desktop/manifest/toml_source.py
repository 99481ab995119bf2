"""A TOML document that remembers the line of every key, for errors a person can act on.

tomli parses values but forgets positions, so a light scanner walks the same text and
records the line each `[table]`, `[[array]]` and `key =` appears on.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli

from lattice_desktop.errors import Location, ManifestError

MAX_MANIFEST_BYTES = 4 * 1024 * 1024

KeyPath = tuple[str | int, ...]

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_PART = r"""(?:"[^"]*"|'[^']*'|[A-Za-z0-9_\-]+)"""
_KEY = re.compile(rf"^\s*({_PART}(?:\s*\.\s*{_PART})*)\s*=")


def _split_key(raw: str) -> list[str]:
    parts = re.findall(r""""([^"]*)"|'([^']*)'|([A-Za-z0-9_\-]+)""", raw)
    return [a or b or c for a, b, c in parts]


def key_lines(text: str) -> dict[KeyPath, int]:
    """Map each key path (array tables indexed) to the 1-based line that defines it."""
    lines: dict[KeyPath, int] = {}
    array_counts: dict[tuple[str, ...], int] = {}
    table: KeyPath = ()
    depth = 0  # open brackets/braces of a multi-line value
    in_multiline: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if in_multiline:
            if in_multiline in line:
                in_multiline = None
            continue
        rest = line  # what follows the key, if the line starts with one
        if depth == 0:
            header = _HEADER.match(line)
            if header:
                names = tuple(_split_key(header.group(2)))
                if header.group(1) == "[[":
                    index = array_counts.get(names, 0)
                    array_counts[names] = index + 1
                    table = (*names, index)
                else:
                    table = names
                lines.setdefault(table, number)
                continue
            key = _KEY.match(line)
            if key:
                lines.setdefault((*table, *_split_key(key.group(1))), number)
                rest = line[key.end() :]
        for quote in ('"""', "'''"):
            if rest.count(quote) % 2 == 1:
                in_multiline = quote
        stripped = re.sub(r'"(?:\\.|[^"\\])*"|\'[^\']*\'', "", rest.split("#")[0])
        depth = max(0, depth + stripped.count("[") + stripped.count("{"))
        depth = max(0, depth - stripped.count("]") - stripped.count("}"))
    return lines


def deepest_line(text: str) -> int:
    """The 1-based line holding the most opening brackets: where nesting runs away."""
    counts = [line.count("[") + line.count("{") for line in text.splitlines()] or [0]
    return counts.index(max(counts)) + 1


def _naming_the_key(message: str, text: str, line: int | None) -> str:
    """tomli's duplicate-key messages with the key named: "Cannot overwrite a value" says
    neither which key nor where it was set first, and a twice-declared table is a tuple."""
    twice = re.fullmatch(r"Cannot declare \((.*)\) twice", message)
    if twice:
        parts = re.findall(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"", twice.group(1))
        name = ".".join(a or b for a, b in parts)
        return f"table [{name}] is declared twice" if name else message
    if message != "Cannot overwrite a value" or line is None:
        return message
    lines = text.splitlines()
    if not 0 < line <= len(lines) or "=" not in lines[line - 1]:
        return message
    key = lines[line - 1].split("=", 1)[0].strip()
    table = next((m.group(2) for m in map(_HEADER.match, reversed(lines[: line - 1])) if m), None)
    where = f" in [{table}]" if table else ""
    return f"key '{key}'{where} was already set; a value cannot be overwritten"


def describe_path(path: KeyPath) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


@dataclass
class TomlDocument:
    """Parsed TOML plus the line of each key, with helpers to raise located errors."""

    path: Path
    data: dict[str, Any]
    lines: dict[KeyPath, int] = field(default_factory=dict)
    line_count: int = 1

    @classmethod
    def load(cls, path: Path) -> TomlDocument:
        """A manifest of the grader's own (a case's), read by path; a submitter's file is read
        through `no_follow` and handed to `decode`."""
        path = Path(path)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise ManifestError("file not found", Location(str(path))) from None
        except IsADirectoryError:
            raise ManifestError("is a folder, expected a TOML file", Location(str(path))) from None
        except OSError as exc:
            raise ManifestError(f"cannot be read: {exc.strerror}", Location(str(path))) from None
        return cls.decode(raw, path)

    @classmethod
    def decode(cls, raw: bytes, path: Path) -> TomlDocument:
        """The document in `raw`, the bytes of `path` read once by the caller."""
        if len(raw) > MAX_MANIFEST_BYTES:
            raise ManifestError(
                f"is {len(raw):,} bytes; manifests are limited to {MAX_MANIFEST_BYTES:,}",
                Location(str(path)),
            )
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise ManifestError("is not valid UTF-8", Location(str(path), line)) from None
        return cls.parse(text, path)

    @classmethod
    def parse(cls, text: str, path: Path) -> TomlDocument:
        try:
            data = tomli.loads(text)
        except tomli.TOMLDecodeError as exc:
            message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", exc.msg)
            line = getattr(exc, "lineno", None)
            message = _naming_the_key(message, text, line)
            raise ManifestError(f"invalid TOML: {message}", Location(str(path), line)) from None
        except RecursionError:
            raise ManifestError(
                "arrays or tables are nested too deeply", Location(str(path), deepest_line(text))
            ) from None
        return cls(path=path, data=data, lines=key_lines(text), line_count=text.count("\n") + 1)

    def line_of(self, path: KeyPath) -> int:
        """The line defining `path`, else its nearest enclosing table's, else the end of
        the file (where a missing table would go)."""
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.line_count

    def error(self, path: KeyPath, message: str) -> ManifestError:
        return ManifestError(
            message, Location(str(self.path), self.line_of(path), describe_path(path) or None)
        )

    def table(self, *path: str | int, required: bool = True) -> Table:
        value: Any = self.data
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        if value is None:
            if required:
                raise self.error(path, f"missing table [{describe_path(path)}]")
            value = {}
        if not isinstance(value, dict):
            raise self.error(path, f"must be a table, not {_type_name(value)}")
        return Table(self, path, value)

    def tables(self, name: str) -> list[Table]:
        value = self.data.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.error((name,), f"must be written as [[{name}]] tables")
        return [Table(self, (name, i), v) for i, v in enumerate(value)]

    def check_top_level(self, allowed: Iterable[str]) -> None:
        Table(self, (), self.data).check_keys(allowed)


def _type_name(value: Any) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "a table",
    }.get(type(value), type(value).__name__)


_MISSING = object()


@dataclass
class Table:
    """One TOML table, read key by key with type checks and located errors."""

    doc: TomlDocument
    path: KeyPath
    data: dict[str, Any]

    def _get(self, key: str, default: Any, types: tuple[type, ...], what: str) -> Any:
        if key not in self.data:
            if default is _MISSING:
                raise self.doc.error(self.path, f"missing key '{key}' in [{describe_path(self.path)}]")
            return default
        value = self.data[key]
        ok = False if isinstance(value, bool) and bool not in types else isinstance(value, types)
        if not ok:
            raise self.doc.error((*self.path, key), f"must be {what}, not {_type_name(value)}")
        return value

    def string(self, key: str, default: Any = _MISSING, *, choices: Iterable[str] = ()) -> Any:
        value = self._get(key, default, (str,), "a string")
        choices = tuple(choices)
        if choices and value is not default and value not in choices:
            raise self.doc.error(
                (*self.path, key),
                f"must be one of {', '.join(repr(c) for c in choices)}, not {value!r}"
                + _did_you_mean(value, choices),
            )
        if isinstance(value, str) and not value.strip() and value is not default:
            raise self.doc.error((*self.path, key), "must not be empty")
        return value

    def integer(
        self,
        key: str,
        default: Any = _MISSING,
        *,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> Any:
        value = self._get(key, default, (int,), "an integer")
        self._check_range(key, value, default, minimum, maximum)
        return value

    def number(
        self,
        key: str,
        default: Any = _MISSING,
        *,
        minimum: float | None = None,
        maximum: float | None = None,
    ) -> Any:
        value = self._get(key, default, (int, float), "a number")
        if isinstance(value, float) and not math.isfinite(value):
            raise self.doc.error((*self.path, key), f"must be a finite number, not {value}")
        self._check_range(key, value, default, minimum, maximum)
        return value if value is default or value is None else float(value)

    def boolean(self, key: str, default: Any = _MISSING) -> Any:
        return self._get(key, default, (bool,), "true or false")

    def strings(self, key: str, default: Any = _MISSING) -> Any:
        value = self._get(key, default, (list,), "an array of strings")
        if value is not default:
            for item in value:
                if not isinstance(item, str):
                    raise self.doc.error(
                        (*self.path, key), f"must be an array of strings, found {_type_name(item)}"
                    )
        return value

    def raw(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def _check_range(self, key: str, value: Any, default: Any, lo: Any, hi: Any) -> None:
        if value is default or value is None:
            return
        if lo is not None and value < lo:
            raise self.doc.error((*self.path, key), f"must be at least {lo}, not {value}")
        if hi is not None and value > hi:
            raise self.doc.error((*self.path, key), f"must be at most {hi}, not {value}")

    def file(self, key: str, default: Any = _MISSING) -> Any:
        """A path relative to the manifest's folder that must exist as a file."""
        value = self.string(key, default)
        if value is default or value is None:
            return value
        resolved = (self.doc.path.parent / value).resolve()
        if not resolved.is_file():
            raise self.doc.error((*self.path, key), f"file not found: {value} (looked in {resolved})")
        return resolved

    def error(self, key: str | None, message: str) -> ManifestError:
        return self.doc.error(self.path if key is None else (*self.path, key), message)

    def check_keys(self, allowed: Iterable[str]) -> None:
        allowed = tuple(allowed)
        for key in self.data:
            if key not in allowed:
                where = f"[{describe_path(self.path)}]" if self.path else "the top level"
                raise self.doc.error(
                    (*self.path, key), f"unknown key '{key}' in {where}" + _did_you_mean(key, allowed)
                )


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
