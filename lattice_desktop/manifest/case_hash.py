"""A case's content hash: what makes two cases of one name the same case.

The hash covers the manifest without its comments and every input and expected file, so
two copies grade alike exactly when their hashes agree, whatever notes the builder left.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from pathlib import Path


def hash_manifest(path: Path, files: Iterable[Path]) -> str:
    """The case's content hash: the manifest without its comments, then every input and
    expected file in order. Comments (the builder's fuel notes, say) never change what is
    graded, so they never split a field; a manifest without comments hashes as its bytes."""
    digest = hashlib.sha256(without_comments(path.read_bytes()))
    for file in files:
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
