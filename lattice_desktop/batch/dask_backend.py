"""The batch on a `distributed` cluster: a local cluster of worker processes, or an existing
one (`dask scheduler` and `dask worker`). The only module of the batch that imports dask
(`cluster_security` does too, when it makes credentials).

Module bytes and case entries go to the cluster once each, under their content hash, and
each worker fetches a value once and keeps it while the batch needs it.

The local cluster speaks TLS with credentials made for it (`cluster_security`): no other
process can join it or submit to it. Nor does it serve anything over HTTP: a dask scheduler
and each worker start an HTTP server beside their comm port whatever the dashboard options say
(`LocalCluster(dashboard_address=None)` still listens on a loopback port, and an empty route
list serves 404s from it), and its pages (`/info/main/logs.html`, `/json/identity.json`, call
stacks, metrics) are plain HTTP that any local user could read. Its nodes here never start
that server, and `LocalCluster`, which names its scheduler class itself, gives way to the
`SpecCluster` it is made of. `tests/batch/test_cluster_ports.py` checks that every port the
cluster opens is a TLS comm port, so a dask release that starts another server is caught.

The scheduler reruns a job whose worker died on another worker (up to its
`allowed-failures`); a job that returns — whatever the submission did — is never rerun.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from multiprocessing import resource_tracker
from typing import Any

import dask
from distributed import Client, Future, Nanny, Scheduler, SpecCluster, Worker, as_completed
from distributed.comm.addressing import parse_address, parse_host_port
from distributed.security import Security
from distributed.worker_memory import parse_memory_limit

from lattice_desktop.batch.backend import Done
from lattice_desktop.batch.cluster_security import TlsFiles, local_security, remote_security
from lattice_desktop.batch.driver import BatchResult, grade_batch
from lattice_desktop.batch.scheduler_probe import check_scheduler
from lattice_desktop.batch.worker import cancel_batch, hold, run_jobs
from lattice_desktop.errors import UserError
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.manifest.submission import Submission

CONNECT_TIMEOUT = "20s"
_LOGGER = logging.getLogger(__name__)
DEFAULT_SCHEDULER_PORT = 8786  # what `dask scheduler` listens on, and what a bare host means


@contextmanager
def open_cluster(
    scheduler: str | None = None, *, workers: int = 2, tls: TlsFiles | None = None
) -> Iterator[Client]:
    """A client of the cluster at `scheduler` (with `tls` files for a tls:// one), or of a new
    local one with `workers` processes that only holders of its fresh credentials can reach."""
    if scheduler:
        security = remote_security(scheduler, tls or TlsFiles())
        _check_scheduler(scheduler, security)
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT, security=security)
        except (OSError, ValueError, TypeError, MemoryError) as exc:  # unreachable, refused, no TLS…
            raise UserError(f"cannot reach the dask scheduler at {scheduler}: {exc}") from None
        with client:
            yield client
        return
    security = local_security()
    _local_clusters.opened()
    try:
        with (
            local_cluster(workers=workers, security=security) as cluster,
            Client(cluster, security=security) as client,
        ):
            yield client
    finally:
        _local_clusters.closed()


class _NoHttpServer:
    """Mixed into a dask node: its HTTP server is never made, so it listens on no port.

    Nothing else in the node needs it: the dashboard is off, and `stop_services` looks for the
    server's application with `hasattr`."""

    def start_http_server(self, *args: Any, **kwargs: Any) -> None:
        return None


class QuietScheduler(_NoHttpServer, Scheduler):
    """A scheduler with its comm port only."""


class QuietWorker(_NoHttpServer, Worker):
    """A worker with its comm port only (its nanny starts it by reference, in a new process)."""


def local_cluster(*, workers: int, security: Security) -> SpecCluster:
    """A started cluster of `workers` single-threaded worker processes on 127.0.0.1, every port
    chosen free and TLS with `security`, as `LocalCluster` would make it but without HTTP."""
    node: dict[str, Any] = {
        "host": "127.0.0.1",
        "security": security,
        "protocol": "tls://",
        "dashboard": False,
        "dashboard_address": None,
    }
    scheduler = {"cls": QuietScheduler, "options": {**node, "port": 0}}
    worker = {
        "cls": Nanny,
        "options": {
            **node,
            "worker_class": QuietWorker,
            "nthreads": 1,
            "silence_logs": logging.ERROR,
            # LocalCluster's share: the machine's memory split between the workers.
            "memory_limit": parse_memory_limit("auto", 1, workers, logger=_LOGGER),
        },
    }
    return SpecCluster(
        scheduler=scheduler,
        workers=dict.fromkeys(range(workers), worker),
        worker=worker,
        silence_logs=logging.ERROR,
        security=security,
    )


def _check_scheduler(address: str, security: Security | None) -> None:
    """A `UserError` unless a dask scheduler greets at `address` (tcp or tls; other
    transports are left to distributed)."""
    try:
        scheme, location = parse_address(address, strict=False)
        host, port = parse_host_port(location, default_port=DEFAULT_SCHEDULER_PORT)
    except ValueError as exc:
        raise UserError(f"--scheduler {address}: {exc}") from None
    if scheme not in ("tcp", "tls"):
        return
    context = None
    if scheme == "tls":
        try:
            context = (security or Security()).get_connection_args("client").get("ssl_context")
        except (OSError, ValueError) as exc:  # ssl.SSLError: a file that is not the PEM it should be
            raise UserError(f"cannot use the TLS files for {address}: {exc}") from None
    check_scheduler(address, host, int(port), ssl_context=context)


class _LocalClusterCount:
    """How many local clusters this process has open, so that the last one to close stops
    the resource tracker (threads may open and close clusters at once)."""

    def __init__(self) -> None:
        self._open = 0
        self._lock = threading.Lock()

    def opened(self) -> None:
        with self._lock:
            self._open += 1

    def closed(self) -> None:
        with self._lock:
            self._open -= 1
            if not self._open:
                _stop_resource_tracker()


_local_clusters = _LocalClusterCount()


def _stop_resource_tracker() -> None:
    """End the helper process `multiprocessing` starts with the first worker process: it
    would otherwise outlive the clusters for as long as this process runs (the app). Only
    once the last local cluster is closed: the helper waits until no worker holds its pipe.
    The next local cluster starts it again."""
    tracker = resource_tracker._resource_tracker
    if hasattr(tracker, "_stop"):
        tracker._stop()


def grade_on_cluster(
    case: CaseManifest,
    submissions: list[Submission],
    *,
    scheduler: str | None = None,
    workers: int = 2,
    tls: TlsFiles | None = None,
    **options: Any,
) -> BatchResult:
    """`grade_batch` on the cluster at `scheduler`, or on a local one for the batch's length."""
    if not submissions:  # nothing to grade: no cluster to start or reach
        return BatchResult()
    options.setdefault("started", time.monotonic())  # the cluster's start is the batch's time too
    with open_cluster(scheduler, workers=workers, tls=tls) as client:
        return grade_batch(case, submissions, backend=DaskBackend(client), **options)


class DaskBackend:
    """Jobs as futures of `client`; shared values scattered once under their content keys."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._done = as_completed(with_results=True, raise_errors=False)
        self._tags: dict[Hashable, Any] = {}  # by future key
        self._futures: dict[Hashable, Future] = {}

    def share(self, key: str, value: object) -> object:
        # A task rather than `scatter`: scattered data dies with the worker holding it, while
        # a task's result is rebuilt from the scheduler's copy when its worker is lost. Sending
        # a large input this way is the point (once, by hash), so dask need not warn of it.
        with dask.config.set({"distributed.admin.large-graph-warning-threshold": "2GiB"}):
            return self.client.submit(hold, value, key=key)

    def release(self, handle: object) -> None:
        if isinstance(handle, Future):
            handle.release()

    def submit(
        self,
        tag: object,
        batch_id: str,
        case: object,
        entries: list[object],
        module: object,
        *,
        priority: int,
    ) -> None:
        future = self.client.submit(run_jobs, batch_id, case, entries, module, priority=priority, pure=False)
        self._tags[future.key] = tag
        self._futures[future.key] = future
        self._done.add(future)

    def completed(self, timeout: float) -> list[Done]:
        ready = self._done.thread_condition  # notified each time a future finishes
        with ready:
            if not self._done.has_ready():
                ready.wait(timeout)
        batch = self._done.next_batch(block=False)
        finished: list[Done] = []
        for future, value in batch:
            tag = self._tags.pop(future.key)
            del self._futures[future.key]
            if future.status == "error":
                _type, exc, _tb = value
                finished.append((tag, exc))
            else:
                finished.append((tag, value))
        return finished

    def cancel(self, batch_id: str, wall_clock: float) -> None:
        futures = list(self._futures.values())
        self._done.clear()
        self._tags.clear()
        self._futures.clear()
        if futures:
            self.client.cancel(futures, force=True)
        # Queued jobs are dropped by the scheduler; running ones are stopped inside each worker.
        self.client.run(cancel_batch, batch_id, wall_clock, on_error="ignore")
