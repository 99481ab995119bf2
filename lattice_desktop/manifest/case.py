"""The case manifest: what to run (contract), under which limits (sandbox), on what.

    [meta]      name, version, variant, family, description
    [contract]  abi = "bytes" | "scalar", entry, output = "bytes" | "u64-list", ...
    [sandbox]   fuel_limit, memory_limit_mib, build_timeout_s, wall_clock_s, ...
    [[case]]    name, kind = "smoke" | "stress", input, expected, fuel_runway, behaviour

TOML cannot hold a table and an array of tables under one name, so the case's own
identity lives in [meta] and its inputs in [[case]].
"""

from __future__ import annotations

import hashlib
import struct
import threading
from dataclasses import dataclass
from pathlib import Path

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

    @property
    def required_exports(self) -> tuple[str, ...]:
        if self.abi == "bytes":
            return (self.memory, self.alloc, self.entry)
        return (self.entry,)


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
    """Read and check a case manifest; every mistake is a located ManifestError."""
    path = Path(path)
    if path.is_dir():
        path = path / "case.toml"
    doc = TomlDocument.load(path)
    doc.check_top_level(("meta", "contract", "sandbox", "case"))
    meta = doc.table("meta")
    meta.check_keys(("name", "version", "variant", "family", "description", "samples"))
    contract = _read_contract(doc.table("contract"))
    sandbox = _read_sandbox(doc.table("sandbox"))
    cases = tuple(_read_entry(t, contract) for t in doc.tables("case"))
    if not cases:
        raise doc.error((), "the manifest declares no [[case]]")
    seen: dict[str, int] = {}
    for index, case in enumerate(cases):
        if int(sandbox.fuel_limit * case.fuel_runway) >= FUEL_COUNTER_LIMIT:
            key = (
                ("case", index, "fuel_runway")
                if "fuel_runway" in doc.tables("case")[index].data
                else ("sandbox", "fuel_limit")
            )
            raise doc.error(
                key,
                f"fuel_limit × fuel_runway = {sandbox.fuel_limit:,} × {case.fuel_runway:g} "
                "does not fit wasmtime's fuel counter (it must stay below 2^63)",
            )
        if case.name in seen:
            raise doc.error(
                ("case", index, "name"),
                f"duplicate case name '{case.name}' (first used by case #{seen[case.name] + 1})",
            )
        seen[case.name] = index
    samples = meta.string("samples", None)
    samples_dir = (path.parent / samples).resolve() if samples else None
    if samples_dir is None and (path.parent / "submissions").is_dir():
        samples_dir = (path.parent / "submissions").resolve()
    return CaseManifest(
        path=path.resolve(),
        name=meta.string("name"),
        version=meta.integer("version", minimum=1),
        variant=meta.string("variant", "standard"),
        family=meta.string("family", None, choices=FAMILIES),
        description=meta.string("description", ""),
        contract=contract,
        sandbox=sandbox,
        cases=cases,
        manifest_hash=_hash_manifest(path, cases),
        samples_dir=samples_dir,
    )


def _read_contract(table: Table) -> Contract:
    table.check_keys(("abi", "entry", "output", "memory", "alloc", "params", "results", "records"))
    abi = table.string("abi", choices=ABIS)
    params = tuple(table.strings("params", []))
    results = tuple(table.strings("results", []))
    for key, types in (("params", params), ("results", results)):
        for t in types:
            if t not in SCALAR_TYPES:
                raise table.error(key, f"types must be 'i32' or 'i64', not {t!r}")
    if abi == "scalar" and not results:
        raise table.error("results", "a scalar contract needs at least one result type")
    if abi == "bytes" and (params or results):
        raise table.error("params" if params else "results", "only a scalar contract has types")
    return Contract(
        abi=abi,
        entry=table.string("entry"),
        output=table.string("output", "bytes" if abi == "bytes" else "u64-list", choices=OUTPUTS),
        memory=table.string("memory", "memory"),
        alloc=table.string("alloc", "alloc"),
        params=params,
        results=results,
        records=table.string("records", None),
    )


def _read_sandbox(table: Table) -> Sandbox:
    table.check_keys(
        (
            "fuel_limit",
            "memory_limit_mib",
            "build_timeout_s",
            "wall_clock_s",
            "max_module_mib",
            "compile_timeout_s",
            "max_output_mib",
        )
    )
    mib = 1024 * 1024
    return Sandbox(
        fuel_limit=table.integer("fuel_limit", minimum=1, maximum=2**62),
        memory_limit=table.integer("memory_limit_mib", 256, minimum=1, maximum=4096) * mib,
        build_timeout=table.number("build_timeout_s", 120.0, minimum=0.1, maximum=86400),
        wall_clock=table.number("wall_clock_s", 60.0, minimum=0.1, maximum=86400),
        max_module_bytes=table.integer("max_module_mib", 64, minimum=1, maximum=1024) * mib,
        compile_timeout=table.number("compile_timeout_s", 60.0, minimum=0.1, maximum=3600),
        max_output_bytes=table.integer("max_output_mib", 64, minimum=1, maximum=1024) * mib,
    )


def _read_entry(table: Table, contract: Contract) -> CaseEntry:
    table.check_keys(
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
    )
    name = table.string("name")
    kind = table.string("kind", choices=KINDS)
    behaviour = table.string("behaviour", "")
    if kind == "smoke" and not behaviour:
        raise table.error(None, f"smoke test '{name}' must say which behaviour it isolates")
    runway = table.number("fuel_runway", 1.0, minimum=1.0, maximum=1_000_000.0)
    if contract.abi == "scalar":
        args = _scalars(table, "input", contract.params)
        expected = _scalars(table, "expected", contract.results)
        return CaseEntry(
            name=name,
            kind=kind,
            behaviour=behaviour,
            fuel_runway=runway,
            size=table.integer("size", max(1, sum(abs(a) for a in args)), minimum=0),
            scalar_args=args,
            scalar_expected=expected,
        )
    input_path, input_inline = _bytes_source(table, "input", "input_file", contract)
    expected_path, expected_inline = _bytes_source(table, "expected", "expected_file", contract)
    if input_path is not None and input_path.stat().st_size > MAX_INPUT_BYTES:
        raise table.error("input_file", f"input is larger than {MAX_INPUT_BYTES:,} bytes")
    size = input_path.stat().st_size if input_path else len(input_inline or b"")
    return CaseEntry(
        name=name,
        kind=kind,
        behaviour=behaviour,
        fuel_runway=runway,
        size=table.integer("size", size, minimum=0),
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


def _hash_manifest(path: Path, cases: tuple[CaseEntry, ...]) -> str:
    """The case's content hash: the manifest without its comments, then every input and
    expected file. Comments (the builder's fuel notes, say) never change what is graded, so
    they never split a field; a manifest without comments hashes as its bytes."""
    digest = hashlib.sha256(without_comments(path.read_bytes()))
    for case in cases:
        for file in (case.input_path, case.expected_path):
            if file is not None:
                digest.update(file_digest(file))
    return digest.hexdigest()


def without_comments(toml: bytes) -> bytes:
    """TOML text with its comments removed: a line holding only a comment goes whole, a
    comment after a value goes with the spaces before it; a `#` inside a string is kept."""
    out, line = bytearray(), bytearray()
    quote = b""  # the delimiter of the string being read, if any
    commented = False
    i, n = 0, len(toml)
    while i < n:
        c = toml[i : i + 1]
        if quote:
            step = 2 if c == b"\\" and quote[:1] == b'"' else 1
            if step == 1 and toml.startswith(quote, i):
                step, quote = len(quote), b""
        elif c in (b'"', b"'"):
            quote = c * 3 if toml.startswith(c * 3, i) else c
            step = len(quote)
        elif c == b"#":
            end = toml.find(b"\n", i)
            i = n if end < 0 else end
            line, commented = bytearray(line.rstrip(b" \t")), True
            continue
        else:
            step = 1
        chunk = toml[i : i + step]
        i += step
        if chunk != b"\n":
            line += chunk
            continue
        if not (commented and not line.strip()):
            out += line + chunk
        line, commented = bytearray(), False
    if not (commented and not line.strip()):
        out += line
    return bytes(out)


# Opening a run's page reads its case again; hashing every input each time cost seconds on
# the bundled case. A file's digest is kept while its size, times and inode are unchanged.
_digests: dict[Path, tuple[tuple[int, ...], bytes]] = {}
_digests_lock = threading.Lock()


def file_digest(path: Path) -> bytes:
    """The sha256 of a file's bytes, read again only when the file changed."""
    info = path.stat()
    signature = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    key = path.resolve()
    with _digests_lock:
        known = _digests.get(key)
    if known is not None and known[0] == signature:
        return known[1]
    digest = hashlib.sha256(path.read_bytes()).digest()
    with _digests_lock:
        _digests[key] = (signature, digest)
    return digest
