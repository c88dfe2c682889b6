"""The house rules of the layout (issue: rooms a newcomer can find without a guide):
no import circles, each layer imports only the layers below it, no module past ~400
lines. Read from the source with `ast`, so a lazy import or one only for the type
checker counts as much as one at the top."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "adapters", "storage", "scheduler")
MAX_LINES = 420  # "~400": a module past this is split by responsibility


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Our modules that `name` imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parents = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parents, base] if base else parents)
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycle() -> list[str] | None:
    """One import circle, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, path: list[str]) -> list[str] | None:
        state[name] = 1
        for other in sorted(GRAPH[name]):
            if state.get(other) == 1:
                return [*path[path.index(other) :], other]
            if other not in state and (found := visit(other, [*path, other])):
                return found
        state[name] = 2
        return None

    for name in sorted(GRAPH):
        if name not in state and (found := visit(name, [name])):
            return found
    return None


def test_the_modules_are_found() -> None:
    assert {"bot.engine", "bot.app.cli", "storage.store", "storage.vault.vault"} <= set(MODULES)
    assert "storage.vault.vault" in GRAPH["storage.store"]


def test_no_module_imports_itself_through_others() -> None:
    assert _cycle() is None


def _importing(prefix: str, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{name} -> {other}"
        for name, imported in GRAPH.items()
        if name == prefix or name.startswith(prefix + ".")
        for other in imported
        if any(other == f or other.startswith(f + ".") for f in forbidden)
    )


def test_storage_knows_nothing_of_the_bot_adapters_or_scheduler() -> None:
    assert _importing("storage", ("bot", "adapters", "scheduler")) == []


def test_the_engine_imports_no_adapter_scheduler_or_wiring() -> None:
    found = _importing("bot", ("adapters", "scheduler", "bot.app"))
    assert [line for line in found if not line.startswith("bot.app")] == []


def test_adapters_and_scheduler_do_not_reach_into_the_wiring() -> None:
    assert _importing("adapters", ("bot.app", "scheduler", "storage")) == []
    assert _importing("scheduler", ("bot.app", "adapters")) == []


def test_no_module_is_past_about_400_lines() -> None:
    long = {
        name: lines
        for name, path in MODULES.items()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}
