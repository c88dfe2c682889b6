"""`brainbot doctor` on what lies in the vault folders: a change a kill cut short
(its journal waits for the vault's next opening) and a secret allowed to a vault
that does not exist (also warned about when brainbot starts)."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.commands.doctor import vault as vault_check
from app.tool_checks import custom_tools
from bot.config import Settings
from tests.fakes.brain import running_brain
from tests.storage.vault.crash_child import OLD
from tests.storage.vault.vault_support import make_vault

REPO = Path(__file__).resolve().parents[2]


def killed_mid_change(root: Path, scratch: Path) -> None:
    """Rename a note in a child process killed right after the change's journal was
    written, as a kill -9 or a power cut would (tests/storage/vault/crash_child.py);
    a copy of the vault, renamed whole first, tells which write that is."""
    shutil.copytree(root, scratch, symlinks=True)
    child = [sys.executable, "-m", "tests.storage.vault.crash_child", "kill"]
    counted = subprocess.run(
        [*child, str(scratch), "0"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert counted.returncode == 0, counted.stderr
    at = counted.stdout.split().index("os.rename") + 2  # the write after the journal's rename
    done = subprocess.run(
        [*child, str(root), str(at)], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == -9, done.stderr


async def test_doctor_names_a_change_cut_short_until_the_vault_opens(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, BRAINBOT_DATA_DIR=str(tmp_path))
    for root in (settings.vault_dir, tmp_path / "vaults" / "ops"):
        make_vault(root).create("ideas", "Target note", "Linked from elsewhere.")
    assert (settings.vault_dir / OLD).is_file()
    killed_mid_change(tmp_path / "vaults" / "ops", tmp_path / "counted")

    found = [(f.level, f.detail, f.fix) for f in await vault_check(settings)]
    assert (
        "warning",
        f"{tmp_path}/vaults/ops: a change of 2 file(s) was cut short (brainbot stopped "
        "part-way); its files may be half changed until brainbot opens the vault again",
        "start brainbot (`brainbot run`): it finishes the change or puts the files back",
    ) in found
    assert not any(str(settings.vault_dir) + ":" in detail for _, detail, _ in found)

    make_vault(tmp_path / "vaults" / "ops")  # opening the vault settles the change
    assert not any("cut short" in found.detail for found in await vault_check(settings))


async def test_a_secret_allowed_to_a_vault_that_does_not_exist_is_warned_about(
    tmp_path: Path,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("BRAINBOT_SECRET_WEATHER_VAULTS", "vault,opps,team-ops")
    monkeypatch.setenv("BRAINBOT_SECRET_MAPS_VAULTS", "ops")
    teams = {"BRAINBOT_TEAM_VAULTS": "slack:C0123=Team Ops"}  # made at its first message
    settings = Settings(_env_file=None, BRAINBOT_DATA_DIR=str(tmp_path / "data"), **teams)
    (tmp_path / "data" / "vaults" / "ops").mkdir(parents=True)
    line = (
        "BRAINBOT_SECRET_WEATHER_VAULTS names opps: no such vault (the vaults: ops, team-ops, "
        "vault; `brainbot vaults` lists them)"
    )
    found = [(f.level, f.detail, f.fix) for f in await custom_tools(settings)]
    assert found == [("warning", line, "correct the name, or take it out of the setting")]

    with caplog.at_level(logging.WARNING, "app.runtime"):
        async with running_brain(tmp_path, database_url, **teams):
            pass
    assert caplog.messages == [f"{line}; the secret is not given to it"]
