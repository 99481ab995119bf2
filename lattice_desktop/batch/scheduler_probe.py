"""Is a dask scheduler listening at an address? Asked with a few bytes, in a few seconds,
before `distributed` is handed the address.

`distributed` trusts the first eight bytes a server sends as the length of a message and
allocates that much: an HTTP server's "HTTP/1.1" reads as 3.07 EiB (a MemoryError, reported as
a bug), random bytes as anything, and a server that accepts and stays silent keeps the client
waiting past its own connect timeout. A dask scheduler greets every connection at once with a
small handshake (a length, a frame count, frame lengths, then a msgpack map naming its Python
and pickle protocol). The probe reads at most `MAX_GREETING` bytes of it, all within
`PROBE_SECONDS`, and anything else is a `UserError` naming the address.
"""

from __future__ import annotations

import socket
import ssl
import struct
import time

from lattice_desktop.errors import UserError

PROBE_SECONDS = 5.0
MAX_GREETING = 64 * 1024  # a scheduler's greeting is under a hundred bytes
_WORD = struct.Struct("<Q")


def check_scheduler(address: str, host: str, port: int, *, ssl_context: ssl.SSLContext | None = None) -> None:
    """Return when the server at (`host`, `port`) greets like a dask scheduler (over TLS with
    `ssl_context`); otherwise a `UserError` naming `address` and what went wrong."""
    deadline = time.monotonic() + PROBE_SECONDS
    try:
        with socket.create_connection((host, port), timeout=PROBE_SECONDS) as raw:
            if ssl_context is None:
                greeting = _greeting(raw, address, deadline)
            else:
                with _wrapped(raw, ssl_context, host, deadline) as stream:
                    greeting = _greeting(stream, address, deadline)
    except TimeoutError:
        raise UserError(
            f"the server at {address} did not greet as a dask scheduler within {PROBE_SECONDS:g} s "
            "(is it a dask scheduler's address?)"
        ) from None
    except ssl.SSLError as exc:
        raise UserError(f"no TLS with the server at {address}: {exc.reason or exc}") from None
    except OSError as exc:
        raise UserError(f"cannot reach the dask scheduler at {address}: {exc.strerror or exc}") from None
    if not _is_handshake(greeting):
        raise UserError(f"the server at {address} is not a dask scheduler: its greeting is not dask's")


def _wrapped(raw: socket.socket, context: ssl.SSLContext, host: str, deadline: float) -> socket.socket:
    raw.settimeout(_left(deadline))
    hostname = host if context.check_hostname else None
    return context.wrap_socket(raw, server_hostname=hostname)


def _greeting(stream: socket.socket, address: str, deadline: float) -> bytes:
    """The body of the server's first message, refused before reading when it claims to be long."""
    head = _read(stream, _WORD.size, deadline)
    (length,) = _WORD.unpack(head)
    if not 0 < length <= MAX_GREETING:
        speaks = " (it speaks HTTP: a dashboard's port?)" if head.startswith(b"HTTP/") else ""
        raise UserError(
            f"the server at {address} is not a dask scheduler{speaks}: its first message claims "
            f"{length:,} bytes, where a scheduler's greeting has at most {MAX_GREETING:,}"
        )
    return _read(stream, length, deadline)


def _read(stream: socket.socket, size: int, deadline: float) -> bytes:
    """Exactly `size` bytes, all before `deadline` (a server that drips bytes gains nothing)."""
    data = bytearray()
    while len(data) < size:
        stream.settimeout(_left(deadline))
        chunk = stream.recv(size - len(data))
        if not chunk:
            raise ConnectionResetError(0, "the server closed the connection")
        data += chunk
    return bytes(data)


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


def _is_handshake(body: bytes) -> bool:
    """Whether `body` is dask's framing of one msgpack map with the keys a greeting carries."""
    import msgpack  # type: ignore[import-untyped]  # dask's wire format, wherever distributed is

    if len(body) < _WORD.size:
        return False
    (count,) = _WORD.unpack_from(body)
    start = _WORD.size * (1 + count)
    if not 1 <= count <= 16 or len(body) < start:
        return False
    lengths = [_WORD.unpack_from(body, _WORD.size * (1 + i))[0] for i in range(count)]
    if sum(lengths) != len(body) - start:
        return False
    try:
        greeting = msgpack.unpackb(body[start : start + lengths[0]], raw=False)
    except (ValueError, TypeError):  # msgpack's errors are ValueErrors
        return False
    return isinstance(greeting, dict) and "pickle-protocol" in greeting
