"""A grade report as plain JSON-ready data: for `--json`, and to keep a report that
could not be stored."""

from __future__ import annotations

from typing import Any

from lattice_desktop.grading.report import CaseResult, GradeReport
from lattice_desktop.manifest.case_identity import identify_case


def result_to_dict(r: CaseResult) -> dict[str, Any]:
    m = r.mismatch
    return {
        "name": r.name,
        "kind": r.kind,
        "behaviour": r.behaviour,
        "size": r.size,
        "outcome": r.outcome.value,
        "fuel": r.fuel,
        "ceiling": r.ceiling,
        "budget": r.budget,
        "percent_of_ceiling": r.percent_of_ceiling,
        "overshoot": r.overshoot,
        "detail": r.detail,
        "trap_code": r.trap_code,
        "frames": list(r.frames),
        "output_sha256": r.output_digest,
        "first_mismatch": None
        if m is None
        else {
            "unit": m.unit,
            "index": m.index,
            "tick": m.tick,
            "expected": m.expected,
            "got": m.got,
        },
        "wall_time_s": round(r.wall_time, 6),
    }


def report_to_dict(report: GradeReport) -> dict[str, Any]:
    case = report.case
    return {
        "case": {
            "name": case.name,
            "version": case.version,
            "variant": case.variant,
            "manifest_sha256": case.manifest_hash,
            "fuel_limit": case.sandbox.fuel_limit,
            **identify_case(case).to_json(),
        },
        "submission": {
            "model": report.submission.model,
            "folder": str(report.submission.folder),
            "module_sha256": report.module_sha256,
        },
        "verdict": report.verdict.value,
        "score": report.score,
        "stress_fuel": report.stress_fuel,
        "overshoot": report.overshoot,
        "wasmtime_version": report.wasmtime_version,
        "fuel_settings": report.fuel_settings,
        "started": report.started.isoformat(),
        "finished": report.finished.isoformat(),
        "build": None
        if report.build is None
        else {
            "ok": report.build.ok,
            "detail": report.build.detail,
            "log": report.build.log,
        },
        "results": [result_to_dict(r) for r in report.results],
    }
