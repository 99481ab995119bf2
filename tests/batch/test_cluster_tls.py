"""The batch's local cluster admits only the grader: a second process that does not hold the
cluster's credentials can neither connect as a client nor run code in its workers, whether it
speaks plain tcp, TLS with no certificate, or TLS with a certificate of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lattice_desktop.batch.cluster_security import TlsFiles, exposure_warning, remote_security
from lattice_desktop.errors import UserError

ROOT = Path(__file__).resolve().parents[2]

# A second local process: connects to ADDRESS as a client and asks every worker to write MARK.
ATTACKER = """
import os, sys
from distributed import Client
from distributed.security import Security

how, mark = os.environ["HOW"], os.environ["MARK"]
address = os.environ["ADDRESS"]
if how == "plain":
    address, security = address.replace("tls://", "tcp://"), None
elif how == "no-certificate":
    security = None
elif how == "own-certificate":
    security = Security.temporary()
else:  # the cluster's own credentials: the control that shows the attack itself works
    security = Security(tls_ca_file=os.environ["CA"], tls_client_cert=os.environ["CERT"],
                        tls_client_key=os.environ["KEY"], require_encryption=True)
try:
    client = Client(address, security=security, timeout="5s")
    client.run(lambda: open(mark, "a").write("ran\\n"))
except Exception as exc:
    print("refused:", type(exc).__name__)
    sys.exit(0)
print("joined")
"""


def attack(address: str, how: str, mark: Path, **credentials: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOW": how, "ADDRESS": address, "MARK": str(mark)}
    env.update({name.upper(): value for name, value in credentials.items()})
    done = subprocess.run(
        [sys.executable, "-c", ATTACKER], check=False, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_process_without_the_credentials_is_refused(tmp_path):
    from lattice_desktop.batch.dask_backend import open_cluster

    with open_cluster(workers=1) as client:
        address = client.scheduler.address
        assert address.startswith("tls://127.0.0.1:")
        for how in ("plain", "no-certificate", "own-certificate"):
            mark = tmp_path / f"{how}.txt"
            assert attack(address, how, mark).startswith("refused"), how
            assert not mark.exists(), how
        # The same attacker holding the cluster's credentials gets in: the refusals above are
        # the credentials' doing, not a broken attacker.
        security = client.security
        mark = tmp_path / "holder.txt"
        outcome = attack(
            address,
            "holder",
            mark,
            ca=security.tls_ca_file,
            cert=security.tls_client_cert,
            key=security.tls_client_key,
        )
        assert outcome == "joined"
        assert mark.read_text() == "ran\n"


@pytest.mark.parametrize(
    "address",
    ["tcp://10.1.2.3:8786", "10.1.2.3:8786", "tcp://[2001:db8::1]:8786", "tcp://no-such-host.invalid:8786"],
)
def test_a_plain_scheduler_on_the_network_is_warned_about(address):
    warning = exposure_warning(address)
    assert warning is not None and address in warning and "unencrypted" in warning


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "tcp://[::1]:8786", "tls://10.1.2.3:8786"])
def test_loopback_or_tls_schedulers_are_not(address):
    assert exposure_warning(address) is None


def test_tls_files_are_checked_before_connecting(tmp_path):
    with pytest.raises(UserError, match="tls:// scheduler"):
        remote_security("tcp://10.1.2.3:8786", TlsFiles(ca_file="ca.pem", cert="me.pem"))
    with pytest.raises(UserError, match="--tls-cert"):
        remote_security("tls://10.1.2.3:8786", TlsFiles(ca_file="ca.pem"))
    with pytest.raises(UserError, match="no such file"):
        remote_security("tls://10.1.2.3:8786", TlsFiles(ca_file=str(tmp_path / "ca.pem"), cert="x"))
