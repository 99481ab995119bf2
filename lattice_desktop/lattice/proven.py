"""The fastest engine proven on a scenario, for playback: the Factory tab shows the
reference side with it, so a far seek on a big factory is quick.

A case's sample submissions that are expected to be correct (`lines` for the bundled
case) are tried before the reference; one is *proven* on a scenario when its checksums
equal the expected ones at every snapshot. Playback runs an engine unmetered, outside the
grader's sandbox, so only samples that ship with the app are candidates (like the
reference itself); a third-party case's samples are never run this way. The proof is
one unmetered run, remembered on disk (keyed by the module's, the scenario's and the
expected answer's bytes) so it is paid once per machine.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import wasmtime

from lattice_desktop.errors import UserError
from lattice_desktop.lattice.simulators import stepping_module
from lattice_desktop.lattice.wasm_engine import REFERENCE_WASM, EngineError, WasmEngine
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.manifest.submission import load_submission
from lattice_desktop.resources import CASES
from lattice_desktop.sandbox.disk_cache import BoundedFolder

PROOFS = BoundedFolder("proofs", max_bytes=16 * 1024 * 1024, max_files=8192)  # small JSON verdicts
FASTER_VERDICTS = ("correct",)  # samples expected to be right and within the ceiling


@dataclass(frozen=True)
class ProvenEngine:
    """An engine whose checksums equal the expected ones on one scenario."""

    engine: WasmEngine
    name: str  # the sample's folder name, e.g. "lines", or "reference"


def candidates(case: CaseManifest) -> list[tuple[str, Path]]:
    """(name, module) of the case's correct samples with the stepping exports (when they ship
    with the app), then the reference."""
    found: list[tuple[str, Path]] = []
    root = case.samples_dir
    bundled = root is not None and root.is_dir() and root.resolve().is_relative_to(CASES.resolve())
    for folder in sorted(root.iterdir()) if root is not None and bundled else []:
        if not (folder / "submission.toml").is_file():
            continue
        try:
            sample = load_submission(folder)
        except (UserError, OSError):  # a broken sample is simply not a candidate
            continue
        module = Path(sample.module_path)
        if sample.expected_verdict in FASTER_VERDICTS and module.is_file() and _steps(module):
            found.append((folder.name, module))
    if REFERENCE_WASM.is_file():
        found.append(("reference", REFERENCE_WASM))
    return found


def proven_engine(case: CaseManifest, scenario: bytes, expected: bytes) -> ProvenEngine | None:
    """The first candidate proven on this scenario, or None (playback then uses the Python rules)."""
    for name, module in candidates(case):
        if name == "reference" or _proven(module, scenario, expected):
            return ProvenEngine(WasmEngine(module), name)
    return None


def _steps(module: Path) -> bool:
    try:
        return stepping_module(module) is not None
    except wasmtime.WasmtimeError:  # a module that does not compile is no candidate
        return False


def _proof_path(module: Path, scenario: bytes, expected: bytes) -> Path:
    digest = hashlib.sha256()
    for part in (module.read_bytes(), scenario, expected):
        digest.update(hashlib.sha256(part).digest())
    return PROOFS.file(f"{digest.hexdigest()}.json")


def _proven(module: Path, scenario: bytes, expected: bytes) -> bool:
    if not expected:
        return False
    path = _proof_path(module, scenario, expected)
    try:
        return bool(json.loads(PROOFS.load(path.name) or b"")["proven"])
    except (ValueError, KeyError, TypeError):
        pass
    try:
        got = WasmEngine(module).run(scenario)
    except (EngineError, wasmtime.WasmtimeError, wasmtime.Trap):  # a trap or junk is no proof
        got = None
    proven = got is not None and b"".join(v.to_bytes(8, "little") for v in got) == expected
    PROOFS.save(path.name, json.dumps({"module": str(module), "proven": proven}).encode())  # an optimisation
    return proven
