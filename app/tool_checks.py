"""`brainbot doctor`'s look at the tools people added: the plugins of the
`brainbot.tools` entry-point group, and each vault's `.brainbot/tools.yaml`.

A bad tool is a warning, not a problem: `brainbot run` skips it and starts. A secret
a vault's file uses without the settings' leave is a problem: the admin decides. A
BRAINBOT_SECRET_<NAME>_VAULTS naming a vault that does not exist is a warning (here
and in the log at start): a misspelt name quietly keeps the secret from the vault
meant."""

from __future__ import annotations

import asyncio
from pathlib import Path

from adapters.platform import Finding
from bot.config import SECRET_PREFIX, SECRET_VAULTS_SUFFIX, Settings
from bot.custom_tools import TOOLS_FILE, load_file, load_plugins
from storage import OWNER_VAULT_NAME, folder_name


async def custom_tools(s: Settings) -> list[Finding]:
    return await asyncio.to_thread(_custom_tools, s)


def _custom_tools(s: Settings) -> list[Finding]:
    report = load_plugins()  # first: a vault's tool may not take a plugin's name
    found = [
        Finding("ok", "plugins", f"{origin}: {', '.join(names)}") for origin, names in report.loaded
    ]
    found += [
        Finding("warning", "plugins", problem, "fix or uninstall the package; it is skipped")
        for problem in report.problems
    ]
    found += [
        Finding("warning", "custom tools", line, "correct the name, or take it out of the setting")
        for line in unknown_secret_vaults(s)
    ]
    for vault, root in vault_folders(s):
        loaded = load_file(root, vault, s.tool_hosts, s.secret_vaults)
        where = f"{root / TOOLS_FILE}"
        if loaded.specs:
            names = ", ".join(
                f"{name} ({spec.http.method}, "
                + ("approval" if spec.needs_approval else "runs at once")
                + ")"
                for name, spec in loaded.specs.items()
            )
            found.append(Finding("ok", "custom tools", f"{where}: {names}"))
        for problem in loaded.problems:
            if problem.fix:
                found.append(Finding("problem", "custom tools", f"{where} {problem}", problem.fix))
                continue
            found.append(
                Finding(
                    "warning",
                    "custom tools",
                    f"{where} {problem}",
                    "fix the file; until then that tool is not offered" if problem.skipped else "",
                )
            )
    return found


def unknown_secret_vaults(s: Settings) -> list[str]:
    """One line per BRAINBOT_SECRET_<NAME>_VAULTS that names a vault that does not
    exist: no vault's folder, nor a team vault of BRAINBOT_TEAM_VAULTS (made at its
    chat's first message)."""
    known = {name for name, _ in vault_folders(s)} | {
        folder_name(team) for team in s.team_vaults.values()
    }
    lines = []
    for secret, names in sorted(s.secret_vaults.items()):
        unknown = [name for name in names if name not in known]
        if unknown:
            lines.append(
                f"{SECRET_PREFIX}{secret}{SECRET_VAULTS_SUFFIX} names {', '.join(unknown)}: "
                f"no such vault (the vaults: {', '.join(sorted(known))}; `brainbot vaults` "
                "lists them)"
            )
    return lines


def vault_folders(s: Settings) -> list[tuple[str, Path]]:
    """The owner's vault and every person's or team's vault under the data folder, by
    name (the name `brainbot vaults` lists: a folder's under the data folder)."""
    others = sorted(p for p in (s.data_dir / "vaults").glob("*") if p.is_dir())
    return [(OWNER_VAULT_NAME, s.vault_dir), *((p.name, p) for p in others)]
