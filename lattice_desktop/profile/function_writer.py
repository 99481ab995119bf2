"""One function's instrumented text: its stretches' fuel added to the running total, the
entry and exit code that keeps calls, self and inclusive fuel, and the budget check
(`instrument` describes the scheme)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lattice_desktop.profile import fuel_rule
from lattice_desktop.profile.bounds import ENDS_SEGMENT
from lattice_desktop.profile.layout import Edge, Layout, Site
from lattice_desktop.profile.wat_module import Function, ModuleText
from lattice_desktop.profile.wat_tools import WasmToolsError

# The printed module has no names and its operator lines no strings: only comments to drop.
_COMMENT = re.compile(r"\(;.*?;\)|;;.*$")
_TYPE_USE = re.compile(r"\(type\s+(\d+)\)")
BUDGET_TOKEN = "18446744073709551615"  # replaced by the case's budget in `Instrumented.wasm`


class NotInstrumentable(WasmToolsError):
    """The module uses something the profiler cannot count exactly; the message says what."""


class FunctionWriter:
    """Writes each function's counting code into `layout` as it goes; `globals` then declares
    every counter the functions use."""

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
            f"  (global ${p}B i64 (i64.const {BUDGET_TOKEN}))",
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
        out: list[str | Segment] = [f.header]
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
        segment = Segment(fuel_rule.ENTRY_COST, check=True, function=f.index)
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
                segment = Segment(0, check=op == "loop", function=f.index)
                out.append(segment)
        if entry_due and f.offset is not None:  # an empty body: its entry at the header
            segment.charge(f.offset, fuel_rule.ENTRY_COST)
            self.layout.entries[f.index] = f.offset
        out += [f"{ind}end", *self.exit(f.index), "  )"]
        return [line for item in out for line in (item.render(self) if isinstance(item, Segment) else [item])]

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

    def counted_segment(self, segment: Segment) -> str:
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
class Segment:
    """A straight-line stretch: its fuel is added to the running total where it starts."""

    cost: int
    check: bool = False
    function: int = -1
    fuel: dict[int, int] = field(default_factory=dict)  # with lines: fuel per operator offset

    def charge(self, offset: int, fuel: int) -> None:
        if fuel:
            self.fuel[offset] = self.fuel.get(offset, 0) + fuel

    def render(self, writer: FunctionWriter) -> list[str]:
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
