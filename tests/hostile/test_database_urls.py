"""PostgreSQL URLs: a password, in the user part or as `?password=`, is never echoed in an
error or shown as the database's name; percent-encoded passwords are decoded as psql does; a
bad port or scheme is a clear error, not a traceback."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.errors import StorageError
from lattice_desktop.store.database import describe, open_database
from lattice_desktop.store.database_url import connect_url
from lattice_desktop.store.schema import Run
from tests.leak_check import system_temp_root

PASSWORD = "p@ss:w/rd"
ENCODED = "p%40ss%3Aw%2Frd"
SECRET = "s3cret-Hunter2"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://ada:{SECRET}@db.example:5432/runs",
        f"postgresql://ada@db.example:5432/runs?password={SECRET}&sslmode=require",
        f"postgresql://db.example/runs?sslpassword={SECRET}",
    ],
)
def test_the_name_shown_for_a_url_holds_no_password(url):
    shown = describe(url)
    assert SECRET not in shown
    assert "***" in shown and "db.example" in shown and "/runs" in shown


@pytest.mark.parametrize(
    "url",
    [f"postgresql://ada:{ENCODED}@db.example/runs", f"postgresql://ada@db.example/runs?password={ENCODED}"],
)
def test_a_percent_encoded_password_is_decoded(url):
    db = connect_url(url)
    assert db.connect_params["password"] == PASSWORD
    assert db.connect_params["user"] == "ada" and db.database == "runs"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://ada@db.example:notaport/runs", "the port in the database URL is not a number"),
        ("postgresql://ada@db.example:99999/runs", "the port in the database URL is not from 0 to 65535"),
        ("postgresql://db.example", "names no database"),
        ("mongodb://db.example/runs", "unknown kind of database 'mongodb'"),
    ],
)
def test_a_bad_url_is_a_clear_error(url, message, capsys):
    with pytest.raises(StorageError, match=message):
        open_database(url + f"?password={SECRET}")
    assert main(["runs", "--db", url + f"?password={SECRET}"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and SECRET not in err


def test_a_refused_connection_does_not_echo_the_password(capsys):
    url = f"postgresql://ada@127.0.0.1:{free_port()}/runs?password={SECRET}"
    assert main(["runs", "--db", url]) == 2
    err = capsys.readouterr().err
    assert "127.0.0.1" in err and SECRET not in err and "Traceback" not in err


@pytest.fixture(scope="module")
def password_server():
    """A PostgreSQL server of its own that checks passwords (scram), the superuser's being
    PASSWORD; .ci/postgres.sh's server trusts every local login, so it cannot tell."""
    initdb = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not initdb or shutil.which("su") is None:
        pytest.skip("needs the PostgreSQL server binaries (.ci/postgres.sh installs them)")
    bin_dir = os.path.dirname(initdb[-1])
    # In the system's temp root: the server runs as `postgres`, which cannot enter pytest's
    # folders (and its socket's path must stay short).
    data = tempfile.mkdtemp(prefix="lattice-pg-pw.", dir=system_temp_root())
    shutil.chown(data, "postgres")
    pwfile = os.path.join(data, "pw")
    with open(pwfile, "w") as f:
        f.write(PASSWORD + "\n")
    shutil.chown(pwfile, "postgres")
    cluster = os.path.join(data, "db")
    port = free_port()

    def as_postgres(command: str) -> None:
        subprocess.run(["su", "postgres", "-c", command], check=True, capture_output=True, timeout=120)

    as_postgres(f"{bin_dir}/initdb -D '{cluster}' -U postgres -A scram-sha-256 --pwfile='{pwfile}'")
    as_postgres(
        f"{bin_dir}/pg_ctl -D '{cluster}' -w -l '{data}/log' "
        f"-o \"-p {port} -k '{data}' -c listen_addresses=127.0.0.1 -c fsync=off\" start"
    )
    try:
        yield port
    finally:
        as_postgres(f"{bin_dir}/pg_ctl -D '{cluster}' stop -m fast")
        shutil.rmtree(data, ignore_errors=True)


@pytest.mark.postgres
@pytest.mark.parametrize("form", ["user part", "query"])
def test_a_percent_encoded_password_logs_in_where_psql_does(password_server, form, capsys):
    host = f"127.0.0.1:{password_server}"
    if form == "user part":
        url = f"postgresql://postgres:{ENCODED}@{host}/postgres"
    else:
        url = f"postgresql://postgres@{host}/postgres?password={ENCODED}"
    try:
        assert main(["runs", "--db", url]) == 0, capsys.readouterr().err
        wrong = url.replace(ENCODED, SECRET)
        assert main(["runs", "--db", wrong]) == 2
        err = capsys.readouterr().err
        assert "password authentication failed" in err and SECRET not in err
    finally:
        Run._meta.database.close()
