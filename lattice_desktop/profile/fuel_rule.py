"""Wasmtime's fuel rule for the pinned release (wasmtime 50, default operator costs).

Read from wasmtime's Cranelift translation (`fuel_before_op` and its default operator cost
table) and checked against wasmtime itself by tests/profile/test_fuel_rule.py:

- every operator costs 1, except nop, drop, block, loop, unreachable, return, else and end,
  which cost 0;
- each function activation costs 1 more (charged on entry), and a start function's run
  costs 2 on top of that;
- memory.copy, memory.fill and memory.init cost 1 more per byte; memory.grow costs 1 more
  per page asked for, when it succeeds or asks for at most 128 pages (a larger refused grow
  is not charged);
- constant expressions (global initialisers, segment offsets) and data segments cost nothing.

The profiler charges exactly these costs to the function whose code runs them.
"""

from __future__ import annotations

FREE = frozenset({"nop", "drop", "block", "loop", "unreachable", "return", "else", "end"})
ENTRY_COST = 1
START_COST = 2
PER_BYTE = frozenset({"memory.copy", "memory.fill", "memory.init"})
GROW = "memory.grow"
GROW_CHARGED_WHEN_REFUSED = 128  # pages: a refused grow of more is not charged

# Operators the profiler does not instrument, with the reason given to the user.
REFUSED_PREFIXES: tuple[tuple[str, str], ...] = (
    ("return_call", "tail calls leave a function without passing its exit"),
    ("call_ref", "calls through function references are not attributed yet"),
    ("try", "exception handling unwinds past function exits"),
    ("throw", "exception handling unwinds past function exits"),
    ("rethrow", "exception handling unwinds past function exits"),
    ("delegate", "exception handling unwinds past function exits"),
    ("catch", "exception handling unwinds past function exits"),
    ("table.grow", "its fuel depends on an element count the profiler does not model"),
    ("table.fill", "its fuel depends on an element count the profiler does not model"),
    ("table.copy", "its fuel depends on an element count the profiler does not model"),
    ("table.init", "its fuel depends on an element count the profiler does not model"),
    ("table.set", "a changing table makes indirect callees unknowable"),
    ("array.", "GC arrays are charged per element, which the profiler does not model"),
    ("struct.", "GC objects are not supported by the profiler"),
)


def static_cost(mnemonic: str) -> int:
    """The fuel an operator costs whatever its operands (its per-byte part is extra)."""
    return 0 if mnemonic in FREE else 1


def refusal(mnemonic: str) -> str | None:
    """Why an operator cannot be instrumented, or None."""
    for prefix, reason in REFUSED_PREFIXES:
        if mnemonic.startswith(prefix):
            return reason
    return None
