"""Who may talk to a batch's cluster: only processes holding its TLS credentials.

A dask scheduler runs whatever function a connected client sends it, in every worker, with
the workers' rights. A plain `tcp://` scheduler therefore lets any process that can reach
its port (another local user, anyone on the network) run code as the grader and rewrite
verdicts. The local cluster of a batch is always TLS with credentials made for it in
memory (`Security.temporary()`): a self-signed certificate that every peer must present, so a
process without it cannot join as a worker nor connect as a client. An existing cluster is
reached with the TLS files its operator gives (`--tls-ca-file`, `--tls-cert`, `--tls-key`,
or dask's own `distributed.comm.tls` configuration); a plain address that other machines can
reach is allowed, because a trusted private network may want it, but never quietly.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lattice_desktop.errors import UserError

if TYPE_CHECKING:  # dask is imported only where a cluster is made (the batch core runs without it)
    from distributed.security import Security


@dataclass(frozen=True)
class TlsFiles:
    """The PEM files a client presents to an existing TLS cluster (as `dask scheduler` takes them)."""

    ca_file: str | None = None
    cert: str | None = None
    key: str | None = None

    @property
    def given(self) -> bool:
        return any((self.ca_file, self.cert, self.key))


def local_security() -> Security:
    """Fresh credentials for one local cluster: its scheduler, workers and client share them."""
    from distributed.security import Security

    try:
        return Security.temporary()
    except ImportError:
        raise UserError(
            "the local cluster's TLS needs the `cryptography` package, which is missing from this "
            "Python environment: pip install 'cryptography>=42' (or reinstall: pip install -e .)"
        ) from None


def remote_security(address: str, tls: TlsFiles) -> Security | None:
    """The client's side of `address`: TLS from `tls` or dask's configuration, or None for tcp."""
    if not tls.given:
        return None  # dask's configuration (distributed.comm.tls.*) applies, as for any client
    if not address.startswith("tls://"):
        raise UserError(
            f"--tls-ca-file, --tls-cert and --tls-key need a tls:// scheduler address, not {address}"
        )
    missing = [
        name for name, value in (("--tls-ca-file", tls.ca_file), ("--tls-cert", tls.cert)) if not value
    ]
    if missing:
        raise UserError(f"a TLS scheduler needs {' and '.join(missing)} as well")
    for option, value in (("--tls-ca-file", tls.ca_file), ("--tls-cert", tls.cert), ("--tls-key", tls.key)):
        if value and not Path(value).is_file():
            raise UserError(f"{option}: {value}: no such file")
    from distributed.security import Security

    return Security(
        tls_ca_file=tls.ca_file,
        tls_client_cert=tls.cert,
        tls_client_key=tls.key,
        require_encryption=True,
    )


def exposure_warning(address: str) -> str | None:
    """A loud warning when `address` is an unencrypted scheduler another machine can reach."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address  # dask reads a bare HOST:PORT as tcp
    if scheme != "tcp":
        return None
    host = rest.rsplit(":", 1)[0].strip("[]") if ":" in rest else rest
    if _is_loopback(host):
        return None
    return (
        f"WARNING: {address} is an unencrypted scheduler on a network address. Anyone who can "
        "reach it can join it and run code as the grader and its workers, and forge any verdict "
        "of this batch. Use a tls:// scheduler with --tls-ca-file/--tls-cert/--tls-key."
    )


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False  # unresolvable here: assume it is somewhere else
    return bool(infos) and all(ipaddress.ip_address(info[4][0]).is_loopback for info in infos)
