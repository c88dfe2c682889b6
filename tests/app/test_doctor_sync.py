"""`brainbot doctor` on each vault's sync with its git remote: a remote that cannot be
reached (its URL shown without the token), and conflict copies waiting for a choice."""

from __future__ import annotations

from pathlib import Path

from app.commands.doctor import vault as vault_check
from bot.config import Settings
from storage.vault.remote_sync import RemoteSync
from tests.storage.vault.sync_support import Device, bare_remote
from tests.storage.vault.vault_support import ANN, make_vault


async def test_doctor_tells_a_failing_remote_and_conflicts_waiting(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    settings = Settings(
        _env_file=None,
        BRAINBOT_DATA_DIR=str(tmp_path / "data"),
        BRAINBOT_GIT_REMOTE=str(tmp_path / "{person}.git"),
    )
    owner = make_vault(settings.vault_dir)
    owner.create("ideas", "Garden", "Dig the beds", author=ANN)
    assert RemoteSync(owner, str(remote)).run().outcome == "empty-remote"
    laptop = Device(remote, tmp_path / "laptop")
    laptop.write("ideas/garden.md", laptop.read("ideas/garden.md").replace("Dig", "Rake"))
    laptop.commit()
    laptop.push()
    owner.update("ideas/garden.md", body="Weed the beds", author=ANN)
    [conflict] = RemoteSync(owner, str(remote)).run().conflicts
    ops = make_vault(tmp_path / "data" / "vaults" / "ops")
    RemoteSync(ops, "https://bot:tok3n@127.0.0.1:9/brains/ops.git").run()

    found = [(f.level, f.topic, f.detail) for f in await vault_check(settings) if f.topic == "sync"]

    assert found[0] == (
        "note",
        "sync",
        f"vault vault: 1 conflict copy waits for a choice: {conflict.copy}",
    )
    level, _, detail = found[1]
    assert level == "problem"
    assert detail.startswith("vault ops: the last sync with its remote failed")
    assert "https://127.0.0.1:9/brains/ops.git" in detail and "tok3n" not in detail
    assert len(found) == 2
