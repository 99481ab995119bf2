"""How large a module the profiler takes on for a case, checked before the work is spent.

Profiling costs time and memory linear in the module (benchmarks/profile_instrument.py), but
a linear cost of a large module is still large: the instrumented module is several times the
original and is compiled like any submission. So a module is refused, with the reason, in
two steps that cost almost nothing next to what they prevent:

1. from its binary's section headers, before it is printed: its size against the case's
   module size, its function count against what the case's compile time allows, and the
   memory that printing and reading it will take;
2. from the printed module, before the instrumented text is written: an upper bound on the
   instrumented module's lines (`instrumented_size`), as encoded bytes against the case's
   module size and as memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from lattice_desktop.manifest.case import Sandbox
from lattice_desktop.profile import fuel_rule
from lattice_desktop.profile.wasm_sections import Shape
from lattice_desktop.profile.wat_module import ModuleText
from lattice_desktop.profile.wat_tools import WasmToolsError

MEMORY = 1 << 30  # bytes the profiler's own process may spend on one module's text
FUNCTIONS_PER_COMPILE_SECOND = 500  # measured: 1,000/s compiling instrumented small functions
READ_MEMORY_PER_CODE_BYTE = 100  # printing and reading the module: 57-74 measured
MEMORY_PER_LINE = 300  # writing the instrumented text: 140-230 bytes measured (tracemalloc)
BYTES_PER_LINE = 5  # encoded size of an instrumented line: 3.0-4.2 measured

# Lines the instrumenter writes, at most: per function (header, locals, entry, exit, its
# counters' globals and reads), per operator by kind, per call site, per indirect candidate.
PER_FUNCTION = 86  # with a line table, the entry stretch's counter too
PER_SEGMENT_END = 19  # the operator and the next stretch's counters (with a budget check)
PER_CALL = 30  # before and after the call, the edge's update, its globals and reads
PER_CANDIDATE = 22  # an indirect call's check of one candidate, and that edge's globals
PER_BYTE_OPERATOR = 14  # with a line table, the operator's own counter
GROW = 21
# Operators after which a new straight-line stretch starts (the instrumenter's cut points).
ENDS_SEGMENT = frozenset(
    {"block", "loop", "if", "else", "end", "br", "br_if", "br_table", "return", "unreachable"}
)


class TooLarge(WasmToolsError):
    """The module is larger than the profiler takes on for this case; the message says why."""


@dataclass(frozen=True)
class Bounds:
    max_module_bytes: int
    max_functions: int
    memory: int = MEMORY

    @classmethod
    def of(cls, sandbox: Sandbox) -> Bounds:
        """The bounds for a case: its module size, and functions for its compile time."""
        functions = int(sandbox.compile_timeout * FUNCTIONS_PER_COMPILE_SECOND)
        return cls(sandbox.max_module_bytes, functions)

    def check_shape(self, shape: Shape) -> None:
        """Step 1: the binary's size, function count, and the memory of reading it."""
        if shape.size > self.max_module_bytes:
            raise TooLarge(f"the module is {shape.size:,} bytes; the case allows {self.max_module_bytes:,}")
        if shape.functions > self.max_functions:
            raise TooLarge(
                f"the module defines {shape.functions:,} functions; the profiler takes at most "
                f"{self.max_functions:,} on this case (its compile time allows that many instrumented)"
            )
        reading = READ_MEMORY_PER_CODE_BYTE * shape.code_bytes
        self._memory(reading, f"reading its {shape.code_bytes:,} bytes of code")

    def check_instrumented(self, lines: int) -> None:
        """Step 2: the instrumented module's size and the memory of writing it."""
        encoded = BYTES_PER_LINE * lines
        if encoded > self.max_module_bytes:
            raise TooLarge(
                f"instrumented, the module would be about {encoded:,} bytes ({lines:,} lines); "
                f"the case allows {self.max_module_bytes:,}"
            )
        self._memory(MEMORY_PER_LINE * lines, f"writing its {lines:,} instrumented lines")

    def _memory(self, needed: int, what: str) -> None:
        if needed > self.memory:
            raise TooLarge(
                f"{what} would take about {needed / 2**20:,.0f} MiB; the profiler allows itself "
                f"{self.memory / 2**20:,.0f} MiB"
            )


def instrumented_size(module: ModuleText) -> int:
    """An upper bound on the lines of the instrumented module, counted without writing it."""
    by_type = module.indirect_candidates()
    size = 0
    for f in module.functions:
        size += PER_FUNCTION + len(f.locals) + len(f.body)
        for raw in f.body:
            code = raw.split(maxsplit=1)
            op = code[0] if code else ""
            if op in ("call", "call_indirect"):
                size += PER_CALL
            if op == "call_indirect":
                type_ref = code[1].split(")")[0].removeprefix("(type ").strip() if len(code) > 1 else ""
                size += PER_CANDIDATE * len(by_type.get(module.signature(type_ref), []))
            elif op in ENDS_SEGMENT:
                size += PER_SEGMENT_END
            elif op in fuel_rule.PER_BYTE:
                size += PER_BYTE_OPERATOR
            elif op == fuel_rule.GROW:
                size += GROW
    return size
