"""Run one case of a compiled module in a fresh, limited Store and report what happened.

The runner decides *how* a call ended (returned output, trapped, ran out of fuel, hit a
limit); whether returned output is right is the grader's business.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import wasmtime

from lattice_desktop.errors import Cancelled
from lattice_desktop.manifest.case import CaseEntry, Contract, Sandbox
from lattice_desktop.outcomes import Outcome
from lattice_desktop.sandbox.engine import exported
from lattice_desktop.sandbox.guest import (
    BytesExports,
    Limits,
    PackedOutput,
    Refused,
    call_packed,
    export_problem,
    import_problem,
    kind_name,
    limited_store,
)
from lattice_desktop.sandbox.native_stack import on_deep_stack
from lattice_desktop.work import Work

SPURIOUS_INTERRUPT_RETRIES = 5
_NO_FUEL_NOTE = "fuel not measured (wasmtime reports none for an interrupted call)"

# Called with the store and instance once a call has ended (returned or trapped), to read
# what the module left in its globals: the profiler's counters.
Observer = Callable[[wasmtime.Store, wasmtime.Instance], None]


@dataclass(frozen=True)
class Execution:
    """How one call ended. `outcome` is None when the entry returned `output`."""

    outcome: Outcome | None
    output: bytes | None = None  # all of it, or its first `keep_output` bytes
    fuel: int | None = None
    detail: str = ""
    trap_code: str | None = None
    frames: tuple[str, ...] = field(default_factory=tuple)
    wall_time: float = 0.0
    output_size: int | None = None  # the whole output's length, even when `output` is cut
    output_digest: str | None = None  # SHA-256 of the whole output
    memory_in_use: int | None = None  # linear memory's size when the call ended (bytes ABI)


def check_linkage(module: wasmtime.Module, contract: Contract) -> tuple[Outcome, str] | None:
    """Reject a module whose imports we do not offer or whose exports break the contract."""
    problem = import_problem(module)
    if problem is not None:
        return Outcome.LINK_ERROR, problem
    exports = {e.name: e.type for e in module.exports}
    wanted: dict[str, type] = {contract.entry: wasmtime.FuncType}
    if contract.abi == "bytes":
        wanted = {contract.memory: wasmtime.MemoryType, contract.alloc: wasmtime.FuncType, **wanted}
    for name, kind in wanted.items():
        if name not in exports:
            return Outcome.MISSING_EXPORT, f"the module does not export '{name}'"
        if not isinstance(exports[name], kind):
            return (
                Outcome.MISSING_EXPORT,
                f"export '{name}' is a {_kind(exports[name])}, the contract needs a {kind_name(kind)}",
            )
    expected = _signatures(contract)
    for name, (params, results) in expected.items():
        ftype = exports[name]
        assert isinstance(ftype, wasmtime.FuncType)  # checked above
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
    return kind_name(type(t))


def execute(
    module: wasmtime.Module,
    contract: Contract,
    sandbox: Sandbox,
    case: CaseEntry,
    *,
    budget: int,
    work: Work | None = None,
    input_bytes: bytes | None = None,
    keep_output: int | None = None,
    observe: Observer | None = None,
) -> Execution:
    """Run `case` once in a fresh store with `budget` fuel; retry only spurious interrupts.

    `keep_output` caps the bytes of output copied out of wasm (size and digest cover all);
    `observe` sees the store and instance after the call.
    """
    limits = Limits.of(sandbox, fuel=budget)
    if contract.abi == "scalar":
        return _guarded(
            lambda: _scalar_once(module, contract.entry, case.scalar_args, limits, observe), limits, work
        )
    data = case.input_bytes() if input_bytes is None else input_bytes
    names = BytesExports(contract.entry, contract.memory, contract.alloc)
    return call_bytes(module, names, data, limits=limits, work=work, keep_output=keep_output, observe=observe)


def call_bytes(
    module: wasmtime.Module,
    names: BytesExports,
    data: bytes,
    *,
    limits: Limits,
    extra: tuple[int, ...] = (),
    work: Work | None = None,
    keep_output: int | None = None,
    observe: Observer | None = None,
) -> Execution:
    """The packed bytes call of `names.entry(ptr, len, *extra)` under `limits`, judged.

    Safe on any thread: a stack too small for `max_wasm_stack` moves the call to one that fits.
    """
    problem = import_problem(module)
    if problem is not None:
        return Execution(Outcome.LINK_ERROR, detail=problem)
    problem = export_problem(module, names, 2 + len(extra))
    if problem is not None:
        return Execution(Outcome.MISSING_EXPORT, detail=problem)
    return _guarded(
        lambda: _bytes_once(module, names, data, extra, limits, keep_output, observe), limits, work
    )


def _guarded(once: Callable[[], Execution], limits: Limits, work: Work | None) -> Execution:
    work = work or Work()
    for _ in range(SPURIOUS_INTERRUPT_RETRIES):
        work.raise_if_cancelled()
        started = time.perf_counter()
        result = on_deep_stack(once)
        elapsed = time.perf_counter() - started
        if result.outcome is not Outcome.TIMEOUT:
            return _with_time(result, elapsed)
        if work.cancelled:
            raise Cancelled()
        if elapsed >= limits.wall_clock * 0.9:  # its own deadline fired
            detail = f"{result.detail} after {elapsed:.2f} s; {_NO_FUEL_NOTE}"
            return _with_time(result, elapsed, detail)
        # Another job's Cancel moved the shared epoch: this case did nothing wrong, rerun it.
    return _with_time(
        Execution(
            Outcome.INTERNAL_ERROR,
            detail=f"interrupted {SPURIOUS_INTERRUPT_RETRIES} times by other gradings' Cancel before its "
            f"{limits.wall_clock:g} s deadline; not judged",
        ),
        elapsed,
    )


def _with_time(result: Execution, elapsed: float, detail: str | None = None) -> Execution:
    return Execution(
        result.outcome,
        result.output,
        result.fuel,
        result.detail if detail is None else detail,
        result.trap_code,
        result.frames,
        elapsed,
        result.output_size,
        result.output_digest,
        result.memory_in_use,
    )


def _scalar_once(
    module: wasmtime.Module, entry: str, args: tuple[int, ...], limits: Limits, observe: Observer | None
) -> Execution:
    def run(store: wasmtime.Store, instance: wasmtime.Instance) -> PackedOutput:
        value = exported(instance.exports(store), entry, wasmtime.Func)(store, *args)
        values = value if isinstance(value, list) else [value]
        return PackedOutput.of(struct.pack(f"<{len(values)}q", *(_signed64(v) for v in values)))

    return _once(module, limits, run, memory_name=None, observe=observe)


def _bytes_once(
    module: wasmtime.Module,
    names: BytesExports,
    data: bytes,
    extra: tuple[int, ...],
    limits: Limits,
    keep: int | None,
    observe: Observer | None,
) -> Execution:
    def run(store: wasmtime.Store, instance: wasmtime.Instance) -> PackedOutput:
        return call_packed(store, instance, names, data, extra, limits, keep=keep)

    return _once(module, limits, run, memory_name=names.memory, observe=observe)


def _once(
    module: wasmtime.Module,
    limits: Limits,
    run: Callable[[wasmtime.Store, wasmtime.Instance], PackedOutput],
    *,
    memory_name: str | None,
    observe: Observer | None = None,
) -> Execution:
    store = limited_store(limits)
    memory: wasmtime.Memory | None = None
    instance: wasmtime.Instance | None = None

    def used() -> int:
        return limits.fuel - store.get_fuel()

    def size() -> int | None:
        return None if memory is None else memory.data_len(store)

    try:
        try:
            instance = wasmtime.Instance(store, module, [])
        except wasmtime.Trap as trap:
            if trap.trap_code in (wasmtime.TrapCode.OUT_OF_FUEL, wasmtime.TrapCode.INTERRUPT):
                raise  # the start function ran too long: judged like any other call
            code = trap.trap_code.name.lower() if trap.trap_code is not None else "trap"
            frames = tuple(_frame(f) for f in (trap.frames or [])[:12])
            return Execution(
                Outcome.INSTANTIATION_FAILURE,
                fuel=used(),
                trap_code=code,
                frames=frames,
                detail=f"instantiation failed: {code}" + (f" in {frames[0]}" if frames else ""),
            )
        except wasmtime.WasmtimeError as exc:
            message = _one_line(exc)
            outcome = Outcome.MEMORY_LIMIT if _mentions_limit(message) else Outcome.INSTANTIATION_FAILURE
            return Execution(outcome, fuel=used(), detail=f"instantiation failed: {message}")
        if memory_name is not None:
            memory = exported(instance.exports(store), memory_name, wasmtime.Memory)
        try:
            output = run(store, instance)
        except Refused as refused:
            return Execution(refused.outcome, fuel=used(), detail=refused.detail, memory_in_use=size())
        return Execution(
            None,
            output=output.data,
            fuel=used(),
            output_size=output.size,
            output_digest=output.digest,
            memory_in_use=output.memory_in_use,
        )
    except wasmtime.Trap as trap:
        return _classify_trap(trap, store, memory, limits)
    except wasmtime.WasmtimeError as exc:
        message = _one_line(exc)
        if "out of memory" in message.lower():  # wasmtime said so: the GC heap, bounded like linear memory
            return Execution(Outcome.MEMORY_LIMIT, fuel=used(), detail=message, memory_in_use=size())
        return Execution(Outcome.TRAP, fuel=used(), detail=message, memory_in_use=size())
    finally:
        if observe is not None and instance is not None:
            observe(store, instance)


def runway_exhausted(budget: int, ceiling: int) -> str:
    """Why a run stopped for fuel: how far past the ceiling it was allowed to go."""
    if budget <= ceiling:
        return f"ran out of fuel at the ceiling ({budget:,} fuel; this case has no runway)"
    return f"exhausted the runway at {budget / ceiling:.3g}× the ceiling ({budget:,} fuel)"


def _classify_trap(
    trap: wasmtime.Trap,
    store: wasmtime.Store,
    memory: wasmtime.Memory | None,
    limits: Limits,
) -> Execution:
    """What the trap says, and nothing more: fuel ran out, the epoch deadline fired, or a
    trap of its own code. Whether a refused memory.grow led to it is for a re-run to show
    (grading/refused_grow.py): the memory in use is only reported, never read as a cause."""
    code = trap.trap_code
    frames = tuple(_frame(f) for f in (trap.frames or [])[:12])
    where = f" in {frames[0]}" if frames else ""
    in_use = None if memory is None else memory.data_len(store)
    if code == wasmtime.TrapCode.OUT_OF_FUEL:
        return Execution(
            Outcome.OUT_OF_FUEL,
            fuel=limits.fuel,
            trap_code="out_of_fuel",
            frames=frames,
            detail=f"{runway_exhausted(limits.fuel, limits.ceiling or limits.fuel)}: "
            f"no answer to judge{where}",
            memory_in_use=in_use,
        )
    if code == wasmtime.TrapCode.INTERRUPT:
        # wasmtime does not write back the fuel an interrupted call burned (it reports what
        # was left at the call's start), so no figure is better than a false one. The caller
        # adds how long it ran, or finds another job's Cancel was the cause.
        return Execution(
            Outcome.TIMEOUT,
            fuel=None,
            trap_code="interrupt",
            frames=frames,
            detail=f"stopped by the {limits.wall_clock:g} s wall-clock backstop{where}",
            memory_in_use=in_use,
        )
    name = code.name.lower() if code is not None else _uncoded_trap_name(trap)
    memory_note = ""
    if in_use is not None and in_use * 2 > limits.memory_bytes:
        memory_note = (
            f" ({in_use / 2**20:.1f} MiB of the {limits.memory_bytes // 2**20} MiB memory limit in use)"
        )
    return Execution(
        Outcome.TRAP,
        fuel=limits.fuel - store.get_fuel(),
        trap_code=name,
        frames=frames,
        detail=f"trap: {name}{where}{memory_note}",
        memory_in_use=in_use,
    )


def _uncoded_trap_name(trap: wasmtime.Trap) -> str:
    """A name for traps wasmtime-py gives no code (an uncaught wasm exception, for one)."""
    if "exception" in str(trap).lower():
        return "uncaught_exception"
    return "trap"


def _frame(frame: wasmtime.Frame) -> str:
    """`name+0xOFFSET`, or only the name when wasmtime does not know the offset (it then
    gives u64 -1, which once printed as `r+0xffffffffffffffff`)."""
    name = frame.func_name or f"func[{frame.func_index}]"
    offset = frame.func_offset
    if not isinstance(offset, int) or not 0 <= offset < 2**63:
        return name
    return f"{name}+0x{offset:x}"


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
