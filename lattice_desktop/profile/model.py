"""A fuel profile as plain values: per function, per call edge and (with DWARF) per source
line, and its JSON form."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace

HOST = -1  # the caller of exported functions (and of the start function): the host
FORMAT = 2  # 2: source lines


@dataclass(frozen=True)
class FunctionStats:
    """One function: its calls, the fuel its own operators burned (`self_fuel`), and the
    fuel burned while it was on the stack (`inclusive`, once per outermost activation)."""

    index: int
    name: str
    calls: int
    self_fuel: int
    inclusive: int


@dataclass(frozen=True)
class EdgeStats:
    """Calls from `caller` (HOST for the host) to `callee`, and the fuel inside the calls
    that entered the callee while it was not already active."""

    caller: int
    callee: int
    calls: int
    inclusive: int


@dataclass(frozen=True)
class LineStats:
    """The fuel one function burned on one source line (line 0: code the line table gives
    no line). A function's lines add up to its self fuel when the run returned."""

    function: int
    file: str
    line: int
    fuel: int


@dataclass(frozen=True)
class Profile:
    """Where one case's fuel went. `total` is the original module's fuel, the figure the
    grader records; `instrumented_fuel` what the instrumented module burned in wasmtime."""

    module_sha256: str
    case_name: str
    case_hash: str
    total: int
    functions: tuple[FunctionStats, ...]
    edges: tuple[EdgeStats, ...]
    budget: int
    instrumented_fuel: int | None
    outcome: str  # "returned", or how the run ended
    detail: str = ""
    wall_time: float = 0.0
    wasmtime_version: str = ""
    graded_fuel: int | None = None  # the grader's figure for this case, when known
    line_table: bool = False  # the module carries DWARF lines: `lines` holds fuel per line
    lines: tuple[LineStats, ...] = ()

    @property
    def attributed(self) -> int:
        return sum(f.self_fuel for f in self.functions)

    @property
    def unattributed(self) -> int:
        """Fuel of activations a trap cut short (0 when the run returned)."""
        return self.total - self.attributed

    @property
    def complete(self) -> bool:
        return self.outcome == "returned"

    def by_index(self) -> dict[int, FunctionStats]:
        return {f.index: f for f in self.functions}

    def name_of(self, index: int) -> str:
        if index == HOST:
            return "(host)"
        found = self.by_index().get(index)
        return found.name if found else f"func[{index}]"

    def callers(self, index: int) -> list[EdgeStats]:
        return sorted((e for e in self.edges if e.callee == index), key=lambda e: -e.inclusive)

    def callees(self, index: int) -> list[EdgeStats]:
        return sorted((e for e in self.edges if e.caller == index), key=lambda e: -e.inclusive)

    def percent(self, fuel: int) -> float:
        return 100.0 * fuel / self.total if self.total else 0.0

    def ranked(self) -> list[FunctionStats]:
        """Functions that ran, most self fuel first."""
        return sorted((f for f in self.functions if f.calls), key=lambda f: (-f.self_fuel, f.index))

    def lines_of(self, index: int) -> list[LineStats]:
        """One function's lines, most fuel first."""
        return sorted((s for s in self.lines if s.function == index), key=lambda s: (-s.fuel, s.file, s.line))

    def hottest_lines(self) -> list[LineStats]:
        """Every function's lines with fuel, most fuel first."""
        return sorted((s for s in self.lines if s.fuel), key=lambda s: (-s.fuel, s.file, s.line, s.function))

    def with_graded(self, fuel: int | None) -> Profile:
        return replace(self, graded_fuel=fuel)

    def to_json(self) -> str:
        """The stored form; `stored_form.profile_from_json` reads it back, checked."""
        data = asdict(self)
        data["format"] = FORMAT
        return json.dumps(data, sort_keys=True)
