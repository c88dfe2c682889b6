"""Every benchmark still imports: `make bench` is not part of `make test`, so a rename in
the code (app.watch's look at changes) once left bench.watch failing at its first line
until someone ran it."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.mark.parametrize("name", sorted(p.stem for p in BENCH.glob("*.py") if p.stem != "__main__"))
def test_the_benchmark_imports(name: str) -> None:
    module = importlib.import_module(f"bench.{name}")
    if "\ndef main(" in (BENCH / f"{name}.py").read_text(encoding="utf-8"):
        assert callable(module.main)
