"""`lattice-desktop grade SUBMISSION --case MANIFEST`: grade, store, print."""

from __future__ import annotations

import argparse
import json
import sys

from lattice_desktop.cli.ci_reports import add_junit_option, add_markdown_option, check_writable, write_report
from lattice_desktop.cli.common import (
    VERDICT_EXIT,
    add_build_options,
    add_db_option,
    err,
    open_storage,
    positive_int,
)
from lattice_desktop.cli.report_text import report_lines
from lattice_desktop.cli.terminal import shown
from lattice_desktop.grading.grader import grade
from lattice_desktop.grading.report import GradingStep
from lattice_desktop.grading.report_json import report_to_dict
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.resources import resolve_case_path
from lattice_desktop.services.exports.graded_runs import from_report
from lattice_desktop.services.exports.junit import junit_xml
from lattice_desktop.services.exports.markdown import grade_markdown
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.field import standing
from lattice_desktop.work import Step, Work


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "grade",
        help="grade a submission folder against a case",
        description="Grade a submission: smoke tests first, then fuel on the stress cases. "
        "Exit code: 0 correct, 1 incorrect, 2 usage error, 3 over ceiling, 4 internal error.",
    )
    p.add_argument("submission", help="submission folder (or its submission.toml)")
    p.add_argument("--case", required=False, help="case manifest, its folder, or a bundled case name")
    add_build_options(p)
    p.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    add_junit_option(p)
    add_markdown_option(p)
    p.add_argument("--workers", type=positive_int, default=2, help="threads running cases (default 2)")
    p.add_argument("--no-store", action="store_true", help="grade without recording the run")
    add_db_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    submission = load_submission(args.submission)
    case_name = args.case or submission.case
    if not case_name:
        err("error: name the case with --case (the submission does not say which it targets)")
        return 2
    base = None if args.case else submission.manifest_path.parent
    case = load_case(resolve_case_path(case_name, base=base))
    check_writable(args.junit, args.markdown)
    work = Work(_progress_printer())
    try:
        if args.no_store:
            report = grade(
                case,
                submission,
                allow_build=args.build,
                allow_unisolated=args.allow_unisolated_build,
                workers=args.workers,
                work=work,
            )
            run_id, place = None, None
        else:
            writer = open_storage(args)
            stored = grade_and_store(
                case,
                submission,
                writer=writer,
                allow_build=args.build,
                allow_unisolated=args.allow_unisolated_build,
                workers=args.workers,
                work=work,
            )
            report, run_id = stored.report, stored.run_id
            place = standing(run_id)
            writer.close()
    except KeyboardInterrupt:
        work.cancel()
        raise
    if report.build is not None and report.build.isolation is not None:
        err(report.build.isolation.summary)
    graded = from_report(report, run_id=run_id, standing=place)
    if args.junit:
        write_report(
            args.junit,
            junit_xml([graded], name="lattice-desktop grade"),
            kind="junit",
            what="the JUnit report",
        )
    if args.markdown:
        write_report(args.markdown, grade_markdown(graded), kind="markdown", what="the Markdown summary")
    if args.json:
        data = report_to_dict(report)
        data["run_id"] = run_id
        data["standing"] = (
            None
            if place is None
            else {
                "rank": place.rank,
                "of": place.of,
                "percentile": place.percentile,
            }
        )
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for line in report_lines(report, standing=place, run_id=run_id):
            print(line)
    return VERDICT_EXIT[report.verdict]


def _progress_printer():
    def show(step: Step) -> None:
        p = step.item
        if not isinstance(p, GradingStep):
            return
        if p.result is not None:
            r = p.result
            err(f"[{p.done}/{p.total}] {shown(r.kind):6} {shown(r.name)}: {r.outcome.look.text}")
        elif p.phase != "done":
            err(f"{shown(step.message)}…")

    return show
