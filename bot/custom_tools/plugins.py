"""Python tools from installed packages: the `brainbot.tools` entry-point group.

An entry point names a module (importing it runs its `@tool` decorators) or a ToolSpec
object. Plugins load once, at start; one that fails to import or reuses a name that is
taken is logged, reported by `brainbot doctor`, and left out: it never stops a start
and never replaces a built-in tool.
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
        before = dict(REGISTRY)
        try:
            target = point.load()
        except Exception as exc:
            _restore(before, {})
            problems.append(f"{origin} failed to import: {type(exc).__name__}: {exc}")
            continue
        if not isinstance(target, (ModuleType, ToolSpec)):
            _restore(before, {})
            problems.append(f"{origin} is neither a module nor a tool (a ToolSpec)")
            continue
        # What importing it registered (the @tool decorator), and the spec it names.
        new = {name: spec for name, spec in REGISTRY.items() if before.get(name) is not spec}
        if isinstance(target, ToolSpec):
            new[target.name] = target
        clashes = sorted(name for name in new if name in before)
        added = {name: spec for name, spec in new.items() if name not in before}
        _restore(before, added)
        if clashes:
            problems.append(f"{origin} reuses the name(s) {clashes}, already taken")
        if added:
            loaded.append((origin, tuple(sorted(added))))
        elif not clashes:
            problems.append(f"{origin} registered no tool (use the @tool decorator)")
    return PluginReport(tuple(loaded), tuple(problems))


def _restore(before: dict[str, ToolSpec], added: dict[str, ToolSpec]) -> None:
    """The registry as it was before a plugin loaded, plus the tools it may add."""
    REGISTRY.clear()
    REGISTRY.update(before)
    REGISTRY.update(added)
