"""The case manifest: what to run (contract), under which limits (sandbox), on what.

    [meta]      name, version, variant, family, description
    [contract]  abi = "bytes" | "scalar", entry, output = "bytes" | "u64-list", ...
    [sandbox]   fuel_limit, memory_limit_mib, build_timeout_s, wall_clock_s, ...
    [[case]]    name, kind = "smoke" | "stress", input, expected, fuel_runway, behaviour

TOML cannot hold a table and an array of tables under one name, so the case's own
identity lives in [meta] and its inputs in [[case]].
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from lattice_desktop.manifest.case_hash import hash_manifest
from lattice_desktop.manifest.problems import Problems
from lattice_desktop.manifest.toml_source import Table, TomlDocument

ABIS = ("bytes", "scalar")
OUTPUTS = ("bytes", "u64-list")
KINDS = ("smoke", "stress")
SCALAR_TYPES = ("i32", "i64")
FAMILIES = ("lattice-v1",)
MAX_INPUT_BYTES = 256 * 1024 * 1024
FUEL_COUNTER_LIMIT = 2**63  # a case's budget must stay below it (wasmtime and SQLite both wrap)


@dataclass(frozen=True)
class Contract:
    """How the grader calls a submission and compares what it returns."""

    abi: str
    entry: str
    output: str = "bytes"
    memory: str = "memory"
    alloc: str = "alloc"
    params: tuple[str, ...] = ()
    results: tuple[str, ...] = ()
    records: str | None = None


@dataclass(frozen=True)
class Sandbox:
    """Limits every case runs under. fuel_limit is the pass line for each stress case."""

    fuel_limit: int
    memory_limit: int  # bytes of linear memory
    build_timeout: float  # seconds
    wall_clock: float  # seconds per case, a backstop behind fuel
    max_module_bytes: int = 64 * 1024 * 1024
    compile_timeout: float = 60.0
    max_output_bytes: int = 64 * 1024 * 1024


@dataclass(frozen=True)
class CaseEntry:
    """One [[case]]: an input, its expected answer, and how it is graded."""

    name: str
    kind: str
    behaviour: str
    fuel_runway: float
    size: int
    input_path: Path | None = None
    input_inline: bytes | None = None
    expected_path: Path | None = None
    expected_inline: bytes | None = None
    scalar_args: tuple[int, ...] = ()
    scalar_expected: tuple[int, ...] = ()

    @property
    def is_smoke(self) -> bool:
        return self.kind == "smoke"

    def input_bytes(self) -> bytes:
        if self.input_inline is not None:
            return self.input_inline
        return self.input_path.read_bytes() if self.input_path else b""

    def expected_bytes(self) -> bytes:
        if self.expected_inline is not None:
            return self.expected_inline
        return self.expected_path.read_bytes() if self.expected_path else b""


@dataclass(frozen=True)
class CaseManifest:
    path: Path
    name: str
    version: int
    variant: str
    family: str | None
    description: str
    contract: Contract
    sandbox: Sandbox
    cases: tuple[CaseEntry, ...]
    manifest_hash: str
    samples_dir: Path | None = None

    @property
    def key(self) -> tuple[str, int, str]:
        return (self.name, self.version, self.variant)

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}/{self.variant}"

    @property
    def smoke(self) -> tuple[CaseEntry, ...]:
        return tuple(c for c in self.cases if c.is_smoke)

    @property
    def stress(self) -> tuple[CaseEntry, ...]:
        return tuple(c for c in self.cases if not c.is_smoke)

    def entry(self, name: str) -> CaseEntry:
        for case in self.cases:
            if case.name == name:
                return case
        raise KeyError(name)

    def budget(self, case: CaseEntry) -> int:
        """The most fuel a case may burn: the ceiling stretched by its runway."""
        return int(self.sandbox.fuel_limit * case.fuel_runway)


def load_case(path: str | Path) -> CaseManifest:
    """Read and check a case manifest. Every mistake found is reported at once, each located
    (file:line: key), as one `ManifestProblems`: a person fixes them in one pass, not one per
    attempt. A file that cannot be read or parsed as TOML stops the reading where it is."""
    path = Path(path)
    if path.is_dir():
        path = path / "case.toml"
    doc = TomlDocument.load(path)
    problems = Problems()
    problems.check(lambda: doc.check_top_level(("meta", "contract", "sandbox", "case")), None)
    meta = _read_meta(doc, problems)
    contract = problems.check(lambda: _read_contract(doc.table("contract"), problems), None)
    sandbox = problems.check(lambda: _read_sandbox(doc.table("sandbox"), problems), None)
    tables = problems.check(lambda: doc.tables("case"), [])
    if not tables and "case" not in doc.data:
        problems.add(doc.error((), "the manifest declares no [[case]]"))
    read = [problems.check(partial(_read_entry, t, contract, problems), None) for t in tables]
    cases = tuple(case for case in read if case is not None)
    if sandbox is not None and len(cases) == len(tables):
        _check_budgets(doc, sandbox, cases, problems)
    _check_names(tables, problems)
    problems.raise_any()
    assert meta is not None and contract is not None and sandbox is not None  # no problems
    samples = meta.pop("samples")
    samples_dir = (path.parent / samples).resolve() if samples else None
    if samples_dir is None and (path.parent / "submissions").is_dir():
        samples_dir = (path.parent / "submissions").resolve()
    files = [f for case in cases for f in (case.input_path, case.expected_path) if f is not None]
    return CaseManifest(
        path=path.resolve(),
        contract=contract,
        sandbox=sandbox,
        cases=cases,
        manifest_hash=hash_manifest(path, files),
        samples_dir=samples_dir,
        **meta,
    )


def _read_meta(doc: TomlDocument, problems: Problems) -> dict[str, Any] | None:
    """[meta]'s values by CaseManifest field, each key checked on its own."""
    meta = problems.check(lambda: doc.table("meta"), None)
    if meta is None:
        return None
    problems.check(
        lambda: meta.check_keys(("name", "version", "variant", "family", "description", "samples")), None
    )
    return {
        "name": problems.check(lambda: meta.string("name"), ""),
        "version": problems.check(lambda: meta.integer("version", minimum=1), 1),
        "variant": problems.check(lambda: meta.string("variant", "standard"), "standard"),
        "family": problems.check(lambda: meta.string("family", None, choices=FAMILIES), None),
        "description": problems.check(lambda: meta.string("description", ""), ""),
        "samples": problems.check(lambda: meta.string("samples", None), None),
    }


def _check_budgets(
    doc: TomlDocument, sandbox: Sandbox, cases: tuple[CaseEntry, ...], problems: Problems
) -> None:
    for index, case in enumerate(cases):
        if int(sandbox.fuel_limit * case.fuel_runway) >= FUEL_COUNTER_LIMIT:
            key = (
                ("case", index, "fuel_runway")
                if "fuel_runway" in doc.tables("case")[index].data
                else ("sandbox", "fuel_limit")
            )
            problems.add(
                doc.error(
                    key,
                    f"fuel_limit × fuel_runway = {sandbox.fuel_limit:,} × {case.fuel_runway:g} "
                    "does not fit wasmtime's fuel counter (it must stay below 2^63)",
                )
            )


def _check_names(tables: list[Table], problems: Problems) -> None:
    seen: dict[str, int] = {}
    for index, table in enumerate(tables):
        name = table.data.get("name")
        if not isinstance(name, str):
            continue
        if name in seen:
            problems.add(
                table.error("name", f"duplicate case name '{name}' (first used by case #{seen[name] + 1})")
            )
        seen.setdefault(name, index)


def _read_contract(table: Table, problems: Problems) -> Contract:
    problems.check(
        lambda: table.check_keys(
            ("abi", "entry", "output", "memory", "alloc", "params", "results", "records")
        ),
        None,
    )
    abi = table.string("abi", choices=ABIS)  # what follows depends on it
    params = tuple(problems.check(lambda: table.strings("params", []), []))
    results = tuple(problems.check(lambda: table.strings("results", []), []))
    for key, types in (("params", params), ("results", results)):
        for t in types:
            if t not in SCALAR_TYPES:
                problems.add(table.error(key, f"types must be 'i32' or 'i64', not {t!r}"))
    if abi == "scalar" and not results:
        problems.add(table.error("results", "a scalar contract needs at least one result type"))
    if abi == "bytes" and (params or results):
        problems.add(table.error("params" if params else "results", "only a scalar contract has types"))
    default_output = "bytes" if abi == "bytes" else "u64-list"
    return Contract(
        abi=abi,
        entry=problems.check(lambda: table.string("entry"), "entry"),
        output=problems.check(
            lambda: table.string("output", default_output, choices=OUTPUTS), default_output
        ),
        memory=problems.check(lambda: table.string("memory", "memory"), "memory"),
        alloc=problems.check(lambda: table.string("alloc", "alloc"), "alloc"),
        params=params,
        results=results,
        records=problems.check(lambda: table.string("records", None), None),
    )


def _read_sandbox(table: Table, problems: Problems) -> Sandbox:
    problems.check(
        lambda: table.check_keys(
            (
                "fuel_limit",
                "memory_limit_mib",
                "build_timeout_s",
                "wall_clock_s",
                "max_module_mib",
                "compile_timeout_s",
                "max_output_mib",
            )
        ),
        None,
    )
    mib = 1024 * 1024

    def integer(key: str, default: Any, lo: int, hi: int) -> int:
        return int(problems.check(lambda: table.integer(key, default, minimum=lo, maximum=hi), lo))

    def number(key: str, default: float, lo: float, hi: float) -> float:
        return float(problems.check(lambda: table.number(key, default, minimum=lo, maximum=hi), default))

    return Sandbox(
        fuel_limit=int(problems.check(lambda: table.integer("fuel_limit", minimum=1, maximum=2**62), 1)),
        memory_limit=integer("memory_limit_mib", 256, 1, 4096) * mib,
        build_timeout=number("build_timeout_s", 120.0, 0.1, 86400),
        wall_clock=number("wall_clock_s", 60.0, 0.1, 86400),
        max_module_bytes=integer("max_module_mib", 64, 1, 1024) * mib,
        compile_timeout=number("compile_timeout_s", 60.0, 0.1, 3600),
        max_output_bytes=integer("max_output_mib", 64, 1, 1024) * mib,
    )


def _read_entry(table: Table, contract: Contract | None, problems: Problems) -> CaseEntry | None:
    """One [[case]]; None when the contract could not be read, after checking what does
    not depend on it (its inputs' form depends on the contract's ABI)."""
    problems.check(
        lambda: table.check_keys(
            (
                "name",
                "kind",
                "behaviour",
                "input",
                "input_file",
                "expected",
                "expected_file",
                "fuel_runway",
                "size",
            )
        ),
        None,
    )
    name = problems.check(lambda: table.string("name"), "")
    kind = problems.check(lambda: table.string("kind", choices=KINDS), "stress")
    behaviour = problems.check(lambda: table.string("behaviour", ""), "")
    if kind == "smoke" and not behaviour:
        problems.add(table.error(None, f"smoke test '{name}' must say which behaviour it isolates"))
    runway = problems.check(lambda: table.number("fuel_runway", 1.0, minimum=1.0, maximum=1_000_000.0), 1.0)
    if contract is None:
        return None
    entry = partial(CaseEntry, name=name, kind=kind, behaviour=behaviour, fuel_runway=runway)
    if contract.abi == "scalar":
        args = problems.check(lambda: _scalars(table, "input", contract.params), ())
        expected = problems.check(lambda: _scalars(table, "expected", contract.results), ())
        return entry(
            size=problems.check(
                lambda: table.integer("size", max(1, sum(abs(a) for a in args)), minimum=0), 0
            ),
            scalar_args=args,
            scalar_expected=expected,
        )
    input_path, input_inline = problems.check(
        lambda: _bytes_source(table, "input", "input_file", contract), (None, None)
    )
    expected_path, expected_inline = problems.check(
        lambda: _bytes_source(table, "expected", "expected_file", contract), (None, None)
    )
    if input_path is not None and input_path.stat().st_size > MAX_INPUT_BYTES:
        problems.add(table.error("input_file", f"input is larger than {MAX_INPUT_BYTES:,} bytes"))
    size = input_path.stat().st_size if input_path else len(input_inline or b"")
    return entry(
        size=problems.check(lambda: table.integer("size", size, minimum=0), 0),
        input_path=input_path,
        input_inline=input_inline,
        expected_path=expected_path,
        expected_inline=expected_inline,
    )


def _scalars(table: Table, key: str, types: tuple[str, ...]) -> tuple[int, ...]:
    value = table.raw(key)
    if value is None:
        raise table.error(None, f"missing key '{key}'")
    values = value if isinstance(value, list) else [value]
    if len(values) != len(types) or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise table.error(key, f"must be {len(types)} integer(s) matching {list(types)}")
    for v, t in zip(values, types, strict=True):
        bits = 32 if t == "i32" else 64
        if not -(2 ** (bits - 1)) <= v < 2**bits:
            raise table.error(key, f"{v} does not fit in {t}")
    return tuple(values)


def _bytes_source(
    table: Table, inline_key: str, file_key: str, contract: Contract
) -> tuple[Path | None, bytes | None]:
    has_inline, has_file = inline_key in table.data, file_key in table.data
    if has_inline == has_file:
        raise table.error(None, f"give exactly one of '{inline_key}' (inline) and '{file_key}' (a path)")
    if has_file:
        return table.file(file_key), None
    value = table.raw(inline_key)
    if isinstance(value, str):
        return None, value.encode("utf-8")
    if (
        inline_key == "expected"
        and contract.output == "u64-list"
        and isinstance(value, list)
        and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**64 for v in value)
    ):
        return None, struct.pack(f"<{len(value)}Q", *value)
    raise table.error(
        inline_key,
        "must be a string" + (" or an array of u64" if contract.output == "u64-list" else ""),
    )
