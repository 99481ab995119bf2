"""Which subject a case has: its kit's, or the bundled Lattice case's own."""

from __future__ import annotations

from lattice_desktop.casekit.kit_file import KIT_NAME, load_kit
from lattice_desktop.casekit.mutants.lattice_subject import lattice_subject
from lattice_desktop.casekit.mutants.subject import Subject, kit_subject
from lattice_desktop.errors import UserError
from lattice_desktop.manifest import CaseManifest


def subject_for(case: CaseManifest) -> Subject:
    kit = load_kit(case.path)
    if kit is not None:
        return kit_subject(case, kit)
    if case.family == "lattice-v1":
        return lattice_subject(case)
    raise UserError(
        f"{case.path}: no {KIT_NAME} beside it, so no reference to mutate (docs/case-authoring.md, 'Mutants')"
    )
