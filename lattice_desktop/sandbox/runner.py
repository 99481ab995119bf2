"""Run one case of a compiled module in a fresh, limited Store and report what happened.

The runner decides *how* a call ended (returned output, trapped, ran out of fuel, hit a
limit); whether returned output is right is the grader's business.
"""

from __future__ import annotations

import struct
import time
from dataclasses import dataclass, field

import wasmtime

from lattice_desktop.cancel import CancelToken
from lattice_desktop.errors import Cancelled
from lattice_desktop.manifest.case import CaseEntry, Contract, Sandbox
from lattice_desktop.outcomes import Outcome
from lattice_desktop.sandbox.engine import seconds_to_epochs, shared_engine
from lattice_desktop.sandbox.native_stack import on_deep_stack

TABLE_ELEMENT_LIMIT = 1_000_000
SPURIOUS_INTERRUPT_RETRIES = 5
_PAGE = 65536


@dataclass(frozen=True)
class Execution:
    """How one call ended. `outcome` is None when the entry returned `output`."""

    outcome: Outcome | None
    output: bytes | None = None
    fuel: int | None = None
    detail: str = ""
    trap_code: str | None = None
    frames: tuple[str, ...] = field(default_factory=tuple)
    wall_time: float = 0.0


def check_linkage(module: wasmtime.Module, contract: Contract) -> tuple[Outcome, str] | None:
    """Reject a module whose imports we do not offer or whose exports break the contract."""
    imports = module.imports
    if imports:
        names = ", ".join(f"{i.module}.{i.name} ({_kind(i.type)})" for i in imports[:5])
        more = f" and {len(imports) - 5} more" if len(imports) > 5 else ""
        return Outcome.LINK_ERROR, f"imports {names}{more}; the grader offers no imports"
    exports = {e.name: e.type for e in module.exports}
    wanted = {contract.entry: wasmtime.FuncType}
    if contract.abi == "bytes":
        wanted = {contract.memory: wasmtime.MemoryType, contract.alloc: wasmtime.FuncType, **wanted}
    for name, kind in wanted.items():
        if name not in exports:
            return Outcome.MISSING_EXPORT, f"the module does not export '{name}'"
        if not isinstance(exports[name], kind):
            return (
                Outcome.MISSING_EXPORT,
                f"export '{name}' is a {_kind(exports[name])}, the contract needs a {_kind_name(kind)}",
            )
    expected = _signatures(contract)
    for name, (params, results) in expected.items():
        ftype = exports[name]
        got = ([str(p) for p in ftype.params], [str(r) for r in ftype.results])
        if got != (params, results):
            return (
                Outcome.LINK_ERROR,
                f"'{name}' has type ({', '.join(got[0])}) -> ({', '.join(got[1])}); "
                f"the contract needs ({', '.join(params)}) -> ({', '.join(results)})",
            )
    return None


def _signatures(contract: Contract) -> dict[str, tuple[list[str], list[str]]]:
    if contract.abi == "bytes":
        return {
            contract.alloc: (["i32"], ["i32"]),
            contract.entry: (["i32", "i32"], ["i64"]),
        }
    return {contract.entry: (list(contract.params), list(contract.results))}


def _kind(t: object) -> str:
    return _kind_name(type(t))


def _kind_name(kind: type) -> str:
    return {
        wasmtime.FuncType: "function",
        wasmtime.MemoryType: "memory",
        wasmtime.TableType: "table",
        wasmtime.GlobalType: "global",
    }.get(kind, kind.__name__)


def execute(
    module: wasmtime.Module,
    contract: Contract,
    sandbox: Sandbox,
    case: CaseEntry,
    *,
    budget: int,
    cancel: CancelToken | None = None,
    input_bytes: bytes | None = None,
) -> Execution:
    """Run `case` once in a fresh store with `budget` fuel; retry only spurious interrupts.

    Safe on any thread: a stack too small for `max_wasm_stack` moves the call to one that fits.
    """
    cancel = cancel or CancelToken()
    data = case.input_bytes() if input_bytes is None and contract.abi == "bytes" else input_bytes
    for _ in range(SPURIOUS_INTERRUPT_RETRIES):
        cancel.raise_if_cancelled()
        started = time.perf_counter()
        result = on_deep_stack(
            lambda: _execute_once(module, contract, sandbox, case, budget, data or b"")
        )
        elapsed = time.perf_counter() - started
        if result.outcome is not Outcome.TIMEOUT:
            return _with_time(result, elapsed)
        if cancel.cancelled:
            raise Cancelled()
        if elapsed >= sandbox.wall_clock * 0.9:
            return _with_time(result, elapsed)
        # Another job's Cancel moved the shared epoch: this case did nothing wrong, rerun it.
    return _with_time(result, elapsed)


def _with_time(result: Execution, elapsed: float) -> Execution:
    return Execution(
        result.outcome, result.output, result.fuel, result.detail, result.trap_code,
        result.frames, elapsed,
    )


def _execute_once(
    module: wasmtime.Module,
    contract: Contract,
    sandbox: Sandbox,
    case: CaseEntry,
    budget: int,
    data: bytes,
) -> Execution:
    store = wasmtime.Store(shared_engine())
    store.set_limits(
        memory_size=sandbox.memory_limit,
        table_elements=TABLE_ELEMENT_LIMIT,
        instances=1,
        tables=4,
        memories=1,
    )
    store.set_fuel(budget)
    store.set_epoch_deadline(seconds_to_epochs(sandbox.wall_clock))
    memory: wasmtime.Memory | None = None

    def used() -> int:
        return budget - store.get_fuel()

    try:
        try:
            instance = wasmtime.Instance(store, module, [])
        except wasmtime.Trap as trap:
            if trap.trap_code in (wasmtime.TrapCode.OUT_OF_FUEL, wasmtime.TrapCode.INTERRUPT):
                raise  # the start function ran too long: judged like any other call
            code = trap.trap_code.name.lower() if trap.trap_code is not None else "trap"
            frames = tuple(_frame(f) for f in (trap.frames or [])[:12])
            return Execution(
                Outcome.INSTANTIATION_FAILURE, fuel=used(), trap_code=code, frames=frames,
                detail=f"instantiation failed: {code}" + (f" in {frames[0]}" if frames else ""),
            )
        except wasmtime.WasmtimeError as exc:
            message = _one_line(exc)
            outcome = Outcome.MEMORY_LIMIT if _mentions_limit(message) else Outcome.INSTANTIATION_FAILURE
            return Execution(outcome, fuel=used(), detail=f"instantiation failed: {message}")
        exports = instance.exports(store)
        entry = exports[contract.entry]
        if contract.abi == "scalar":
            value = entry(store, *case.scalar_args)
            values = value if isinstance(value, list) else [value]
            output = struct.pack(f"<{len(values)}q", *(_signed64(v) for v in values))
            return Execution(None, output=output, fuel=used())
        memory = exports[contract.memory]
        ptr = exports[contract.alloc](store, len(data)) & 0xFFFFFFFF
        size = memory.data_len(store)
        if ptr + len(data) > size:
            if size + _PAGE > sandbox.memory_limit:
                return Execution(
                    Outcome.MEMORY_LIMIT, fuel=used(),
                    detail=f"alloc({len(data):,}) found no room under the "
                    f"{sandbox.memory_limit // 2**20} MiB memory limit",
                )
            return Execution(
                Outcome.WRONG_ANSWER, fuel=used(),
                detail=f"alloc({len(data):,}) returned 0x{ptr:x}, outside memory ({size:,} bytes)",
            )
        if data:
            memory.write(store, data, ptr)
        packed = entry(store, ptr, len(data)) & 0xFFFFFFFFFFFFFFFF
        fuel = used()
        out_ptr, out_len = packed >> 32, packed & 0xFFFFFFFF
        size = memory.data_len(store)
        if out_len > sandbox.max_output_bytes:
            return Execution(
                Outcome.WRONG_ANSWER, fuel=fuel,
                detail=f"output length {out_len:,} bytes is over the {sandbox.max_output_bytes:,} limit",
            )
        if out_ptr + out_len > size:
            return Execution(
                Outcome.WRONG_ANSWER, fuel=fuel,
                detail=f"output 0x{out_ptr:x}+{out_len:,} lies outside memory ({size:,} bytes)",
            )
        output = bytes(memory.read(store, out_ptr, out_ptr + out_len)) if out_len else b""
        return Execution(None, output=output, fuel=fuel)
    except wasmtime.Trap as trap:
        return _classify_trap(trap, store, memory, sandbox, budget)
    except wasmtime.WasmtimeError as exc:
        message = _one_line(exc)
        if "out of memory" in message.lower():  # the GC heap, bounded like linear memory
            return Execution(Outcome.MEMORY_LIMIT, fuel=used(), detail=message)
        return Execution(Outcome.TRAP, fuel=used(), detail=message)


def _classify_trap(
    trap: wasmtime.Trap,
    store: wasmtime.Store,
    memory: wasmtime.Memory | None,
    sandbox: Sandbox,
    budget: int,
) -> Execution:
    code = trap.trap_code
    frames = tuple(_frame(f) for f in (trap.frames or [])[:12])
    where = f" in {frames[0]}" if frames else ""
    fuel = budget - store.get_fuel()
    if code == wasmtime.TrapCode.OUT_OF_FUEL:
        return Execution(
            Outcome.OUT_OF_FUEL, fuel=budget, trap_code="out_of_fuel", frames=frames,
            detail=f"ran out of fuel after {budget:,} (ceiling × runway){where}",
        )
    if code == wasmtime.TrapCode.INTERRUPT:
        return Execution(
            Outcome.TIMEOUT, fuel=fuel, trap_code="interrupt", frames=frames,
            detail=f"stopped by the {sandbox.wall_clock:g} s wall-clock backstop{where}",
        )
    name = code.name.lower() if code is not None else _uncoded_trap_name(trap)
    if memory is not None and _near_limit(memory.data_len(store), sandbox.memory_limit):
        used_mib = memory.data_len(store) / 2**20
        return Execution(
            Outcome.MEMORY_LIMIT, fuel=fuel, trap_code=name, frames=frames,
            detail=f"trapped ({name}) with {used_mib:.1f} MiB in use, at the "
            f"{sandbox.memory_limit // 2**20} MiB memory limit (memory.grow was refused){where}",
        )
    memory_note = ""
    if memory is not None and memory.data_len(store) * 2 > sandbox.memory_limit:
        memory_note = (
            f" ({memory.data_len(store) / 2**20:.1f} MiB of the {sandbox.memory_limit // 2**20} MiB "
            "memory limit in use)"
        )
    return Execution(
        Outcome.TRAP, fuel=fuel, trap_code=name, frames=frames,
        detail=f"trap: {name}{where}{memory_note}",
    )


def _uncoded_trap_name(trap: wasmtime.Trap) -> str:
    """A name for traps wasmtime-py gives no code (an uncaught wasm exception, for one)."""
    if "exception" in str(trap).lower():
        return "uncaught_exception"
    return "trap"


def _near_limit(size: int, limit: int) -> bool:
    """Memory so close to the limit that a refused memory.grow likely caused the trap."""
    return size + max(_PAGE, limit // 8) > limit


def _frame(frame: wasmtime.Frame) -> str:
    name = frame.func_name or f"func[{frame.func_index}]"
    return f"{name}+0x{frame.func_offset:x}"


def _one_line(exc: Exception) -> str:
    """The error in a line: its cause when wasmtime gives one after a wasm backtrace."""
    text = str(exc).strip()
    if "Caused by:" in text:
        text = text.split("Caused by:", 1)[1]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return "; ".join(lines[:3])[:400] if lines else type(exc).__name__


def _mentions_limit(message: str) -> bool:
    lowered = message.lower()
    return "limit" in lowered and ("memory" in lowered or "resource" in lowered)


def _signed64(value: int) -> int:
    value &= 0xFFFFFFFFFFFFFFFF
    return value - (1 << 64) if value >= 1 << 63 else value
