"""The one way into untrusted wasm: a fresh Store under a case's limits, and the packed
bytes call (input copied in through `alloc`, output returned as ptr << 32 | len).

The grader, the Factory tab's submission records and Diff, and `scenario expect/check
--engine` all call through here (via `runner.call_bytes`), so every limit — fuel, memory,
table elements, the epoch backstop, the import policy, the output size — holds for all.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import wasmtime

from lattice_desktop.manifest.case import Sandbox
from lattice_desktop.outcomes import Outcome
from lattice_desktop.sandbox.engine import exported, seconds_to_epochs, shared_engine, unmetered_engine

TABLE_ELEMENT_LIMIT = 1_000_000
_U64 = 0xFFFF_FFFF_FFFF_FFFF
_CHUNK = 1 << 20  # bytes hashed at a time from a long output


@dataclass(frozen=True)
class Limits:
    """Everything one call into untrusted wasm may use."""

    fuel: int
    memory_bytes: int
    wall_clock: float
    max_output_bytes: int
    table_elements: int = TABLE_ELEMENT_LIMIT
    ceiling: int | None = None  # the case's fuel limit, when `fuel` stretches it by a runway

    @classmethod
    def of(cls, sandbox: Sandbox, *, fuel: int) -> Limits:
        """A case's limits for one call with `fuel` to burn."""
        return cls(
            fuel=fuel,
            memory_bytes=sandbox.memory_limit,
            wall_clock=sandbox.wall_clock,
            max_output_bytes=sandbox.max_output_bytes,
            ceiling=sandbox.fuel_limit,
        )


@dataclass(frozen=True)
class BytesExports:
    """The exports a bytes call uses: linear memory, the allocator and the entry."""

    entry: str
    memory: str = "memory"
    alloc: str = "alloc"


@dataclass(frozen=True)
class PackedOutput:
    """What a packed call returned: its first `keep` bytes (all of them when not capped),
    its full size and the SHA-256 of all of it (read from wasm memory in chunks)."""

    data: bytes
    size: int
    digest: str
    memory_in_use: int | None = None  # linear memory's size when the call returned

    @classmethod
    def of(cls, data: bytes, memory_in_use: int | None = None) -> PackedOutput:
        return cls(data, len(data), hashlib.sha256(data).hexdigest(), memory_in_use)


class Refused(Exception):
    """The module broke the calling convention (no room for the input, output out of bounds)."""

    def __init__(self, outcome: Outcome, detail: str) -> None:
        super().__init__(detail)
        self.outcome = outcome
        self.detail = detail


def limited_store(limits: Limits, *, metered: bool = True) -> wasmtime.Store:
    """A fresh Store with fuel, memory, table and instance limits and a wall-clock deadline.

    `metered=False` is for the bundled reference's playback only (`unmetered_engine`).
    """
    store = wasmtime.Store(shared_engine() if metered else unmetered_engine())
    store.set_limits(
        memory_size=limits.memory_bytes,
        table_elements=limits.table_elements,
        instances=1,
        tables=4,
        memories=1,
    )
    if metered:
        store.set_fuel(limits.fuel)
    store.set_epoch_deadline(seconds_to_epochs(limits.wall_clock))
    return store


def rearm(store: wasmtime.Store, limits: Limits) -> None:
    """Give a long-lived store a fresh wall-clock deadline before its next call."""
    store.set_epoch_deadline(seconds_to_epochs(limits.wall_clock))


def import_problem(module: wasmtime.Module) -> str | None:
    """The import policy: the grader offers no imports, so a module that needs any is refused."""
    imports = module.imports
    if not imports:
        return None
    names = ", ".join(f"{i.module}.{i.name} ({kind_name(type(i.type))})" for i in imports[:5])
    more = f" and {len(imports) - 5} more" if len(imports) > 5 else ""
    return f"imports {names}{more}; the grader offers no imports"


def kind_name(kind: type) -> str:
    return {
        wasmtime.FuncType: "function",
        wasmtime.MemoryType: "memory",
        wasmtime.TableType: "table",
        wasmtime.GlobalType: "global",
    }.get(kind, kind.__name__)


def export_problem(module: wasmtime.Module, names: BytesExports, params: int) -> str | None:
    """Why `module` cannot take a bytes call of `names` with `params` parameters, or None."""
    exports = {e.name: e.type for e in module.exports}
    wanted: dict[str, tuple[type, tuple[list[str], list[str]] | None]] = {
        names.memory: (wasmtime.MemoryType, None),
        names.alloc: (wasmtime.FuncType, (["i32"], ["i32"])),
        names.entry: (wasmtime.FuncType, (["i32"] * 2 + ["i64"] * (params - 2), ["i64"])),
    }
    for name, (kind, signature) in wanted.items():
        if name not in exports:
            return f"the module does not export '{name}'"
        if not isinstance(exports[name], kind):
            return f"export '{name}' is a {kind_name(type(exports[name]))}, a {kind_name(kind)} is needed"
        if signature is not None:
            ftype = exports[name]
            assert isinstance(ftype, wasmtime.FuncType)  # checked above
            got = ([str(p) for p in ftype.params], [str(r) for r in ftype.results])
            if got != signature:
                return (
                    f"'{name}' has type ({', '.join(got[0])}) -> ({', '.join(got[1])}); "
                    f"the call needs ({', '.join(signature[0])}) -> ({', '.join(signature[1])})"
                )
    return None


def call_packed(
    store: wasmtime.Store,
    instance: wasmtime.Instance,
    names: BytesExports,
    data: bytes,
    extra: tuple[int, ...],
    limits: Limits,
    *,
    keep: int | None = None,
) -> PackedOutput:
    """Copy `data` in through `alloc`, call the entry, and read back the packed output
    (its first `keep` bytes when given: a caller that needs no more never copies more).

    Traps and wasmtime errors propagate to the caller, which classifies them; a broken
    calling convention raises `Refused`.
    """
    exports = instance.exports(store)
    memory = exported(exports, names.memory, wasmtime.Memory)  # export_problem checked the kinds
    ptr = exported(exports, names.alloc, wasmtime.Func)(store, len(data)) & 0xFFFF_FFFF
    size = memory.data_len(store)
    if ptr + len(data) > size:  # whether a refused memory.grow is behind it, a re-run shows
        raise Refused(
            Outcome.CONTRACT_VIOLATION,
            f"alloc({len(data):,}) returned 0x{ptr:x}, outside memory ({size:,} bytes)",
        )
    if data:
        memory.write(store, data, ptr)
    packed = exported(exports, names.entry, wasmtime.Func)(store, ptr, len(data), *extra)
    return read_packed(store, memory, packed, limits, keep=keep)


def packed_span(
    store: wasmtime.Store, memory: wasmtime.Memory, packed: int, limits: Limits
) -> tuple[int, int, int]:
    """(ptr, len, memory size) of a (ptr << 32 | len) result, refused when the output is too
    long or lies outside memory: the one place the packed convention is unpacked."""
    packed &= _U64
    out_ptr, out_len = packed >> 32, packed & 0xFFFF_FFFF
    size = memory.data_len(store)
    if out_len > limits.max_output_bytes:
        raise Refused(
            Outcome.WRONG_ANSWER,
            f"output length {out_len:,} bytes is over the {limits.max_output_bytes:,} limit",
        )
    if out_ptr + out_len > size:
        raise Refused(
            Outcome.CONTRACT_VIOLATION,
            f"output 0x{out_ptr:x}+{out_len:,} lies outside memory ({size:,} bytes)",
        )
    return out_ptr, out_len, size


def read_packed(
    store: wasmtime.Store, memory: wasmtime.Memory, packed: int, limits: Limits, *, keep: int | None = None
) -> PackedOutput:
    """The output a (ptr << 32 | len) result points at, refused when too long or out of memory."""
    out_ptr, out_len, size = packed_span(store, memory, packed, limits)
    if keep is None or out_len <= keep:
        return PackedOutput.of(
            bytes(memory.read(store, out_ptr, out_ptr + out_len)) if out_len else b"", size
        )
    digest = hashlib.sha256()
    for start in range(out_ptr, out_ptr + out_len, _CHUNK):
        digest.update(memory.read(store, start, min(start + _CHUNK, out_ptr + out_len)))
    return PackedOutput(bytes(memory.read(store, out_ptr, out_ptr + keep)), out_len, digest.hexdigest(), size)
