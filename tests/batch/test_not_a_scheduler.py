"""`grade-batch --scheduler` pointed at a server that is not a dask scheduler is a usage error
(exit 2) naming the address, after a bounded wait and with bounded memory. `distributed` read
the first eight bytes of any answer as a message length: an HTTP reply made it try to allocate
3.07 EiB (exit 4), a large claim it would fill from the server, and a silent server kept it
waiting past its connect timeout."""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from lattice_desktop.batch.scheduler_probe import MAX_GREETING
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
PEAK_RSS_BOUND = 200 * 1024 * 1024  # the CLI alone peaks under 100 MiB
FLOOD = 256 * 1024 * 1024  # a claimed length distributed would allocate and fill


def send_garbage(conn: socket.socket) -> None:
    conn.sendall(os.urandom(4096))


def send_http(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi")


def stay_silent(conn: socket.socket) -> None:
    return None


def flood(conn: socket.socket) -> None:
    """A well-formed length of 256 MiB, then as many bytes as the client takes."""
    conn.sendall(struct.pack("<Q", FLOOD))
    chunk = bytes(1024 * 1024)
    for _ in range(FLOOD // len(chunk)):
        conn.sendall(chunk)


SERVERS = {"garbage": send_garbage, "http": send_http, "silent": stay_silent, "flood": flood}


@contextmanager
def loopback_server(answer: Callable[[socket.socket], None]) -> Iterator[int]:
    """A TCP server on 127.0.0.1 that runs `answer` on each connection, then holds it open
    until the test ends; yields its port."""
    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not done.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)
            threading.Thread(target=_answer, args=(answer, conn), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        done.set()
        listener.close()
        for conn in held:
            conn.close()


def _answer(answer: Callable[[socket.socket], None], conn: socket.socket) -> None:
    with contextlib.suppress(OSError):  # the client hung up, as it should
        answer(conn)


# Runs the command given in argv as its only child and prints that child's peak RSS (KiB on
# Linux): RUSAGE_CHILDREN of a fresh process counts nothing else.
MEASURED = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=sys.stderr)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(done.returncode)
"""


def grade_batch(tmp_path: Path, *extra: str) -> tuple[int, str, int]:
    """`grade-batch` in a child process: its exit status, stderr, and peak RSS in bytes."""
    case = write_case(tmp_path / "case", ECHO_CASES)
    submission = write_submission(tmp_path / "sub", ECHO)
    command = [sys.executable, "-m", "lattice_desktop", "grade-batch", str(submission), "--case", str(case)]
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, *command, *extra],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard only: the probe gives up after 5 s
        check=False,
    )
    return done.returncode, done.stderr, int(done.stdout) * 1024


@pytest.mark.parametrize("kind", SERVERS)
def test_a_server_that_is_not_a_scheduler_is_a_usage_error(kind, tmp_path):
    with loopback_server(SERVERS[kind]) as port:
        address = f"tcp://127.0.0.1:{port}"
        status, stderr, peak = grade_batch(tmp_path, "--scheduler", address)
    assert status == 2, stderr
    assert address in stderr
    assert "not a dask scheduler" in stderr or "did not greet as a dask scheduler" in stderr
    assert "internal error" not in stderr and "Traceback" not in stderr
    assert peak < PEAK_RSS_BOUND, f"peak RSS {peak / 2**20:.0f} MiB"


def test_an_http_server_is_named_as_such(tmp_path):
    with loopback_server(send_http) as port:
        status, stderr, _ = grade_batch(tmp_path, "--scheduler", f"tcp://127.0.0.1:{port}")
    assert status == 2
    assert "it speaks HTTP" in stderr


@pytest.mark.parametrize("kind", ["http", "silent"])
def test_a_tls_address_that_is_not_a_scheduler_is_a_usage_error(kind, tmp_path):
    from distributed.security import Security

    credentials = Security.temporary()
    files = pem_files(tmp_path, ca=credentials.tls_ca_file, cert=credentials.tls_client_cert)
    files += pem_files(tmp_path, key=credentials.tls_client_key)
    with loopback_server(SERVERS[kind]) as port:
        address = f"tls://127.0.0.1:{port}"
        status, stderr, peak = grade_batch(tmp_path, "--scheduler", address, *files)
    assert status == 2, stderr
    assert address in stderr and "Traceback" not in stderr
    assert peak < PEAK_RSS_BOUND


def test_a_certificate_without_its_key_is_a_usage_error(tmp_path):
    from distributed.security import Security

    credentials = Security.temporary()
    files = pem_files(tmp_path, ca=credentials.tls_ca_file, cert=credentials.tls_client_cert)
    with loopback_server(send_http) as port:
        address = f"tls://127.0.0.1:{port}"
        status, stderr, _ = grade_batch(tmp_path, "--scheduler", address, *files)
    assert status == 2, stderr
    assert f"cannot use the TLS files for {address}" in stderr


def pem_files(folder: Path, **pems: str) -> list[str]:
    """Each PEM text written to a file, as `--tls-NAME FILE` options."""
    options = []
    for name, pem in pems.items():
        path = folder / f"{name}.pem"
        path.write_text(pem)
        options += [f"--tls-{'ca-file' if name == 'ca' else name}", str(path)]
    return options


def test_a_real_scheduler_passes_the_probe(client):
    """The local cluster's own TLS scheduler greets as dask's schedulers do."""
    from distributed.comm.addressing import parse_address, parse_host_port

    from lattice_desktop.batch.scheduler_probe import check_scheduler

    address = client.scheduler.address
    host, port = parse_host_port(parse_address(address)[1])
    context = client.security.get_connection_args("client")["ssl_context"]
    check_scheduler(address, host, int(port), ssl_context=context)  # raises if it does not


def test_a_greeting_is_far_below_the_bound(client):
    """The bound leaves a real greeting room: read one and compare."""
    from distributed.comm.addressing import parse_address, parse_host_port

    host, port = parse_host_port(parse_address(client.scheduler.address)[1])
    context = client.security.get_connection_args("client")["ssl_context"]
    with socket.create_connection((host, int(port)), timeout=10) as raw, context.wrap_socket(raw) as stream:
        (length,) = struct.unpack("<Q", stream.recv(8))
    assert 0 < length < MAX_GREETING // 100
