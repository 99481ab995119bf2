"""Readable function names: the name section's, then an export's, then `func[N]`."""

from __future__ import annotations

from lattice_desktop.profile.wat_module import ModuleText


def readable_names(module: ModuleText, section_names: dict[int, str]) -> dict[int, str]:
    """`section_names` are the name section's (`wasm_sections.function_names`), any text."""
    names: dict[int, str] = {}
    for function in module.functions:
        if section_names.get(function.index):
            names[function.index] = section_names[function.index]
        elif function.index in module.exports:
            names[function.index] = module.exports[function.index][0]
        else:
            names[function.index] = f"func[{function.index}]"
    return names
