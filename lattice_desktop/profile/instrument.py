"""Instrument a module so that it counts, in its own globals, the fuel wasmtime charges it.

Per straight-line stretch of each function (a segment: from a label, a branch or the entry
to the next control operator) the instrumenter adds the stretch's static fuel (the rule in
`fuel_rule`) to a running total when the stretch starts; per-byte and per-page costs are
added from the operand at run time. The total lives in a local while a function runs (a
register, not memory) and in the i64 global `T` across calls: it is written to `T` before
each call and at each exit and read back after each call. So `T` is, at every function
exit, exactly the fuel the original module would have burned so far.

Per function it keeps calls, self fuel, inclusive fuel and an active-depth count; per call
edge (caller → callee) calls and inclusive fuel. Each activation saves `T` at entry in a
local (the wasm stack is the shadow stack), adds each call's fuel to a local `inner`, and at
exit adds `T - t0 - inner` to its self fuel. Inclusive fuel is added only when the depth
drops to 0, so recursion is counted once per outermost activation; an edge's inclusive
fuel likewise counts only calls into a callee that was not already active. After an
indirect call the callee is known from a global every function sets on exit.

Every `return` becomes a branch to a block wrapping the body, so every exit runs the exit
code. The instrumented module also traps (unreachable) once `T` passes the case's budget,
checked where wasmtime checks (function entries and loop headers).

Where the module carries a DWARF line table, each stretch also counts its runs in a global
of its own, and each per-byte or per-page operator the fuel it added: the stretch's fuel is
known per operator, so `run` turns the counts into fuel per source line that adds up to each
function's self fuel (`source_lines` finds each operator's line).

Every step is linear in the printed module: the module is printed without its name section,
so references are indices (names come from `wasm_sections`), and the counters are read back
through one exported function (`counters`). An indirect call is checked against each
function of its type that the table can hold, so its code grows with that count:
`bounds.instrumented_size` adds it up before anything is written, and a module past the
case's `Bounds` is refused there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lattice_desktop.profile import fuel_rule
from lattice_desktop.profile.bounds import ENDS_SEGMENT, Bounds, instrumented_size
from lattice_desktop.profile.counters import read_function
from lattice_desktop.profile.names import readable_names
from lattice_desktop.profile.source_lines import Place, carry_lines, has_line_table, places, split_offsets
from lattice_desktop.profile.wasm_sections import code_start, function_names, shape, without_custom
from lattice_desktop.profile.wat_module import Function, ModuleText, parse
from lattice_desktop.profile.wat_tools import WasmToolsError, parse_text, print_module

# The printed module has no names and its operator lines no strings: only comments to drop.
_COMMENT = re.compile(r"\(;.*?;\)|;;.*$")
_TYPE_USE = re.compile(r"\(type\s+(\d+)\)")
_BUDGET_TOKEN = "18446744073709551615"  # replaced by the case's budget in `Instrumented.wasm`


class NotInstrumentable(WasmToolsError):
    """The module uses something the profiler cannot count exactly; the message says what."""


@dataclass(frozen=True)
class Edge:
    caller: int
    callee: int


@dataclass(frozen=True)
class Site:
    """A counted stretch of one function: the fuel of one run of it, per operator offset
    (code-section-relative); or a per-byte operator whose counter holds the fuel it added."""

    function: int
    fuel: tuple[tuple[int, int], ...]


@dataclass
class Layout:
    """Where the counters are: export names, and what each function and edge is."""

    prefix: str
    functions: list[int]  # defined function indices, in order
    names: dict[int, str]  # readable name per function
    edges: list[Edge] = field(default_factory=list)
    start: int | None = None
    max_candidates: int = 0  # the most callees one call_indirect is checked against
    line_table: bool = False  # the module has DWARF lines: stretches are counted for them
    segments: list[Site] = field(default_factory=list)  # counter G<n>: runs of the stretch
    dynamic: list[Site] = field(default_factory=list)  # counter Y<n>: fuel added at run time
    entries: dict[int, int] = field(default_factory=dict)  # function → offset its entry is charged to
    places: dict[int, Place] = field(default_factory=dict)  # offset → source place

    def glob(self, kind: str, key: int) -> str:
        return f"{self.prefix}{kind}{key}"


@dataclass
class Instrumented:
    """The instrumented module's text (budget left open) and its counter layout."""

    text: str
    layout: Layout

    def wasm(self, budget: int) -> bytes:
        """Encode it with the in-module budget check set to `budget` (original fuel)."""
        if not 0 < budget < 1 << 63:
            raise ValueError(f"budget {budget} out of range")
        return parse_text(self.text.replace(_BUDGET_TOKEN, str(budget), 1))


def instrument(wasm: bytes, *, bounds: Bounds | None = None) -> Instrumented:
    """Instrument `wasm`; `NotInstrumentable` (a UserError) says why one cannot be, and
    `TooLarge` why it is more than `bounds` allow (checked before each costly step)."""
    if bounds is not None:
        bounds.check_shape(shape(wasm))
    lines = has_line_table(wasm)
    stripped = without_custom(wasm)
    text, offsets = print_module(stripped), None
    if lines:
        text, offsets = split_offsets(print_module(stripped, offsets=True))
        base = code_start(stripped)  # DWARF counts from the code section's payload
        offsets = [None if o is None else o - base for o in offsets]
    module = parse(text, offsets)
    if bounds is not None:
        bounds.check_instrumented(instrumented_size(module))
    prefix = "__lp_"
    while prefix in text:
        prefix = "_" + prefix
    names = readable_names(module, function_names(wasm))
    layout = Layout(prefix, [f.index for f in module.functions], names, start=module.start, line_table=lines)
    writer = _Writer(module, layout)
    bodies = [writer.function(f) for f in module.functions]
    if lines:
        layout.places = _places(wasm, layout)
    out = [
        text.splitlines()[0],
        *module.fields,
        *writer.globals(),
        *(line for b in bodies for line in b),
        *read_function(layout),
        ")",
    ]
    return Instrumented("\n".join(out) + "\n", layout)


def _places(wasm: bytes, layout: Layout) -> dict[int, Place]:
    """The source place of every operator with fuel, line-0 code carried (`carry_lines`)."""
    by_function: dict[int, set[int]] = {}
    for site in layout.segments + layout.dynamic:
        by_function.setdefault(site.function, set()).update(o for o, _ in site.fuel)
    for function, offset in layout.entries.items():
        by_function.setdefault(function, set()).add(offset)
    found = places(wasm, {o for offsets in by_function.values() for o in offsets})
    carry_lines(found, by_function.values())
    return found


class _Writer:
    def __init__(self, module: ModuleText, layout: Layout) -> None:
        self.module = module
        self.layout = layout
        self.p = layout.prefix
        self.edge_ids: dict[Edge, int] = {}
        self.by_type = module.indirect_candidates()

    def g(self, kind: str, key: int | str = "") -> str:
        return f"${self.p}{kind}{key}"

    def globals(self) -> list[str]:
        p = self.p
        start = fuel_rule.START_COST if self.module.start is not None else 0
        lines = [
            f"  (global ${p}T (mut i64) (i64.const {start}))",
            f"  (global ${p}X (mut i32) (i32.const -1))",
            f"  (global ${p}B i64 (i64.const {_BUDGET_TOKEN}))",
        ]
        for index in self.layout.functions:
            lines.append(f"  (global ${p}D{index} (mut i32) (i32.const 0))")
            lines.extend(f"  (global ${p}{kind}{index} (mut i64) (i64.const 0))" for kind in "CSI")
        for number in range(len(self.layout.edges)):
            lines.extend(f"  (global ${p}{kind}{number} (mut i64) (i64.const 0))" for kind in ("EC", "EI"))
        lines += [f"  (global ${p}G{n} (mut i64) (i64.const 0))" for n in range(len(self.layout.segments))]
        lines += [f"  (global ${p}Y{n} (mut i64) (i64.const 0))" for n in range(len(self.layout.dynamic))]
        return lines

    def edge(self, caller: int, callee: int) -> int:
        key = Edge(caller, callee)
        if key not in self.edge_ids:
            self.edge_ids[key] = len(self.layout.edges)
            self.layout.edges.append(key)
        return self.edge_ids[key]

    def function(self, f: Function) -> list[str]:
        p, ind = self.p, "    "
        out: list[str | _Segment] = [f.header]
        out.extend(f.locals)
        out.append(f"{ind}(local ${p}t0 i64) (local ${p}in i64) (local ${p}tc i64) (local ${p}d i64)")
        out.append(f"{ind}(local ${p}t i64) (local ${p}n i32) (local ${p}r i32)")
        out += [
            f"{ind}global.get ${p}T",
            f"{ind}local.tee ${p}t",
            f"{ind}local.set ${p}t0",
            *self.bump(f"C{f.index}", 1),
            f"{ind}global.get ${p}D{f.index}",
            f"{ind}i32.const 1",
            f"{ind}i32.add",
            f"{ind}global.set ${p}D{f.index}",
            f"{ind}block ${p}body {f.results}".rstrip(),
        ]
        segment = _Segment(fuel_rule.ENTRY_COST, check=True, function=f.index)
        entry_due = self.layout.line_table
        out.append(segment)
        for raw, offset in zip(f.body, f.offsets or [None] * len(f.body), strict=True):
            if raw.lstrip().startswith("(@"):  # an annotation (branch hints): no operator
                out.append(raw)
                continue
            code = _COMMENT.sub("", raw).strip()
            if not code:
                continue
            op = code.split()[0]
            reason = fuel_rule.refusal(op)
            if reason is not None:
                name = self.layout.names[f.index]
                raise NotInstrumentable(f"{name} uses {op}: {reason}")
            indent = raw[: len(raw) - len(raw.lstrip())]
            segment.cost += fuel_rule.static_cost(op)
            if self.layout.line_table and offset is not None:
                if entry_due:  # the activation's own unit: charged to the first operator's line
                    segment.charge(offset, fuel_rule.ENTRY_COST)
                    self.layout.entries[f.index] = offset
                    entry_due = False
                segment.charge(offset, fuel_rule.static_cost(op))
            if op == "return":
                out.append(f"{indent}br ${p}body")
            elif op == "call":
                callee = int(code.split()[1])
                out += self.before_call(indent)
                out.append(raw)
                out += self.after_call(indent, f.index, [callee], direct=True)
            elif op == "call_indirect":
                type_ref = _TYPE_USE.search(code)
                if type_ref is None:
                    raise NotInstrumentable(f"{self.layout.names[f.index]}: call_indirect without a type")
                callees = self.by_type.get(self.module.signature(type_ref.group(1)), [])
                self.layout.max_candidates = max(self.layout.max_candidates, len(callees))
                out += self.before_call(indent)
                out.append(raw)
                out += self.after_call(indent, f.index, callees, direct=False)
            elif op in fuel_rule.PER_BYTE:
                out += [f"{indent}local.tee ${p}n", *self.add_n(indent, f.index, offset), raw]
            elif op == fuel_rule.GROW:
                out += [f"{indent}local.tee ${p}n", raw, *self.grow_charge(indent, f.index, offset)]
            else:
                out.append(raw)
            if op in ENDS_SEGMENT:
                segment = _Segment(0, check=op == "loop", function=f.index)
                out.append(segment)
        if entry_due and f.offset is not None:  # an empty body: its entry at the header
            segment.charge(f.offset, fuel_rule.ENTRY_COST)
            self.layout.entries[f.index] = f.offset
        out += [f"{ind}end", *self.exit(f.index), "  )"]
        return [
            line for item in out for line in (item.render(self) if isinstance(item, _Segment) else [item])
        ]

    def bump(self, counter: str, amount: int, indent: str = "    ") -> list[str]:
        return self.bump_global(self.g(counter), amount, indent)

    def bump_global(self, g: str, amount: int, indent: str = "    ") -> list[str]:
        return [
            f"{indent}global.get {g}",
            f"{indent}i64.const {amount}",
            f"{indent}i64.add",
            f"{indent}global.set {g}",
        ]

    def add_t(self, amount: int, indent: str = "    ") -> list[str]:
        t = f"${self.p}t"
        return [
            f"{indent}local.get {t}",
            f"{indent}i64.const {amount}",
            f"{indent}i64.add",
            f"{indent}local.set {t}",
        ]

    def add_n(self, indent: str, function: int, offset: int | None) -> list[str]:
        """Add the operand `n` (bytes or pages) to the running total, and with lines, to
        this operator's own counter."""
        p = self.p
        lines = [
            f"{indent}local.get ${p}t",
            f"{indent}local.get ${p}n",
            f"{indent}i64.extend_i32_u",
            f"{indent}i64.add",
            f"{indent}local.set ${p}t",
        ]
        if self.layout.line_table and offset is not None:
            site = self.g("Y", len(self.layout.dynamic))
            self.layout.dynamic.append(Site(function, ((offset, 1),)))
            lines += [
                f"{indent}global.get {site}",
                f"{indent}local.get ${p}n",
                f"{indent}i64.extend_i32_u",
                f"{indent}i64.add",
                f"{indent}global.set {site}",
            ]
        return lines

    def counted_segment(self, segment: _Segment) -> str:
        """The counter of a stretch with fuel, registered with its fuel per operator."""
        self.layout.segments.append(Site(segment.function, tuple(sorted(segment.fuel.items()))))
        return self.g("G", len(self.layout.segments) - 1)

    def grow_charge(self, indent: str, function: int, offset: int | None) -> list[str]:
        p = self.p
        return [
            f"{indent}local.tee ${p}r",
            f"{indent}i32.const -1",
            f"{indent}i32.ne",
            f"{indent}local.get ${p}n",
            f"{indent}i32.const {fuel_rule.GROW_CHARGED_WHEN_REFUSED}",
            f"{indent}i32.le_u",
            f"{indent}i32.or",
            f"{indent}if",
            *self.add_n(indent + "  ", function, offset),
            f"{indent}end",
            f"{indent}local.get ${p}r",
        ]

    def before_call(self, indent: str) -> list[str]:
        """Hand the running total to the callee (through the global) and remember it."""
        p = self.p
        return [f"{indent}local.get ${p}t", f"{indent}local.tee ${p}tc", f"{indent}global.set ${p}T"]

    def after_call(self, indent: str, caller: int, callees: list[int], *, direct: bool) -> list[str]:
        """Charge the call to this activation's `inner` and to its edge; after an indirect
        call, the edge is the one whose callee last exited."""
        p = self.p
        lines = [
            f"{indent}global.get ${p}T",
            f"{indent}local.tee ${p}t",
            f"{indent}local.get ${p}tc",
            f"{indent}i64.sub",
            f"{indent}local.tee ${p}d",
            f"{indent}local.get ${p}in",
            f"{indent}i64.add",
            f"{indent}local.set ${p}in",
        ]
        for callee in callees:
            edge = self.edge(caller, callee)
            update = [
                *self.bump(f"EC{edge}", 1, indent + "  "),
                f"{indent}  global.get ${p}D{callee}",
                f"{indent}  i32.eqz",
                f"{indent}  if",
                f"{indent}    global.get ${p}EI{edge}",
                f"{indent}    local.get ${p}d",
                f"{indent}    i64.add",
                f"{indent}    global.set ${p}EI{edge}",
                f"{indent}  end",
            ]
            if direct:
                lines += update
            else:
                lines += [
                    f"{indent}global.get ${p}X",
                    f"{indent}i32.const {callee}",
                    f"{indent}i32.eq",
                    f"{indent}if",
                ]
                lines += [*update, f"{indent}end"]
        return lines

    def exit(self, index: int) -> list[str]:
        p, ind = self.p, "    "
        return [
            f"{ind}local.get ${p}t",
            f"{ind}global.set ${p}T",
            f"{ind}global.get ${p}D{index}",
            f"{ind}i32.const 1",
            f"{ind}i32.sub",
            f"{ind}global.set ${p}D{index}",
            f"{ind}global.get ${p}D{index}",
            f"{ind}i32.eqz",
            f"{ind}if",
            f"{ind}  global.get ${p}I{index}",
            f"{ind}  local.get ${p}t",
            f"{ind}  local.get ${p}t0",
            f"{ind}  i64.sub",
            f"{ind}  i64.add",
            f"{ind}  global.set ${p}I{index}",
            f"{ind}end",
            f"{ind}global.get ${p}S{index}",
            f"{ind}local.get ${p}t",
            f"{ind}local.get ${p}t0",
            f"{ind}i64.sub",
            f"{ind}local.get ${p}in",
            f"{ind}i64.sub",
            f"{ind}i64.add",
            f"{ind}global.set ${p}S{index}",
            f"{ind}i32.const {index}",
            f"{ind}global.set ${p}X",
        ]


@dataclass
class _Segment:
    """A straight-line stretch: its fuel is added to the running total where it starts."""

    cost: int
    check: bool = False
    function: int = -1
    fuel: dict[int, int] = field(default_factory=dict)  # with lines: fuel per operator offset

    def charge(self, offset: int, fuel: int) -> None:
        if fuel:
            self.fuel[offset] = self.fuel.get(offset, 0) + fuel

    def render(self, writer: _Writer) -> list[str]:
        if self.cost == 0 and not self.check:
            return []
        p = writer.p
        lines = [] if self.cost == 0 else writer.add_t(self.cost)
        if self.fuel:
            assert sum(self.fuel.values()) == self.cost, "a stretch's fuel is charged to its operators"
            lines += writer.bump_global(writer.counted_segment(self), 1)
        if self.check:
            lines += [
                f"    local.get ${p}t",
                f"    global.get ${p}B",
                "    i64.gt_u",
                "    if",
                f"      local.get ${p}t",
                f"      global.set ${p}T",
                "      unreachable",
                "    end",
            ]
        return lines
