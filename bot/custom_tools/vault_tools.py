"""The HTTP tools of each vault, read from its `.brainbot/tools.yaml` when the file
changes: one `stat` per message, a read and a parse only after an edit. What a file
may use depends on its vault's name (BRAINBOT_SECRET_<NAME>_VAULTS names vaults)."""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.custom_tools.declarations import TOOLS_FILE, Problem, parse_tools
from bot.custom_tools.http_tool import HttpToolSpec, http_spec
from bot.tools import REGISTRY, ToolContext

log = logging.getLogger(__name__)

MAX_FILE_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class Loaded:
    """One vault's custom tools as last read, and what was wrong in its file."""

    specs: Mapping[str, HttpToolSpec] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()


EMPTY = Loaded()


def load_file(
    root: Path,
    vault: str,
    hosts: Collection[str],
    secret_vaults: Mapping[str, Collection[str]],
) -> Loaded:
    """Read and check the tools file of the vault called `vault` in `root` now (no
    cache): for `brainbot doctor`."""
    path = root / TOOLS_FILE
    if not path.exists() and not path.is_symlink():
        return EMPTY
    if path.is_symlink() or path.parent.is_symlink():
        return Loaded(problems=(Problem(None, None, "is a symlink; it must be a plain file"),))
    if path.stat().st_size > MAX_FILE_BYTES:
        return Loaded(problems=(Problem(None, None, f"is over {MAX_FILE_BYTES:,} bytes"),))
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return Loaded(problems=(Problem(None, None, f"cannot be read: {exc}"),))
    declared = parse_tools(
        text, hosts=hosts, taken=REGISTRY, vault=vault, secret_vaults=secret_vaults
    )
    specs = {tool.name: http_spec(tool, hosts) for tool in declared.tools}
    return Loaded(specs, declared.problems)


class VaultTools:
    """Custom tools per vault folder, cached on the file's modification time and size."""

    def __init__(
        self, hosts: Collection[str], secret_vaults: Mapping[str, Collection[str]]
    ) -> None:
        self.hosts = tuple(hosts)
        self.secret_vaults = secret_vaults  # Settings.secret_vaults
        self._cache: dict[Path, tuple[tuple[int, int, int, str], Loaded]] = {}

    def for_root(self, root: Path, vault: str) -> Loaded:
        """The tools of the vault called `vault`, whose folder is `root`."""
        path = root / TOOLS_FILE
        try:
            stat = path.lstat()
        except OSError:
            self._cache.pop(root, None)
            return EMPTY
        key = (stat.st_mtime_ns, stat.st_size, stat.st_ino, vault)
        cached = self._cache.get(root)
        if cached is not None and cached[0] == key:
            return cached[1]
        loaded = load_file(root, vault, self.hosts, self.secret_vaults)
        for problem in loaded.problems:
            outcome = "; that tool is skipped" if problem.skipped else ""
            fix = f" ({problem.fix})" if problem.fix else ""
            log.warning("%s in %s: %s%s%s", TOOLS_FILE, root, problem, outcome, fix)
        if loaded.specs:
            log.info("custom tools of %s: %s", root, ", ".join(loaded.specs))
        self._cache[root] = (key, loaded)
        return loaded

    def specs_for(self, ctx: ToolContext) -> Mapping[str, HttpToolSpec]:
        """The custom tools of the vault `ctx` works on (a context that does not name its
        vault may use no secret)."""
        vault = ctx.vault.name if ctx.vault is not None else ""
        return self.for_root(ctx.store.vault.root, vault).specs
