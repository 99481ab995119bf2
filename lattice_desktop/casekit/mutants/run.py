"""A mutation run: judge every mutant of a subject (or a sample of them), in one process
or two, keeping each verdict in a results file as it comes so that a stopped run picks up
where it stopped.

The results file is JSON lines: a header naming the case's content, the reference's
sources and the generated inputs, then one verdict per line keyed by the mutant's hash.
A header that does not match the run (the case, its reference or its inputs changed)
starts the file afresh. Cancel (the Work's) stops handing out mutants; the ones being
judged finish, and everything judged so far is kept.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path

import platformdirs

from lattice_desktop.casekit.mutants.judge import Setup, Verdict, judge, reference_setup
from lattice_desktop.casekit.mutants.operators import Mutant
from lattice_desktop.casekit.mutants.subject import Subject
from lattice_desktop.errors import Cancelled
from lattice_desktop.work import Work


@dataclass(frozen=True)
class MutationRun:
    subject: Subject
    mutants: tuple[Mutant, ...]  # those this run covers (all, or the --limit sample)
    total: int  # every mutant the subject has
    verdicts: dict[str, Verdict]  # by key; fewer than `mutants` when stopped
    samples: int  # generated inputs a surviving mutant is compared on
    results: Path

    @property
    def complete(self) -> bool:
        return all(m.key in self.verdicts for m in self.mutants)


def default_results(subject: Subject) -> Path:
    case = subject.case
    name = f"{case.name}-{case.version}-{case.manifest_hash[:12]}.jsonl"
    return Path(platformdirs.user_data_dir("lattice-desktop")) / "mutants" / name


def chosen(mutants: list[Mutant], limit: int | None) -> list[Mutant]:
    """The declared mutants, then the rest in the order of their keys (a hash, so the first
    N are a spread sample of every operator and function, the same in every run)."""
    declared = [m for m in mutants if m.operator == "declared"]
    rest = sorted((m for m in mutants if m.operator != "declared"), key=lambda m: m.key)
    picked = declared + rest
    return picked if limit is None else picked[:limit]


def run_mutants(
    subject: Subject,
    *,
    limit: int | None = None,
    workers: int = 1,
    results: Path | None = None,
    work: Work | None = None,
    each: Callable[[Mutant, Verdict], None] = lambda _m, _v: None,
) -> MutationRun:
    work = work or Work()
    results = results or default_results(subject)
    sources = subject.sources()
    everything = subject.mutants()
    mutants = chosen(everything, limit)
    samples = subject.samples(subject.sample_count)
    header = {
        "case": subject.case.manifest_hash,
        "reference": _digest(json.dumps(sources, sort_keys=True).encode()),
        "samples": _digest(b"".join(_digest(s).encode() for s in samples)),
    }
    verdicts = _load(results, header)
    pending = [m for m in mutants if m.key not in verdicts]
    stopped = MutationRun(subject, tuple(mutants), len(everything), verdicts, len(samples), results)
    try:
        setup = reference_setup(subject.case, subject.reference, sources, samples, work)
    except Cancelled:
        return stopped
    with _Appender(results, header, fresh=not verdicts) as out:

        def record(m: Mutant, v: Verdict) -> None:
            verdicts[m.key] = v
            out.add(v)
            each(m, v)

        try:
            if workers <= 1:
                for m in pending:
                    work.raise_if_cancelled()
                    record(m, judge(setup, m, sources, work))
            else:
                _in_processes(setup, sources, pending, workers, work, record)
        except Cancelled:
            pass
    return stopped


def _in_processes(
    setup: Setup,
    sources: dict[str, str],
    pending: list[Mutant],
    workers: int,
    work: Work,
    record: Callable[[Mutant, Verdict], None],
) -> None:
    context = multiprocessing.get_context("spawn")  # wasmtime's threads do not survive a fork
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        todo = list(reversed(pending))
        running: dict[Future[Verdict], Mutant] = {}
        while todo or running:
            while todo and len(running) < workers and not work.cancelled:
                m = todo.pop()
                running[pool.submit(judge, setup, m, sources)] = m
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                record(running.pop(future), future.result())
        work.raise_if_cancelled()


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _load(path: Path, header: dict[str, str]) -> dict[str, Verdict]:
    if not path.is_file():
        return {}
    lines = path.read_text().splitlines()
    if not lines or json.loads(lines[0]) != {"header": header}:
        return {}
    out = {}
    for line in lines[1:]:
        try:
            raw = json.loads(line)
        except json.JSONDecodeError:  # a line cut short when a run was killed mid-write
            continue
        raw["smoke"] = tuple(raw["smoke"])
        out[raw["key"]] = Verdict(**raw)
    return out


class _Appender:
    def __init__(self, path: Path, header: dict[str, str], *, fresh: bool) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if fresh:
            path.write_text(json.dumps({"header": header}) + "\n")
        self._file = path.open("a")

    def __enter__(self) -> _Appender:
        return self

    def add(self, verdict: Verdict) -> None:
        self._file.write(json.dumps(asdict(verdict)) + "\n")
        self._file.flush()

    def __exit__(self, *exc: object) -> None:
        self._file.close()
