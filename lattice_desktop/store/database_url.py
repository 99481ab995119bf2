"""Database URLs (`postgresql://user:pw@host:port/db?sslmode=…`): read as psql reads them, and
named to the user without their secrets.

A password may stand in the URL's user part or as a `password=` query parameter; both are
percent-decoded (`p%40ss%3Aw%2Frd` is `p@ss:w/rd`, as psql takes it), and neither ever
appears in a message, a location or the status bar: `describe` shows `***` in its place and
`scrub` takes it out of any text a driver gives back.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from peewee import Database
from playhouse.db_url import connect, schemes

from lattice_desktop.errors import Location, StorageError

SECRET_PARAMETERS = ("password", "sslpassword")
HIDDEN = "***"


def describe(target: str) -> str:
    """How the database is named to the user: a path as it is, a URL without its secrets."""
    if "://" not in target:
        return target
    try:
        parts = urlsplit(target)
    except ValueError:
        return target.split("://", 1)[0] + "://…"  # not even a URL: show nothing of it
    netloc = parts.netloc.rsplit("@", 1)[-1]
    if parts.username:
        netloc = f"{parts.username}{':' + HIDDEN if parts.password is not None else ''}@{netloc}"
    query = [
        (key, HIDDEN if key.lower() in SECRET_PARAMETERS else value)
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
    ]
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(query, safe="*"), ""))


def secrets_of(target: str) -> list[str]:
    """Every spelling of every secret in `target` (as written and decoded), longest first."""
    if "://" not in target:
        return []
    try:
        parts = urlsplit(target)
    except ValueError:
        return [target.split("://", 1)[1]]
    found = []
    if parts.password:
        found += [parts.password, unquote(parts.password)]
    raw_query = [pair.split("=", 1) for pair in parts.query.split("&") if "=" in pair]
    for key, value in raw_query:
        if unquote(key).lower() in SECRET_PARAMETERS and value:
            found += [value, unquote(value.replace("+", " "))]
    return sorted({s for s in found if s}, key=len, reverse=True)


def scrub(text: str, target: str) -> str:
    """`text` (a driver's message) with every secret of `target` replaced by `***`."""
    for secret in secrets_of(target):
        text = text.replace(secret, HIDDEN)
    return text


def connect_url(target: str) -> Database:
    """The (not yet connected) database a URL names; a mistake in it is a StorageError."""
    where = Location(describe(target))
    try:
        parts = urlsplit(target)
        parts.port  # noqa: B018 (reading it checks it)
    except ValueError as exc:
        reason = "is not a number" if "integer" in str(exc) else "is not from 0 to 65535"
        raise StorageError(f"the port in the database URL {reason}", where) from None
    if parts.scheme not in schemes:
        raise StorageError(
            f"unknown kind of database {parts.scheme!r}: use a file path or a postgresql:// URL", where
        )
    if not parts.path.strip("/"):
        raise StorageError("the database URL names no database (postgresql://host/DBNAME)", where)
    options = {}
    kept = []
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key.lower() in SECRET_PARAMETERS:
            options[key.lower()] = value  # decoded, and kept text (never read as a number)
        else:
            kept.append((key, value))
    url = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(kept), ""))
    try:
        db: Database = connect(url, unquote_password=True, unquote_user=True, **options)
    except (ValueError, RuntimeError, ImportError) as exc:
        raise StorageError(scrub(str(exc), target), where) from None
    return db
