"""How deeply JSON nests, measured on its bytes in chunks before any parser recurses into
it. Strings are skipped (a bracket inside one is text), across chunk boundaries too, and
the work is done by bytes methods and numpy at C speed, not a Python step per byte."""

from __future__ import annotations

import numpy as np

_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = bytes.maketrans(b"[]{}", bytes([1, 255, 1, 255]))
"""An opening bracket as +1, a closing one as -1 (255 read as int8)."""


class DepthScanner:
    """Feed a document's bytes in order; `feed` returns False once the nesting passed `limit`.

    Escapes are dropped first (`\\\\` and `\\"`, the only ones that can hide a quote), so
    every quote left opens or closes a string: splitting on quotes alternates outside and
    inside. A backslash ending a chunk escapes the next chunk's first byte.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.depth = 0
        self.deepest = 0
        self._in_string = False
        self._escape = False

    def feed(self, chunk: bytes) -> bool:
        if self._escape and chunk:
            chunk, self._escape = chunk[1:], False
        run = len(chunk) - len(chunk.rstrip(b"\\"))
        if run % 2:
            chunk, self._escape = chunk[:-1], True
        parts = chunk.replace(b"\\\\", b"").replace(b'\\"', b"").split(b'"')
        outside = parts[1::2] if self._in_string else parts[0::2]
        if len(parts) % 2 == 0:
            self._in_string = not self._in_string
        self._brackets(b"".join(outside))
        return self.deepest <= self.limit

    def _brackets(self, text: bytes) -> None:
        steps = np.frombuffer(text.translate(_STEP, _NOT_BRACKETS), dtype=np.int8)
        if not len(steps):
            return
        depths = np.cumsum(steps, dtype=np.int64)
        self.deepest = max(self.deepest, self.depth + int(depths.max()))
        self.depth += int(depths[-1])
