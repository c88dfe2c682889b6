"""Python tools from installed packages: the `brainbot.tools` entry-point group.

An entry point names a module (its tools are the ToolSpecs it makes with `@tool`) or a
ToolSpec object; loading registers them in `bot.tools.REGISTRY`. Plugins load once, at
start; one that fails to import or reuses a name that is taken is logged, reported by
`brainbot doctor`, and left out: it never stops a start and never replaces a built-in
tool.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType

from bot.tools import REGISTRY, ToolSpec

log = logging.getLogger(__name__)

GROUP = "brainbot.tools"


@dataclass(frozen=True, slots=True)
class PluginReport:
    """What loading the plugins did: tool names by entry point, and the failures."""

    loaded: tuple[tuple[str, tuple[str, ...]], ...] = ()
    problems: tuple[str, ...] = ()


_report: PluginReport | None = None


def load_plugins() -> PluginReport:
    """Load every plugin once per process; later calls return the first report."""
    global _report
    if _report is None:
        _report = _load(entry_points(group=GROUP))
        for problem in _report.problems:
            log.warning("plugin tools: %s; skipped", problem)
        for origin, names in _report.loaded:
            log.info("plugin tools from %s: %s", origin, ", ".join(names))
    return _report


def _load(points: Iterable[EntryPoint]) -> PluginReport:
    loaded: list[tuple[str, tuple[str, ...]]] = []
    problems: list[str] = []
    for point in points:
        origin = f"{point.name} ({point.value})"
        try:
            target = point.load()
        except Exception as exc:
            problems.append(f"{origin} failed to import: {type(exc).__name__}: {exc}")
            continue
        if isinstance(target, ToolSpec):
            specs = {target.name: target}
        elif isinstance(target, ModuleType):
            specs = _made_in(target)
        else:
            problems.append(f"{origin} is neither a module nor a tool (a ToolSpec)")
            continue
        clashes = sorted(name for name in specs if name in REGISTRY)
        added = {name: spec for name, spec in specs.items() if name not in REGISTRY}
        REGISTRY.update(added)
        if clashes:
            problems.append(f"{origin} reuses the name(s) {clashes}, already taken")
        if added:
            loaded.append((origin, tuple(sorted(added))))
        elif not clashes:
            problems.append(f"{origin} registered no tool (use the @tool decorator)")
    return PluginReport(tuple(loaded), tuple(problems))


def _made_in(module: ModuleType) -> dict[str, ToolSpec]:
    """The tools a module makes with `@tool` (not those it imports from elsewhere)."""
    return {
        value.name: value
        for value in vars(module).values()
        if isinstance(value, ToolSpec)
        and getattr(value.executor, "__module__", None) == module.__name__
    }
