"""Running untrusted WebAssembly: one fuel-metered engine, compiled-module cache, runner."""
