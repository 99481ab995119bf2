"""Exact fuel profiles: a module instrumented with wasmtime's own fuel rule, run in the sandbox."""
