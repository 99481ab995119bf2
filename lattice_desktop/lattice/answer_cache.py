"""A submission's answers to the Factory tab kept on disk between sessions: the records
at a tick and the per-tick checksums of the divergence search cost a full run of the
submission each (seconds on a big factory), and a module's answer to the same call
never changes. Keyed by the module's bytes, the call (export names and limits), its
arguments, the scenario and the wasmtime version.

Only an answer that passed its checks is kept (a caller saves after decoding it: a
rejected answer, junk or a trap, is never written), the folder is bounded (`ANSWERS`,
least recently used evicted) and an answer is still decoded and checked strictly when it
is read back.
"""

from __future__ import annotations

import hashlib
import zlib

from lattice_desktop.sandbox.disk_cache import BoundedFolder
from lattice_desktop.sandbox.engine import WASMTIME_VERSION

ANSWERS = BoundedFolder("answers", max_bytes=256 * 1024 * 1024, max_files=4096)


def answer_key(module_digest: str, call: str, scenario: bytes, args: tuple[int, ...]) -> str:
    return keys_of(module_digest, call, scenario, [args])[0]


def keys_of(module_digest: str, call: str, scenario: bytes, calls: list[tuple[int, ...]]) -> list[str]:
    """`answer_key` of each call's arguments (the scenario hashed once)."""
    scenario_digest = hashlib.sha256(scenario).digest()
    return [_key(module_digest, call, scenario_digest, args) for args in calls]


def _key(module_digest: str, call: str, scenario_digest: bytes, args: tuple[int, ...]) -> str:
    digest = hashlib.sha256()
    for part in (
        module_digest.encode(),
        call.encode(),
        repr(args).encode(),
        scenario_digest,
        WASMTIME_VERSION.encode(),
    ):
        digest.update(part + b"\0")
    return f"{digest.hexdigest()}.z"


def load(key: str) -> bytes | None:
    packed = ANSWERS.load(key)
    if packed is None:
        return None
    try:
        return zlib.decompress(packed)
    except zlib.error:
        ANSWERS.forget(key)
        return None


def held(key: str) -> bool:
    """An answer is kept under `key` (it is still checked when it is loaded)."""
    return ANSWERS.file(key).is_file()


def save(key: str, data: bytes) -> None:
    """Keep a checked answer (compressed); one past the folder's bound is not kept."""
    ANSWERS.save(key, zlib.compress(data, 1))


def forget(key: str) -> None:
    ANSWERS.forget(key)
