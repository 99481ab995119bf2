"""`lattice-desktop grade-batch SUBMISSION... --case CASE`: grade a field on a dask cluster."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO, cast

from lattice_desktop.batch.cluster import cluster_grader
from lattice_desktop.batch.cluster_security import TlsFiles, exposure_warning
from lattice_desktop.batch.driver import BatchResult
from lattice_desktop.batch.field import find_submissions
from lattice_desktop.batch.summary import summarize
from lattice_desktop.cli.batch_text import ProgressPrinter, summary_lines
from lattice_desktop.cli.ci_reports import add_junit_option, add_markdown_option, check_writable, write_report
from lattice_desktop.cli.common import (
    EXIT_INTERNAL,
    add_build_options,
    add_db_option,
    err,
    open_storage,
    positive_int,
)
from lattice_desktop.cli.terminal import ReaderSafeStream, SafeStream
from lattice_desktop.errors import UserError
from lattice_desktop.grading.report_json import report_to_dict
from lattice_desktop.manifest import load_case
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.manifest.case_identity import identify_case
from lattice_desktop.outcomes import Verdict
from lattice_desktop.resources import resolve_case_path
from lattice_desktop.services.exports.graded_runs import GradedRun, from_report, from_stored
from lattice_desktop.services.exports.junit import junit_xml
from lattice_desktop.services.exports.markdown import batch_markdown
from lattice_desktop.store.field import standing
from lattice_desktop.store.queries import load_run
from lattice_desktop.work import Work


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "grade-batch",
        help="grade many submissions on a dask cluster (local or remote)",
        description="Grade every submission (a folder of submission folders counts as all of them) "
        "against one case, spread over worker processes: a local cluster, or an existing one "
        "started with `dask scheduler` and `dask worker`. Runs already stored for the same module, "
        "case content and wasmtime version are skipped. Exit code: 0 all graded, 1 some "
        "submissions could not be read, 2 usage error (a --scheduler that does not greet as a dask "
        "scheduler within 5 s included), 4 internal error, 130 cancelled.",
    )
    p.add_argument(
        "submissions",
        nargs="+",
        metavar="SUBMISSION",
        help="submission folders, or folders holding submission folders",
    )
    p.add_argument("--case", required=True, help="case manifest, its folder, or a bundled case name")
    p.add_argument(
        "--scheduler",
        metavar="tls://HOST:PORT",
        help="an existing dask scheduler (default: start a local cluster, TLS with fresh credentials)",
    )
    p.add_argument("--tls-ca-file", metavar="PEM", help="CA certificate of the --scheduler's TLS cluster")
    p.add_argument(
        "--tls-cert", metavar="PEM", help="this client's certificate for the --scheduler's TLS cluster"
    )
    p.add_argument("--tls-key", metavar="PEM", help="this client's private key (when not in --tls-cert)")
    p.add_argument(
        "--workers", type=positive_int, default=2, help="worker processes of the local cluster (default 2)"
    )
    add_build_options(p)
    p.add_argument("--regrade", action="store_true", help="grade again runs that are already stored")
    p.add_argument("--json", action="store_true", help="print every run and a summary as JSON on stdout")
    add_junit_option(p)
    add_markdown_option(p)
    add_db_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    case = load_case(resolve_case_path(args.case))
    check_writable(args.junit, args.markdown)
    grade_on_cluster = cluster_grader()
    tls = TlsFiles(args.tls_ca_file, args.tls_cert, args.tls_key)
    if args.scheduler is None and tls.given:
        raise UserError(
            "--tls-ca-file, --tls-cert and --tls-key are for an existing cluster: give --scheduler"
        )
    warning = exposure_warning(args.scheduler) if args.scheduler else None
    if warning:
        err(warning)
    submissions, problems = find_submissions(args.submissions)
    writer = open_storage(args)
    # The bar redraws itself with a carriage return, which the escaping stream would spell
    # out; the printer escapes the submissions' own text itself.
    stderr = sys.stderr.unescaped if isinstance(sys.stderr, SafeStream) else ReaderSafeStream(sys.stderr)
    printer = ProgressPrinter(cast(TextIO, stderr))  # a stream by its duck type
    for problem in problems:
        printer.problem(problem)
    try:
        result = grade_on_cluster(
            case,
            submissions,
            scheduler=args.scheduler,
            workers=args.workers,
            tls=tls,
            writer=writer,
            allow_build=args.build,
            regrade=args.regrade,
            allow_unisolated=args.allow_unisolated_build,
            work=Work(printer),
        )
    finally:
        printer.close()
        writer.close()
    result.problems[:0] = problems
    summary = summarize(case, result, stored=True)
    _write_ci_reports(args, case, result)
    if args.json:
        json.dump(
            {
                "runs": [_run_dict(r) for r in result.runs],
                "summary": summary.to_dict(),
                "already_stored": [
                    {"submission": str(s.folder), "run_id": run.run_id, "verdict": run.verdict.value}
                    for s, run in result.skipped
                ],
                "problems": [{"path": p.path, "message": p.message} for p in result.problems],
            },
            sys.stdout,
            indent=2,
        )
        sys.stdout.write("\n")
    else:
        for line in summary_lines(case, summary):
            print(line)
    return _exit_code(result)


def _write_ci_reports(args: argparse.Namespace, case: CaseManifest, result: BatchResult) -> None:
    """--junit and --markdown: a suite (a row) per submission, the runs already stored too."""
    if not (args.junit or args.markdown):
        return
    runs: list[GradedRun] = [
        from_report(r.report, run_id=r.run_id, standing=None if r.run_id is None else standing(r.run_id))
        for r in result.runs
    ]
    for submission, already in result.skipped:
        stored = load_run(already.run_id)
        if stored is not None:  # deleted since the batch began: nothing to report
            runs.append(from_stored(stored, submission=submission.name, standing=standing(stored.id)))
    if args.junit:
        located = [(p.path, p.describe()) for p in result.problems]
        text = junit_xml(runs, name=f"lattice-desktop grade-batch · {case.name}", problems=located)
        write_report(args.junit, text, kind="junit", what="the JUnit report")
    if args.markdown:
        text = batch_markdown(
            runs, case_label=identify_case(case).label, problems=[p.describe() for p in result.problems]
        )
        write_report(args.markdown, text, kind="markdown", what="the Markdown summary")


def _run_dict(finished) -> dict:
    data = report_to_dict(finished.report)
    data["run_id"] = finished.run_id
    place = standing(finished.run_id) if finished.run_id is not None else None
    data["standing"] = (
        None
        if place is None
        else {
            "rank": place.rank,
            "of": place.of,
            "percentile": place.percentile,
        }
    )
    return data


def _exit_code(result: BatchResult) -> int:
    if any(r.report.verdict is Verdict.INTERNAL_ERROR for r in result.runs):
        return EXIT_INTERNAL
    return 1 if result.problems else 0
