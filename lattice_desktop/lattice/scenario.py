"""Lattice scenario files (spec §6): parse them strictly, format them back.

Every invalid input is a `ScenarioError` naming the source, the 1-based line and the
reason, so a case author can fix the file without reading the parser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lattice_desktop.errors import Location, UserError
from lattice_desktop.lattice.world import (
    BELT_CHARS,
    BELT_DIRS,
    CHAR_ENTITY,
    GRID_CHARS,
    Assembler,
    Dir,
    Entity,
    Recipe,
    Scenario,
    Source,
)

__all__ = [
    "BELT_CHARS",
    "BELT_DIRS",
    "CHAR_ENTITY",
    "GRID_CHARS",
    "MAX_SCENARIO_BYTES",
    "Assembler",
    "Dir",
    "Entity",
    "Recipe",
    "Scenario",
    "ScenarioError",
    "Source",
    "format_scenario",
    "parse_scenario",
]

# The spec bounds the grid, not the file. A 4096 x 4096 grid whose every cell is a
# source (the longest entity line, `source 4095 4095 N 255 65535`, 29 bytes with its
# newline) takes 16,781,312 + 16,777,216 x 29 bytes ~= 503 MB with its header; the
# limit leaves room for comments and recipes on top.
MAX_SCENARIO_BYTES = 512 * 1024 * 1024
MAX_SIDE = 4096
MAX_TICKS = 1_000_000_000
MAX_SNAPSHOTS = 1_000_000
U64_MAX = (1 << 64) - 1


class ScenarioError(UserError):
    """A scenario file that breaks the rules of spec §6."""


# --- parsing -----------------------------------------------------------------------------

_NON_ASCII = re.compile(rb"[\x80-\xff]")
_BAD_GRID_CHAR = re.compile(rb"[^.#^>v<SKA]")
_KEYWORDS = ("lattice", "size", "ticks", "snapshot", "item", "recipe", "source", "assembler")


@dataclass
class _Header:
    """What the lines before `grid` said, with the line each thing came from."""

    seen: dict[str, int] = field(default_factory=dict)  # once-only keyword -> line
    width: int = 0
    height: int = 0
    ticks: int = 0
    snapshot: int = 0
    items: dict[int, str] = field(default_factory=dict)
    item_lines: dict[int, int] = field(default_factory=dict)
    recipes: dict[int, Recipe] = field(default_factory=dict)
    recipe_lines: dict[int, int] = field(default_factory=dict)
    # (x, y) -> (line, entity) for source and assembler lines, in file order
    placed: dict[tuple[int, int], tuple[int, str]] = field(default_factory=dict)
    sources: dict[tuple[int, int], Source] = field(default_factory=dict)
    assemblers: dict[tuple[int, int], Assembler] = field(default_factory=dict)
    comments: list[str] = field(default_factory=list)


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source

    def error(self, line: int, message: str, key: str | None = None) -> ScenarioError:
        return ScenarioError(message, Location(self.source, line, key))

    def number(self, token: bytes, line: int, what: str, lo: int, hi: int) -> int:
        if not token.isdigit():  # bytes: ASCII digits only, like [0-9]+
            raise self.error(line, f"{what} must be a decimal integer, got {_show(token)}")
        value = int(token) if len(token) <= 20 else -1
        if not lo <= value <= hi:
            raise self.error(line, f"{what} must be in {lo}..{hi}, got {_show(token)}")
        return value

    def direction(self, token: bytes, line: int) -> Dir:
        try:
            return Dir[token.decode()]
        except KeyError:
            raise self.error(line, f"direction must be one of N E S W, got {_show(token)}") from None

    def expect_tokens(self, tokens: list[bytes], line: int, usage: str, *, at_least=False) -> None:
        n = len(usage.split())
        if len(tokens) != n and not (at_least and len(tokens) >= n):
            raise self.error(line, f"expected `{usage}`", tokens[0].decode())

    def once(self, header: _Header, keyword: str, line: int) -> None:
        if keyword in header.seen:
            raise self.error(
                line, f"duplicate `{keyword}` line (first on line {header.seen[keyword]})", keyword
            )
        header.seen[keyword] = line

    def header_line(self, header: _Header, tokens: list[bytes], line: int) -> None:
        keyword = tokens[0].decode()
        if keyword == "lattice":
            self.expect_tokens(tokens, line, "lattice 1")
            self.once(header, keyword, line)
            if tokens[1] != b"1":
                literal = " (the version is the literal tag 1, not a number)" if tokens[1].isdigit() else ""
                raise self.error(line, f"unsupported version {_show(tokens[1])}, expected 1{literal}")
        elif keyword == "size":
            self.expect_tokens(tokens, line, "size W H")
            self.once(header, keyword, line)
            header.width = self.number(tokens[1], line, "width W", 1, MAX_SIDE)
            header.height = self.number(tokens[2], line, "height H", 1, MAX_SIDE)
        elif keyword == "ticks":
            self.expect_tokens(tokens, line, "ticks T")
            self.once(header, keyword, line)
            header.ticks = self.number(tokens[1], line, "ticks T", 1, MAX_TICKS)
        elif keyword == "snapshot":
            self.expect_tokens(tokens, line, "snapshot S")
            self.once(header, keyword, line)
            header.snapshot = self.number(tokens[1], line, "snapshot S", 1, U64_MAX)
        elif keyword == "item":
            if len(tokens) not in (2, 3):
                raise self.error(line, "expected `item TYPE [NAME]`", keyword)
            type_ = self.number(tokens[1], line, "item type", 1, 255)
            if type_ in header.item_lines:
                first = header.item_lines[type_]
                raise self.error(line, f"duplicate item {type_} (first on line {first})", keyword)
            if len(tokens) == 3:  # the display name is optional (§6)
                header.items[type_] = tokens[2].decode()
            header.item_lines[type_] = line
        elif keyword == "recipe":
            self.recipe_line(header, tokens, line)
        elif keyword == "source":
            self.expect_tokens(tokens, line, "source X Y DIR TYPE PERIOD")
            cell = self.place(header, tokens, line, keyword)
            header.sources[cell] = Source(
                self.direction(tokens[3], line),
                self.number(tokens[4], line, "source item type", 1, 255),
                self.number(tokens[5], line, "source period", 1, 65535),
            )
        elif keyword == "assembler":
            self.expect_tokens(tokens, line, "assembler X Y DIR RECIPE_ID")
            cell = self.place(header, tokens, line, keyword)
            header.assemblers[cell] = Assembler(
                self.direction(tokens[3], line),
                self.number(tokens[4], line, "recipe id", 1, 255),
            )
        elif tokens[0].startswith(b"#"):
            raise self.error(line, "a comment's `#` must be the line's first byte (this one is indented)")
        else:
            raise self.error(
                line,
                f"unknown keyword {_show(tokens[0])}; expected one of " + ", ".join(_KEYWORDS) + " or grid",
            )

    def place(self, header: _Header, tokens: list[bytes], line: int, keyword: str) -> tuple:
        x = self.number(tokens[1], line, "X", 0, U64_MAX)
        y = self.number(tokens[2], line, "Y", 0, U64_MAX)
        if (x, y) in header.placed:
            first, what = header.placed[(x, y)]
            raise self.error(line, f"cell ({x}, {y}) already has a `{what}` line (line {first})", keyword)
        header.placed[(x, y)] = (line, keyword)
        return (x, y)

    def recipe_line(self, header: _Header, tokens: list[bytes], line: int) -> None:
        usage = "recipe ID PRODUCT TIME IN:COUNT [IN:COUNT ...]"
        self.expect_tokens(tokens, line, "recipe ID PRODUCT TIME IN:COUNT", at_least=True)
        recipe_id = self.number(tokens[1], line, "recipe id", 1, 255)
        if recipe_id in header.recipes:
            first = header.recipe_lines[recipe_id]
            raise self.error(line, f"duplicate recipe {recipe_id} (first on line {first})", "recipe")
        product = self.number(tokens[2], line, "recipe product", 1, 255)
        time = self.number(tokens[3], line, "recipe time", 1, 65535)
        if len(tokens) > 8:
            raise self.error(line, f"a recipe has 1..4 inputs, got {len(tokens) - 4}: `{usage}`")
        inputs: list[tuple[int, int]] = []
        for token in tokens[4:]:
            parts = token.split(b":")
            if len(parts) != 2:
                raise self.error(line, f"recipe input must be TYPE:COUNT, got {_show(token)}")
            type_ = self.number(parts[0], line, "recipe input type", 1, 255)
            count = self.number(parts[1], line, "recipe input count", 1, 255)
            if any(type_ == t for t, _ in inputs):
                raise self.error(line, f"recipe input type {type_} appears twice")
            inputs.append((type_, count))
        header.recipes[recipe_id] = Recipe(product, time, tuple(inputs))
        header.recipe_lines[recipe_id] = line

    def check_header(self, header: _Header, grid_line: int) -> None:
        """Once `grid` is reached: everything required is there and fits together."""
        for keyword, usage in (
            ("lattice", "lattice 1"),
            ("size", "size W H"),
            ("ticks", "ticks T"),
            ("snapshot", "snapshot S"),
        ):
            if keyword not in header.seen:
                raise self.error(grid_line, f"missing `{usage}` line before `grid`", keyword)
        if header.ticks // header.snapshot > MAX_SNAPSHOTS:
            raise self.error(
                header.seen["snapshot"],
                f"floor(T / S) = {header.ticks // header.snapshot} snapshots, more than {MAX_SNAPSHOTS:,}",
                "snapshot",
            )
        for (x, y), (line, keyword) in header.placed.items():
            if x >= header.width or y >= header.height:
                raise self.error(
                    line,
                    f"cell ({x}, {y}) is off the {header.width}x{header.height} grid",
                    keyword,
                )
            if keyword == "assembler":
                recipe_id = header.assemblers[(x, y)].recipe_id
                if recipe_id not in header.recipes:
                    raise self.error(line, f"unknown recipe id {recipe_id}", keyword)

    def parse(self, data: bytes) -> Scenario:
        if len(data) > MAX_SCENARIO_BYTES:
            raise ScenarioError(
                f"scenario is {len(data):,} bytes, more than the {MAX_SCENARIO_BYTES:,} "
                "bytes Lattice accepts",
                Location(self.source),
            )
        bad = _NON_ASCII.search(data)
        if bad:
            line = data.count(b"\n", 0, bad.start()) + 1
            raise self.error(line, f"non-ASCII byte 0x{data[bad.start()]:02x}")
        lines = data.split(b"\n")
        # a \r before \n is ignored; one at the very end is not before a \n
        lines = [raw[:-1] if raw.endswith(b"\r") else raw for raw in lines[:-1]] + lines[-1:]
        header = _Header()
        grid_index = None
        for index, raw in enumerate(lines):
            line = index + 1
            if raw.startswith(b"#"):
                header.comments.append(raw[1:].decode())
                continue
            tokens = [t for t in raw.replace(b"\t", b" ").split(b" ") if t]
            if not tokens:
                continue
            if tokens[0] == b"grid":
                if len(tokens) != 1:
                    raise self.error(line, "expected `grid` alone on its line", "grid")
                grid_index = index
                break
            self.header_line(header, tokens, line)
        if grid_index is None:
            last = len(lines) - 1 if len(lines) > 1 and lines[-1] == b"" else len(lines)
            raise self.error(last, "missing `grid` line", "grid")
        self.check_header(header, grid_index + 1)
        grid = self.grid(header, lines, grid_index)
        return self.build(header, grid)

    def grid(self, header: _Header, lines: list[bytes], grid_index: int) -> bytes:
        width, height = header.width, header.height
        body = lines[grid_index + 1 :]
        if body and body[-1] == b"":
            body.pop()  # the file's final newline
        first_row_line = grid_index + 2
        for y, row in enumerate(body[:height]):
            line = first_row_line + y
            bad = _BAD_GRID_CHAR.search(row)
            if bad:
                char = _show(row[bad.start() : bad.start() + 1])
                raise self.error(
                    line,
                    f"bad grid character {char} at x = {bad.start()}; expected one of . # ^ > v < S K A",
                    "grid",
                )
            if len(row) != width:
                raise self.error(line, f"grid row {y} has {len(row)} cells, expected W = {width}", "grid")
        if len(body) < height:
            raise self.error(
                grid_index + 1 + len(body),
                f"expected H = {height} grid lines after `grid`, found {len(body)}",
                "grid",
            )
        if len(body) > height:
            what = "an empty line" if not body[height].strip(b" \t") else "unexpected content"
            raise self.error(
                first_row_line + height,
                f"{what} after the {height} grid lines (only a single final newline may follow the grid)",
                "grid",
            )
        rows = body
        grid = b"".join(rows)
        kinds = {"source": ord("S"), "assembler": ord("A")}
        for (x, y), (line, keyword) in sorted(header.placed.items(), key=lambda kv: kv[1][0]):
            found = grid[y * width + x]
            if found != kinds[keyword]:
                raise self.error(
                    line,
                    f"{keyword} line names cell ({x}, {y}), which is {_show(bytes([found]))} "
                    f"in the grid, not {chr(kinds[keyword])}",
                    keyword,
                )
        for letter, keyword in ((b"S", "source"), (b"A", "assembler")):
            at = grid.find(letter)
            while at >= 0:
                x, y = at % width, at // width
                if (x, y) not in header.placed:
                    raise self.error(
                        grid_index + 2 + y,
                        f"{chr(letter[0])} cell ({x}, {y}) has no `{keyword}` line",
                        "grid",
                    )
                at = grid.find(letter, at + 1)
        return grid

    def build(self, header: _Header, grid: bytes) -> Scenario:
        width = header.width
        return Scenario(
            width=width,
            height=header.height,
            ticks=header.ticks,
            snapshot=header.snapshot,
            grid=grid,
            items=header.items,
            recipes=dict(sorted(header.recipes.items())),
            sources={y * width + x: s for (x, y), s in sorted(header.sources.items(), key=_rowmajor)},
            assemblers={y * width + x: a for (x, y), a in sorted(header.assemblers.items(), key=_rowmajor)},
            comments=tuple(header.comments),
        )


def _rowmajor(kv: tuple[tuple[int, int], object]) -> tuple[int, int]:
    (x, y), _ = kv
    return (y, x)


def _show(token: bytes) -> str:
    text = token.decode("ascii", "backslashreplace")
    return f"`{text}`" if text.isprintable() else repr(text)


def parse_scenario(data: bytes | str, *, source: str = "<scenario>") -> Scenario:
    """Parse a scenario file (spec §6); raise `ScenarioError` on anything invalid."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return _Parser(source).parse(data)


def format_scenario(scenario: Scenario) -> str:
    """The canonical text of a scenario; `parse_scenario` gives the same scenario back."""
    w = scenario.width
    out = [f"#{c}" for c in scenario.comments]
    out += [
        "lattice 1",
        f"size {w} {scenario.height}",
        f"ticks {scenario.ticks}",
        f"snapshot {scenario.snapshot}",
    ]
    out += [f"item {t} {name}" for t, name in sorted(scenario.items.items())]
    for rid, r in sorted(scenario.recipes.items()):
        inputs = " ".join(f"{t}:{n}" for t, n in r.inputs)
        out.append(f"recipe {rid} {r.product} {r.time} {inputs}")
    for c, s in sorted(scenario.sources.items()):
        out.append(f"source {c % w} {c // w} {s.dir.name} {s.type} {s.period}")
    for c, a in sorted(scenario.assemblers.items()):
        out.append(f"assembler {c % w} {c // w} {a.dir.name} {a.recipe_id}")
    out.append("grid")
    grid = scenario.grid.decode("ascii")
    out += [grid[y * w : (y + 1) * w] for y in range(scenario.height)]
    return "\n".join(out) + "\n"
