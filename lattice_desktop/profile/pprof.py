"""A fuel profile as a gzipped pprof profile (`go tool pprof`, speedscope, Grafana
Pyroscope, Polar Signals read it): one sample type, fuel; a sample per call stack and
source line, its value the fuel the stack's innermost function burned on that line.

Every function's samples add up to its self fuel exactly, and its lines to its fuel per
line, so `pprof -top` (flat) and `-lines` are exact. Where the call graph is a tree each
function has one stack and the cumulative figures are exact too; where a function is
called from several places its fuel is split between its callers in proportion to the
fuel of their calls (as `--approximate` speedscope does) and the profile's comments say so.
Callers sit at line 0: calls are counted per caller, not per call site."""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from dataclasses import dataclass

from lattice_desktop.profile.export import call_stacks
from lattice_desktop.profile.model import HOST, Profile
from lattice_desktop.profile.pprof_proto import message_classes

CUT_SHORT = "(cut short by a trap)"

Path = tuple[int, ...]  # function indices, outermost first
Place = tuple[str, int]  # a source file and line


@dataclass(frozen=True)
class Pprof:
    data: bytes  # gzipped profile.proto
    approximate: str | None  # why the cumulative figures are split, or None when exact


def pprof(profile: Profile, *, module_label: str = "module.wasm") -> Pprof:
    """The profile as pprof's gzipped protobuf."""
    stacks, problem = call_stacks(profile)
    builder = _Builder(module_label)
    p = builder.profile
    p.sample_type.add(type=builder.string("fuel"), unit=builder.string("count"))
    p.period_type.type = builder.string("fuel")
    p.period_type.unit = builder.string("count")
    p.period = 1
    mapping = p.mapping.add(id=1, filename=builder.string(module_label))
    mapping.build_id = builder.string(profile.module_sha256)
    mapping.has_functions = True
    mapping.has_filenames = mapping.has_line_numbers = profile.line_table
    comments = [
        f"lattice-desktop profile: {profile.case_name} · module {profile.module_sha256[:12]} · "
        f"{profile.total:,} fuel (wasmtime {profile.wasmtime_version or '?'})"
    ]
    if problem is not None:
        comments.append(f"approximate call stacks: {problem}; split in proportion to the fuel of the calls")
    if not profile.complete:
        comments.append(
            f"the run did not return ({profile.outcome}): {profile.unattributed:,} fuel unattributed"
        )
    p.comment.extend(builder.string(c) for c in comments)

    by_index = profile.by_index()
    paths: dict[int, list[tuple[Path, float]]] = {}
    for stack, weight in stacks:
        if stack:
            paths.setdefault(stack[-1], []).append((tuple(stack), weight))
    for f in profile.functions:
        if not f.calls or not f.self_fuel:
            continue
        shares = _integer_split(f.self_fuel, paths.get(f.index) or [(_heaviest_path(profile, f.index), 1.0)])
        lines = [(s.file, s.line, s.fuel) for s in profile.lines_of(f.index) if s.fuel]
        rest = f.self_fuel - sum(fuel for _, _, fuel in lines)
        if rest > 0 or not lines:
            lines.append((builder.home_file(profile, f.index), 0, rest if lines else f.self_fuel))
        for (path, fuel), (file, line) in _pairs(
            shares, [((file, line), fuel) for file, line, fuel in lines]
        ):
            leaf = builder.location(by_index[f.index].name, file, line)
            callers = [
                builder.location(by_index[i].name, builder.home_file(profile, i), 0) for i in path[:-1]
            ]
            sample = p.sample.add()
            sample.location_id.extend([leaf, *reversed(callers)])
            sample.value.append(fuel)
    if profile.unattributed > 0:
        sample = p.sample.add()
        sample.location_id.append(builder.location(CUT_SHORT, "", 0))
        sample.value.append(profile.unattributed)
    return Pprof(gzip.compress(p.SerializeToString(), mtime=0), problem)


class _Builder:
    """The profile's string table, functions and locations, each made once."""

    def __init__(self, module_label: str) -> None:
        self.profile = message_classes()["Profile"]()
        self.strings: dict[str, int] = {}
        self.functions: dict[tuple[str, str], int] = {}
        self.locations: dict[tuple[int, int], int] = {}
        self.homes: dict[int, str] = {}
        self.string("")  # pprof's string table starts with the empty string

    def string(self, text: str) -> int:
        if text not in self.strings:
            self.strings[text] = len(self.strings)
            self.profile.string_table.append(text)
        return self.strings[text]

    def function(self, name: str, file: str) -> int:
        key = (name, file)
        if key not in self.functions:
            number = len(self.functions) + 1
            self.functions[key] = number
            self.profile.function.add(
                id=number, name=self.string(name), system_name=self.string(name), filename=self.string(file)
            )
        return self.functions[key]

    def location(self, name: str, file: str, line: int) -> int:
        key = (self.function(name, file), line)
        if key not in self.locations:
            number = len(self.locations) + 1
            self.locations[key] = number
            location = self.profile.location.add(id=number, mapping_id=1)
            location.line.add(function_id=key[0], line=line)
        return self.locations[key]

    def home_file(self, profile: Profile, index: int) -> str:
        """The file holding most of a function's fuel ("" without a line table)."""
        if index not in self.homes:
            per: dict[str, int] = {}
            for s in profile.lines_of(index):
                per[s.file] = per.get(s.file, 0) + s.fuel
            self.homes[index] = min(per, key=lambda name: (-per[name], name)) if per else ""
        return self.homes[index]


def _integer_split(total: int, weighted: Sequence[tuple[Path, float]]) -> list[tuple[Path, int]]:
    """`total` split in proportion to the weights, in whole units that add up to it
    (largest remainders first)."""
    weights = [max(w, 0.0) for _, w in weighted]
    whole = sum(weights)
    if whole <= 0:
        weights, whole = [1.0] * len(weighted), float(len(weighted))
    exact = [total * w / whole for w in weights]
    parts = [int(x) for x in exact]
    for i in sorted(range(len(exact)), key=lambda i: parts[i] - exact[i])[: total - sum(parts)]:
        parts[i] += 1
    return [(path, part) for (path, _), part in zip(weighted, parts, strict=True) if part]


def _pairs(
    rows: list[tuple[Path, int]], columns: list[tuple[Place, int]]
) -> list[tuple[tuple[Path, int], Place]]:
    """Cells of a table whose rows and columns add up to the given totals (both add up to
    the same whole), filled corner to corner: with one row (one call stack), every line
    keeps its fuel exactly."""
    cells: list[tuple[tuple[Path, int], Place]] = []
    i = j = 0
    left_row = rows[0][1] if rows else 0
    left_col = columns[0][1] if columns else 0
    while i < len(rows) and j < len(columns):
        take = min(left_row, left_col)
        if take:
            cells.append(((rows[i][0], take), columns[j][0]))
        left_row -= take
        left_col -= take
        if not left_row:
            i += 1
            left_row = rows[i][1] if i < len(rows) else 0
        if not left_col:
            j += 1
            left_col = columns[j][1] if j < len(columns) else 0
    return cells


def _heaviest_path(profile: Profile, index: int) -> Path:
    """A stack for a function no split path reached (too small a share): up through the
    caller with the most fuel each time, never through a function twice."""
    path = [index]
    while True:
        callers = [e for e in profile.callers(path[-1]) if e.caller != HOST and e.caller not in path]
        if not callers:
            return tuple(reversed(path))
        path.append(callers[0].caller)
