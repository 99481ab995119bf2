"""Readable function names: the name section's, then an export's, then `func[N]`."""

from __future__ import annotations

from lattice_desktop.profile.wat_module import ModuleText


def readable_names(module: ModuleText) -> dict[int, str]:
    names: dict[int, str] = {}
    for function in module.functions:
        if function.name:
            name = function.name
            names[function.index] = name[1:-1] if name.startswith('"') else name
        elif function.index in module.exports:
            names[function.index] = module.exports[function.index][0]
        else:
            names[function.index] = f"func[{function.index}]"
    return names
