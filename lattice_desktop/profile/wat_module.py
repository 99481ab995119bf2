"""What the instrumenter needs to know of a module, read from `wasm-tools print` text.

The printer writes one module field a line at two spaces of indent, and a function's
operators one a line beneath it, so a line reader suffices: no wasm decoding by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lattice_desktop.profile.wat_tools import WasmToolsError

_NAME = r'\$(?:"(?:[^"\\]|\\.)*"|[^\s()"]+)'
_INDEX = re.compile(r"\(;(\d+);\)")
_FUNC_NAME = re.compile(rf"^\s*\(func\s+({_NAME})")
_TYPE_USE = re.compile(rf"\(type\s+({_NAME}|\d+)\)")
_RESULT = re.compile(r"\(result((?:\s+[^\s()]+)*)\)")
_TYPE_DEF = re.compile(rf"^\s*\(type\s+(?:({_NAME})\s+)?\(;(\d+);\)\s+(.*)\)\s*$")
_EXPORT_FUNC = re.compile(rf'^\s*\(export\s+("(?:[^"\\]|\\.)*")\s+\(func\s+({_NAME}|\d+)\)\)')
_START = re.compile(rf"^\s*\(start\s+({_NAME}|\d+)\)")
_REF = re.compile(rf"({_NAME}|\b\d+\b)")
_PARAM_NAME = re.compile(rf"\(param\s+{_NAME}\s+")


@dataclass
class Function:
    """One defined function: its index, printed name (without `$`), type and text lines."""

    index: int
    name: str | None
    type_ref: str
    results: str  # "(result …)" groups, for the wrapping block
    header: str
    locals: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)


@dataclass
class ModuleText:
    """The printed module, split into its functions and everything else (kept as text)."""

    fields: list[str]  # module-level lines other than functions, in order
    functions: list[Function]
    types: dict[str, str]  # type reference ($name or index) → its signature, normalised
    exports: dict[int, list[str]]  # function index → its export names
    start: int | None
    table_funcs: set[int]  # functions an indirect call can reach (elem segments, ref.func)

    def resolve(self, ref: str) -> int:
        """A function reference (`$name` or an index) as an index."""
        if ref.startswith("$"):
            for function in self.functions:
                if function.name is not None and "$" + function.name == ref:
                    return function.index
            raise WasmToolsError(f"unknown function {ref} in the printed module")
        return int(ref)

    def signature(self, type_ref: str) -> str:
        return self.types.get(type_ref, type_ref)


def parse(text: str) -> ModuleText:
    """Split `wasm-tools print` output; refuse what the profiler cannot instrument."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("(module"):
        raise WasmToolsError("not a core wasm module (a component, or unexpected text)")
    fields: list[str] = []
    functions: list[Function] = []
    types: dict[str, str] = {}
    export_refs: list[tuple[str, str]] = []
    start_ref: str | None = None
    elem_lines: list[str] = []
    i = 1
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if line.startswith("  (import"):
            raise WasmToolsError("the module imports something; the grader offers no imports")
        if line == ")":
            break
        if line.startswith("  (func"):
            function, i = _function(lines, i)
            functions.append(function)
            continue
        if match := _TYPE_DEF.match(line):
            signature = _PARAM_NAME.sub("(param ", match.group(3))
            types[match.group(2)] = signature
            if match.group(1):
                types[match.group(1)] = signature
        elif match := _EXPORT_FUNC.match(line):
            export_refs.append((match.group(2), _unquote(match.group(1))))
        elif match := _START.match(line):
            start_ref = match.group(1)
        elif stripped.startswith("(elem"):
            elem_lines.append(stripped)
        elif re.match(r"^\s*\(memory\b.*\bi64\b", line):
            raise WasmToolsError("64-bit memories are not supported by the profiler")
        fields.append(line)
        i += 1
    module = ModuleText(fields, functions, types, {}, None, set())
    for ref, export in export_refs:
        module.exports.setdefault(module.resolve(ref), []).append(export)
    module.start = module.resolve(start_ref) if start_ref is not None else None
    for elem in elem_lines:
        if " func " in elem:
            refs = _REF.findall(elem.split(" func ", 1)[1])
        else:
            refs = re.findall(r"ref\.func\s+(\S+?)\)", elem)
        module.table_funcs.update(module.resolve(ref) for ref in refs)
    for function in functions:
        for line in function.body:
            if "ref.func" in line:
                module.table_funcs.add(module.resolve(line.split()[1]))
    module.table_funcs.update(module.exports)
    return module


def _unquote(quoted: str) -> str:
    return quoted[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")


def _function(lines: list[str], i: int) -> tuple[Function, int]:
    header = lines[i]
    index_match = _INDEX.search(header)
    if index_match is None:
        raise WasmToolsError(f"unexpected function header: {header[:120]}")
    name_match = _FUNC_NAME.match(header)
    type_match = _TYPE_USE.search(header)
    function = Function(
        index=int(index_match.group(1)),
        name=name_match.group(1)[1:] if name_match else None,
        type_ref=type_match.group(1) if type_match else "",
        results=" ".join(f"(result{m.group(1)})" for m in _RESULT.finditer(header)),
        header=header,
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
        i += 1
    return function, i + 1
