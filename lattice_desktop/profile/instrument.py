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

from dataclasses import dataclass, field

from lattice_desktop.profile.bounds import Bounds, instrumented_size
from lattice_desktop.profile.counters import read_function
from lattice_desktop.profile.function_writer import BUDGET_TOKEN, FunctionWriter
from lattice_desktop.profile.layout import Layout
from lattice_desktop.profile.names import readable_names
from lattice_desktop.profile.source_lines import Place, carry_lines, has_line_table, places, split_offsets
from lattice_desktop.profile.wasm_sections import code_start, function_names, shape, without_custom
from lattice_desktop.profile.wat_module import parse
from lattice_desktop.profile.wat_tools import parse_text, print_module


@dataclass
class Instrumented:
    """The instrumented module's text (budget left open) and its counter layout."""

    text: str
    layout: Layout
    _last: tuple[int, bytes] | None = field(default=None, repr=False, compare=False)

    def wasm(self, budget: int) -> bytes:
        """Encode it with the in-module budget check set to `budget` (original fuel). The
        last encoding is kept: a case's smoke tests share one budget, so profiling them one
        after another (compare does) encodes the module once, not once per test."""
        if not 0 < budget < 1 << 63:
            raise ValueError(f"budget {budget} out of range")
        last = self._last
        if last is not None and last[0] == budget:
            return last[1]
        encoded = parse_text(self.text.replace(BUDGET_TOKEN, str(budget), 1))
        self._last = (budget, encoded)
        return encoded


def instrument(wasm: bytes, *, bounds: Bounds | None = None) -> Instrumented:
    """Instrument `wasm`; `NotInstrumentable` (`function_writer`) (a UserError) says why one cannot be, and
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
    writer = FunctionWriter(module, layout)
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
