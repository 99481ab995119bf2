"""What the instrumenter needs to know of a module, read from `wasm-tools print` text.

The module is printed without its custom sections, names included (`wasm_sections.without_custom`), so every
reference is an index and the only quoted strings are export names and data: a line reader
suffices, no wasm decoding by hand. The printer writes one module field a line at two
spaces of indent, and a function's operators one a line beneath it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lattice_desktop.profile.wat_tools import WasmToolsError

_STRING = r'"(?:[^"\\]|\\.)*"'
_INDEX = re.compile(r"^\s*\(func\s+\(;(\d+);\)")
_TYPE_USE = re.compile(r"\(type\s+(\d+)\)")
_RESULT = re.compile(r"\(result((?:\s+[^\s()]+)*)\)")
_TYPE_DEF = re.compile(r"^\s*\(type\s+\(;(\d+);\)\s+(.*)\)\s*$")
_EXPORT_FUNC = re.compile(rf"^\s*\(export\s+({_STRING})\s+\(func\s+(\d+)\)\)")
_START = re.compile(r"^\s*\(start\s+(\d+)\)")
_REF_FUNC = re.compile(r"ref\.func\s+(\d+)")
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F_]+\}|[0-9a-fA-F]{2}|.)")
_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", '"': '"', "'": "'", "\\": "\\"}


@dataclass
class Function:
    """One defined function: its index, type and text lines."""

    index: int
    type_ref: str
    results: str  # "(result …)" groups, for the wrapping block
    header: str
    locals: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)
    offsets: list[int | None] = field(default_factory=list)  # each body line's, when printed with them
    offset: int | None = None  # the header's (the function's code entry)


@dataclass
class ModuleText:
    """The printed module, split into its functions and everything else (kept as text)."""

    fields: list[str]  # module-level lines other than functions, in order
    functions: list[Function]
    types: dict[str, str]  # type index → its signature
    exports: dict[int, list[str]]  # function index → its export names
    start: int | None
    table_funcs: set[int]  # functions an indirect call can reach (elem segments, ref.func)

    def signature(self, type_ref: str) -> str:
        return self.types.get(type_ref, type_ref)

    def indirect_candidates(self) -> dict[str, list[int]]:
        """Per signature, the functions an indirect call of that signature may reach."""
        by_type: dict[str, list[int]] = {}
        for f in self.functions:
            if f.index in self.table_funcs:
                by_type.setdefault(self.signature(f.type_ref), []).append(f.index)
        return by_type


def parse(text: str, offsets: list[int | None] | None = None) -> ModuleText:
    """Split `wasm-tools print` output; refuse what the profiler cannot instrument.
    `offsets` are the binary offsets of the text's lines (`source_lines.split_offsets`)."""
    lines = text.splitlines()
    at: list[int | None] = offsets if offsets is not None else [None] * len(lines)
    if not lines or not lines[0].startswith("(module"):
        raise WasmToolsError("not a core wasm module (a component, or unexpected text)")
    module = ModuleText([], [], {}, {}, None, set())
    i = 1
    while i < len(lines) and lines[i] != ")":
        line = lines[i]
        if line.startswith("  (func"):
            function, i = _function(lines, i, at)
            module.functions.append(function)
            continue
        _field(module, line)
        i += 1
    for function in module.functions:
        for line in function.body:
            if "ref.func" in line:
                module.table_funcs.update(int(n) for n in _REF_FUNC.findall(line))
    module.table_funcs.update(module.exports)
    return module


def _field(module: ModuleText, line: str) -> None:
    """Read what the instrumenter needs from one module-level line, and keep the line."""
    if line.startswith("  (import"):
        raise WasmToolsError("the module imports something; the grader offers no imports")
    if match := _TYPE_DEF.match(line):
        module.types[match.group(1)] = match.group(2)
    elif match := _EXPORT_FUNC.match(line):
        module.exports.setdefault(int(match.group(2)), []).append(wat_string(match.group(1)))
    elif match := _START.match(line):
        module.start = int(match.group(1))
    elif line.lstrip().startswith("(elem"):
        module.table_funcs.update(_elem_functions(line))
    elif re.match(r"^\s*\(memory\b.*\bi64\b", line):
        raise WasmToolsError("64-bit memories are not supported by the profiler")
    module.fields.append(line)


def _elem_functions(line: str) -> list[int]:
    if " func " in line:
        return [int(n) for n in re.findall(r"\b\d+\b", line.split(" func ", 1)[1])]
    return [int(n) for n in _REF_FUNC.findall(line)]


def wat_string(quoted: str) -> str:
    """A WAT string literal's text: its escapes (`\\u{…}`, `\\hh` bytes, `\\n` …) decoded,
    bytes that are not UTF-8 shown as U+FFFD."""
    out = bytearray()
    body = quoted[1:-1]
    at = 0
    for match in _ESCAPE.finditer(body):
        out += body[at : match.start()].encode("utf-8", "surrogatepass")
        code = match.group(1)
        if code.startswith("u{"):
            out += chr(int(code[2:-1].replace("_", ""), 16)).encode("utf-8", "surrogatepass")
        elif len(code) == 2:
            out.append(int(code, 16))
        else:
            out += _SIMPLE_ESCAPES.get(code, code).encode("utf-8", "surrogatepass")
        at = match.end()
    out += body[at:].encode("utf-8", "surrogatepass")
    return out.decode("utf-8", "replace")


def _function(lines: list[str], i: int, offsets: list[int | None]) -> tuple[Function, int]:
    header = lines[i]
    index_match = _INDEX.match(header)
    if index_match is None:
        raise WasmToolsError(f"unexpected function header: {header[:120]}")
    type_match = _TYPE_USE.search(header)
    function = Function(
        index=int(index_match.group(1)),
        type_ref=type_match.group(1) if type_match else "",
        results=" ".join(f"(result{m.group(1)})" for m in _RESULT.finditer(header)),
        header=header,
        offset=offsets[i],
    )
    if header.rstrip().endswith("))") and header.count("(") == header.count(")"):
        function.header = header.rstrip()[:-1]  # an empty body printed on one line
        return function, i + 1
    i += 1
    while lines[i].strip().startswith("(local"):
        function.locals.append(lines[i])
        i += 1
    while lines[i] != "  )":
        function.body.append(lines[i])
        function.offsets.append(offsets[i])
        i += 1
    return function, i + 1
