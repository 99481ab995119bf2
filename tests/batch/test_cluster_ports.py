"""The batch's local cluster shows nothing to anyone else: the only ports it listens on are its
TLS comm ports (the scheduler's, each nanny's and each worker's), and none of them answers
HTTP. The scheduler and the workers used to serve plain-HTTP pages beside them (logs,
`/json/identity.json`, call stacks, metrics) that any local user could read."""

from __future__ import annotations

import socket

import psutil
import pytest

pytest.importorskip("distributed")

REQUEST = b"GET /json/identity.json HTTP/1.0\r\nHost: localhost\r\n\r\n"


def listening_ports() -> set[int]:
    """The TCP ports this process and its children (the worker processes) listen on."""
    me = psutil.Process()
    ports = set()
    for process in [me, *me.children(recursive=True)]:
        for connection in process.net_connections(kind="inet"):
            if connection.status == psutil.CONN_LISTEN:
                ports.add(connection.laddr.port)
    return ports


def comm_ports(client) -> set[int]:
    """The ports of the cluster's TLS comms, as the scheduler names them."""
    info = client.scheduler_info(n_workers=-1)
    addresses = [info["address"]]
    for address, worker in info["workers"].items():
        addresses += [address, worker["nanny"]]
    assert all(address.startswith("tls://127.0.0.1:") for address in addresses), addresses
    return {int(address.rsplit(":", 1)[1]) for address in addresses}


def first_answer(port: int) -> bytes:
    """What the server on `port` answers to an HTTP request (b"" when it hangs up)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(REQUEST)
        try:
            return s.recv(64)
        except (ConnectionResetError, TimeoutError):
            return b""


def test_the_cluster_listens_only_on_its_tls_comm_ports(client):
    expected = comm_ports(client)
    assert len(expected) == 5  # a scheduler, two nannies, two workers
    assert listening_ports() == expected


def test_no_port_of_the_cluster_answers_http(client):
    ports = listening_ports()
    assert ports
    answers = {port: first_answer(port) for port in ports}
    assert not [port for port, answer in answers.items() if answer.startswith(b"HTTP/")], answers
