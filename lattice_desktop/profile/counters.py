"""Reading the instrumented module's counters back: one exported function, not one export each.

The counters are mutable globals that are not exported: wasmtime's C API looks an export up
by position by walking the export list (`wasmtime_instance_export_nth`), so a module with an
export per counter cost time quadratic in its function count every time the sandbox listed
its exports. Instead the module exports one function, `<prefix>read(chunk)`, that returns
`WIDTH` counters at a time, found through a balanced tree of small functions (depth log2 of
the chunks, code linear in the counters).
"""

from __future__ import annotations

from collections.abc import Sequence, Sized
from typing import Protocol

import wasmtime

from lattice_desktop.sandbox.engine import seconds_to_epochs

WIDTH = 16  # counters per call of the read function
READ_FUEL = 1 << 40  # ample for the reads: each costs about 5 × log2(chunks) + WIDTH
READ_SECONDS = 60.0
_U64 = (1 << 64) - 1


class Layout(Protocol):
    """What the counters are (the instrumenter's `Layout`): their prefix, per function, per edge."""

    @property
    def prefix(self) -> str: ...

    @property
    def functions(self) -> Sequence[int]: ...

    @property
    def edges(self) -> Sized: ...

    @property
    def segments(self) -> Sized: ...

    @property
    def dynamic(self) -> Sized: ...


def counter_names(layout: Layout) -> list[str]:
    """Every counter's key (`T`, `C3`, `EI12`, `G40`, …), in the read function's order."""
    names = ["T"] + [f"{k}{i}" for i in layout.functions for k in "CSI"]
    names += [f"{k}{n}" for n in range(len(layout.edges)) for k in ("EC", "EI")]
    names += [f"G{n}" for n in range(len(layout.segments))]
    names += [f"Y{n}" for n in range(len(layout.dynamic))]
    return names


def read_function(layout: Layout) -> list[str]:
    """The exported read function's text: a tree of small functions (a large one would cost
    the compiler time and memory faster than linearly)."""
    p = layout.prefix
    names = counter_names(layout)
    chunks = max(1, -(-len(names) // WIDTH))
    lines: list[str] = []
    _node(lines, names, 0, chunks, p)
    lines.append(f'  (export "{p}read" (func ${p}read0_{chunks}))')
    return lines


def _node(lines: list[str], names: list[str], lo: int, hi: int, p: str) -> None:
    """The function for chunks lo..hi-1: a leaf pushes its chunk's counters, a node calls
    the half its argument falls in. Recursion depth is log2 of the chunks."""
    results = "(result" + " i64" * WIDTH + ")"
    lines.append(f"  (func ${p}read{lo}_{hi} (param i32) {results}")
    if hi - lo == 1:
        chunk = names[lo * WIDTH : (lo + 1) * WIDTH]
        lines.extend(f"    global.get ${p}{name}" for name in chunk)
        lines.extend("    i64.const 0" for _ in range(WIDTH - len(chunk)))
        lines.append("  )")
        return
    mid = (lo + hi) // 2
    lines += [
        "    local.get 0",
        f"    i32.const {mid}",
        "    i32.lt_u",
        f"    if {results}",
        "      local.get 0",
        f"      call ${p}read{lo}_{mid}",
        "    else",
        "      local.get 0",
        f"      call ${p}read{mid}_{hi}",
        "    end",
        "  )",
    ]
    _node(lines, names, lo, mid, p)
    _node(lines, names, mid, hi, p)


def read_counters(store: wasmtime.Store, instance: wasmtime.Instance, layout: Layout) -> dict[str, int]:
    """All counters as unsigned values. The run has ended (returned or trapped); the reads
    get fuel and a deadline of their own, so a run that ran out of either is still read."""
    read = instance.exports(store)[layout.prefix + "read"]
    assert isinstance(read, wasmtime.Func)
    store.set_fuel(READ_FUEL)
    store.set_epoch_deadline(seconds_to_epochs(READ_SECONDS))
    names = counter_names(layout)
    values: dict[str, int] = {}
    for chunk in range(-(-len(names) // WIDTH)):
        got = read(store, chunk)
        assert isinstance(got, list)
        for name, value in zip(names[chunk * WIDTH : (chunk + 1) * WIDTH], got, strict=False):
            assert isinstance(value, int)
            values[name] = value & _U64
    return values
