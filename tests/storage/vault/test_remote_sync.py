"""Two-way sync of a vault with its git remote: a bare remote on disk and a second
clone acting as the person's laptop edit concurrently with the bot's writes; after
each round both sides hold every line either side wrote, and exactly the expected
conflicts are kept as copies."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from storage.vault.backup import BackupPusher, VaultBackup
from storage.vault.remote_sync import RemoteSync, SyncStatus
from storage.vault.vault import Vault
from tests.storage.vault.sync_support import DEVICE, Device, bare_remote, run_git
from tests.storage.vault.vault_support import ANN, make_vault

TODAY_COPY = "ideas/garden-plan (conflict {day} Ann laptop).md"


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return bare_remote(tmp_path / "remote.git")


@pytest.fixture
def vault(tmp_path: Path, remote: Path) -> Vault:
    made = make_vault(tmp_path / "vault")
    made.create("ideas", "Garden plan", "Dig the beds\nSow the beans\nWater daily", author=ANN)
    made.create("people", "Sarah", "Met at the fair", author=ANN)
    assert RemoteSync(made, str(remote)).run().outcome == "empty-remote"
    return made


@pytest.fixture
def laptop(tmp_path: Path, remote: Path, vault: Vault) -> Device:
    return Device(remote, tmp_path / "laptop")


def sync(vault: Vault, remote: Path) -> str:
    done = RemoteSync(vault, str(remote)).run()
    assert done.problem is None, done.problem
    return done.outcome


def clean_and_committed(vault: Vault) -> None:
    """The vault's files are exactly its HEAD commit."""
    assert run_git(vault.root, "status", "--porcelain").stdout == ""


def test_changes_to_different_notes_reach_both_sides(
    vault: Vault, remote: Path, laptop: Device
) -> None:
    laptop.write("ideas/from-the-train.md", "# From the train\n\nA zebra crossing idea\n")
    laptop.commit()
    laptop.push()
    vault.create("ideas", "Bot capture", "Captured in the chat", author=ANN)

    assert sync(vault, remote) == "merged"

    assert "zebra crossing" in (vault.root / "ideas/from-the-train.md").read_text()
    laptop.pull()
    assert "Captured in the chat" in laptop.read("ideas/bot-capture.md")
    clean_and_committed(vault)
    assert run_git(remote, "rev-parse", "main").stdout.strip() == vault.head()


def test_a_device_push_alone_is_a_fast_forward(vault: Vault, remote: Path, laptop: Device) -> None:
    laptop.write("ideas/garden-plan.md", laptop.read("ideas/garden-plan.md") + "Add compost\n")
    laptop.commit()
    laptop.push()

    assert sync(vault, remote) == "fast-forward"
    assert "Add compost" in vault.read("ideas/garden-plan.md").body
    clean_and_committed(vault)


def test_nothing_new_is_one_listing_and_no_fetch(vault: Vault, remote: Path) -> None:
    done = RemoteSync(vault, str(remote)).run()
    assert (done.outcome, done.fetched, done.moved) == ("nothing-new", False, False)
    status = SyncStatus.read(vault.root)
    assert status is not None and status.remote_head == vault.head() and status.error is None


def test_a_capture_is_pushed_by_the_next_round(vault: Vault, remote: Path) -> None:
    vault.create("ideas", "Later", "pushed by the sync", author=ANN)
    done = RemoteSync(vault, str(remote)).run()
    assert (done.outcome, done.fetched) == ("pushed", False)
    assert run_git(remote, "rev-parse", "main").stdout.strip() == vault.head()


def test_same_lines_changed_on_both_sides_keep_both_versions(
    vault: Vault, remote: Path, laptop: Device
) -> None:
    path = "ideas/garden-plan.md"
    laptop.write(path, laptop.read(path).replace("Sow the beans", "Sow the beans and peas"))
    laptop.commit()
    laptop.push()
    vault.update(path, body="Dig the beds\nSow the carrots\nWater daily", author=ANN)

    done = RemoteSync(vault, str(remote)).run()

    day = run_git(vault.root, "log", "-1", "--format=%cs").stdout.strip()
    copy = TODAY_COPY.format(day=day)
    assert done.outcome == "merged"
    assert [(c.path, c.copy, c.device) for c in done.conflicts] == [(path, copy, DEVICE)]
    assert "Sow the carrots" in vault.read(path).body
    assert "Sow the beans and peas" in (vault.root / copy).read_text()
    # Nothing committed drops a side: the merge holds both, with both parents.
    parents = run_git(vault.root, "log", "-1", "--format=%P").stdout.split()
    assert len(parents) == 2
    assert copy in run_git(vault.root, "log", "-1", "--format=%B").stdout
    clean_and_committed(vault)
    laptop.pull()
    assert "Sow the carrots" in laptop.read(path)
    assert "Sow the beans and peas" in laptop.read(copy)
    status = SyncStatus.read(vault.root)
    assert status is not None and status.conflicts == ((path, copy),)


def test_the_same_new_note_written_on_both_sides_keeps_both(
    vault: Vault, remote: Path, laptop: Device
) -> None:
    laptop.write("ideas/Shopping.md", "# Shopping\n\noat milk\n")
    laptop.commit()
    laptop.push()
    vault.write_note(
        "ideas/Shopping.md", "# Shopping\n\nrye bread\n", operation="create", author=ANN
    )

    [conflict] = RemoteSync(vault, str(remote)).run().conflicts

    assert "rye bread" in vault.read("ideas/Shopping.md").body
    assert "oat milk" in (vault.root / conflict.copy).read_text()
    clean_and_committed(vault)


def test_a_conflict_stays_listed_until_its_copy_is_gone(
    vault: Vault, remote: Path, laptop: Device
) -> None:
    path = "ideas/garden-plan.md"
    laptop.write(path, laptop.read(path).replace("Water daily", "Water weekly"))
    laptop.commit()
    laptop.push()
    vault.update(path, body="Dig the beds\nSow the beans\nWater hourly", author=ANN)
    [conflict] = RemoteSync(vault, str(remote)).run().conflicts

    assert RemoteSync(vault, str(remote)).run().outcome == "nothing-new"
    status = SyncStatus.read(vault.root)
    assert status is not None and status.conflicts == ((path, conflict.copy),)

    vault.delete(conflict.copy, author=ANN)
    RemoteSync(vault, str(remote)).run()
    status = SyncStatus.read(vault.root)
    assert status is not None and status.conflicts == ()


def test_different_fields_changed_on_both_sides_merge_without_a_conflict(
    vault: Vault, remote: Path, laptop: Device
) -> None:
    path = "people/Sarah.md"
    text = laptop.read(path)
    laptop.write(path, text.replace("title: Sarah\n", "title: Sarah\ncompany: Acme\n"))
    laptop.commit()
    laptop.push()
    vault.update(path, fields={"tags": ["friend"]}, author=ANN)

    done = RemoteSync(vault, str(remote)).run()

    assert (done.outcome, done.conflicts) == ("merged", ())
    entry = vault.read(path)
    assert entry.fields["company"] == "Acme"
    assert entry.fields["tags"] == ["friend"]
    assert entry.body == "Met at the fair"
    clean_and_committed(vault)


def test_body_and_frontmatter_changed_on_different_sides_merge(
    vault: Vault, remote: Path, laptop: Device
) -> None:
    path = "ideas/garden-plan.md"
    laptop.write(path, laptop.read(path).replace("Water daily", "Water daily\nMulch in May"))
    laptop.commit()
    laptop.push()
    vault.update(path, fields={"status": "active"}, author=ANN)

    done = RemoteSync(vault, str(remote)).run()

    assert done.conflicts == ()
    entry = vault.read(path)
    assert entry.fields["status"] == "active" and "Mulch in May" in entry.body


def test_a_delete_against_an_edit_keeps_the_edit(
    vault: Vault, remote: Path, laptop: Device
) -> None:
    laptop.write("people/Sarah.md", laptop.read("people/Sarah.md") + "Call her on Friday\n")
    run_git(laptop.root, "rm", "--quiet", "ideas/garden-plan.md")
    laptop.commit("edit sarah, delete the garden plan")
    laptop.push()
    vault.delete("people/Sarah.md", author=ANN)
    vault.update("ideas/garden-plan.md", body="Dig the beds\nSow the beans\nWater", author=ANN)

    done = RemoteSync(vault, str(remote)).run()

    assert done.conflicts == ()
    assert "Call her on Friday" in vault.read("people/Sarah.md").body
    assert vault.read("ideas/garden-plan.md").body.endswith("Water")
    clean_and_committed(vault)


def test_a_rename_against_a_delete_keeps_the_renamed_note(
    vault: Vault, remote: Path, laptop: Device
) -> None:
    run_git(laptop.root, "mv", "ideas/garden-plan.md", "projects/Allotment.md")
    run_git(laptop.root, "rm", "--quiet", "people/Sarah.md")
    laptop.commit("rename the plan, drop Sarah")
    laptop.push()
    vault.delete("ideas/garden-plan.md", author=ANN)
    vault.rename("people/Sarah.md", "Sarah Example", author=ANN)

    done = RemoteSync(vault, str(remote)).run()

    assert done.conflicts == ()
    assert vault.read("projects/Allotment.md").body.startswith("Dig the beds")
    assert vault.read("people/Sarah Example.md").body == "Met at the fair"
    assert not (vault.root / "ideas/garden-plan.md").exists()
    assert not (vault.root / "people/Sarah.md").exists()
    clean_and_committed(vault)


def test_a_rename_on_the_device_follows_the_bots_edit(
    vault: Vault, remote: Path, laptop: Device
) -> None:
    run_git(laptop.root, "mv", "ideas/garden-plan.md", "projects/Allotment.md")
    laptop.commit("rename")
    laptop.push()
    vault.update("ideas/garden-plan.md", fields={"status": "active"}, author=ANN)

    done = RemoteSync(vault, str(remote)).run()

    assert done.conflicts == ()
    assert not (vault.root / "ideas/garden-plan.md").exists()
    assert vault.read("projects/Allotment.md").fields["status"] == "active"


def test_the_bots_rename_and_relinking_survive_a_device_edit(
    vault: Vault, remote: Path, laptop: Device
) -> None:
    vault.create("ideas", "Links", "See [[Sarah]] soon", author=ANN)
    sync(vault, remote)
    laptop.pull()
    laptop.write("ideas/garden-plan.md", laptop.read("ideas/garden-plan.md") + "Ask Sarah\n")
    laptop.commit()
    laptop.push()
    vault.rename("people/Sarah.md", "Sarah Example", author=ANN)

    assert sync(vault, remote) == "merged"

    assert "[[Sarah Example]]" in vault.read("ideas/links.md").body
    assert not (vault.root / "people/Sarah.md").exists()
    assert "Ask Sarah" in vault.read("ideas/garden-plan.md").body


def test_an_unreachable_remote_is_reported_without_its_credentials(vault: Vault) -> None:
    remote = "http://ann:s3cret-token@127.0.0.1:9/brains/ann.git"
    head = vault.head()

    done = RemoteSync(vault, remote).run()

    assert done.outcome == "failed" and done.problem is not None
    assert "s3cret-token" not in done.problem and "127.0.0.1:9" in done.problem
    status = SyncStatus.read(vault.root)
    assert status is not None and status.error == done.problem
    assert "s3cret-token" not in (vault.root / ".git/brainbot-sync.json").read_text()
    assert vault.head() == head


def test_a_refused_push_is_reported(vault: Vault, remote: Path) -> None:
    hook = remote / "hooks/pre-receive"
    hook.write_text("#!/bin/sh\necho 'branch main is protected' >&2\nexit 1\n")
    hook.chmod(0o755)
    vault.create("ideas", "Refused", "not accepted", author=ANN)

    done = RemoteSync(vault, str(remote)).run()

    assert done.outcome == "failed"
    assert done.problem is not None and "protected" in done.problem


def test_a_force_pushed_remote_is_reported_and_nothing_is_dropped(
    vault: Vault, remote: Path, laptop: Device
) -> None:
    run_git(laptop.root, "reset", "--quiet", "--hard", "HEAD~1")  # drops the Sarah note
    laptop.write("ideas/rewritten.md", "history was rewritten\n")
    laptop.commit()
    assert run_git(laptop.root, "push", "--force", "origin", "HEAD:main").returncode == 0

    done = RemoteSync(vault, str(remote)).run()

    assert done.problem is not None and "force-pushed" in done.problem
    assert vault.read("people/Sarah.md").body == "Met at the fair"
    assert (vault.root / "ideas/rewritten.md").is_file()
    laptop.pull()
    assert (laptop.root / "people/Sarah.md").is_file()


def test_a_new_vault_starts_from_a_remote_that_has_notes(tmp_path: Path, remote: Path) -> None:
    seed = tmp_path / "seed"
    run_git(tmp_path, "init", "--quiet", "--initial-branch=main", str(seed))
    (seed / "Journal").mkdir()
    (seed / "Journal/2026-11-01.md").write_text("# First of November\n\nold notes\n")
    run_git(seed, "add", "--all")
    run_git(seed, "commit", "--quiet", "-m", "my Obsidian vault")
    run_git(seed, "push", "--quiet", str(remote), "HEAD:main")
    vault = make_vault(tmp_path / "fresh")

    assert sync(vault, remote) == "adopted"

    assert "old notes" in vault.read("Journal/2026-11-01.md").body
    assert (vault.root / "ideas/.gitkeep").is_file()
    history = run_git(vault.root, "log", "--format=%s").stdout.splitlines()
    assert history[-1] == "my Obsidian vault"
    assert run_git(remote, "rev-parse", "main").stdout.strip() == vault.head()


async def test_a_capture_after_a_device_push_reaches_the_remote_merged(
    vault: Vault, remote: Path, laptop: Device
) -> None:
    """The pusher meets a remote that moved on: the sync merges and pushes at once,
    instead of parking the capture on a side branch until the next interval."""
    laptop.write("ideas/from-the-laptop.md", "# From the laptop\n\npushed first\n")
    laptop.commit()
    laptop.push()
    rounds: list[str] = []

    async def merge_and_push() -> bool:
        done = await asyncio.to_thread(RemoteSync(vault, str(remote)).run)
        rounds.append(done.outcome)
        return done.outcome != "failed"

    pusher = BackupPusher(
        VaultBackup(vault.root, str(remote)), debounce=0.05, poll=0.02, moved_on=merge_and_push
    )
    await pusher.start(vault.head())
    try:
        vault.create("ideas", "Captured", "in the chat meanwhile", author=ANN)
        head = vault.head()
        for _ in range(1000):  # the pusher's debounce, then the round
            if rounds:
                break
            await asyncio.sleep(0.02)
    finally:
        await pusher.stop(push_within=5)

    assert rounds == ["merged"]
    on_remote = run_git(remote, "ls-tree", "-r", "--name-only", "main").stdout.split()
    assert {"ideas/from-the-laptop.md", "ideas/captured.md"} <= set(on_remote)
    assert run_git(remote, "branch", "--list", "brainbot/*").stdout == ""
    assert head in run_git(remote, "rev-list", "main").stdout


def test_a_remote_commit_writing_into_git_folder_is_refused(vault: Vault, remote: Path) -> None:
    """A crafted tree holding `.git/hooks/post-merge` (git's own tools refuse to make
    one; a hostile remote can) is never written into the vault's `.git`."""

    def made(*args: str, text: str | None = None) -> str:
        return run_git(remote, *args, input_text=text).stdout.strip()

    hook = made("hash-object", "-w", "--stdin", text="#!/bin/sh\ntouch pwned\n")
    hooks = made("mktree", text=f"100755 blob {hook}\tpost-merge\n")
    folder = made("mktree", text=f"040000 tree {hooks}\thooks\n")
    listing = run_git(remote, "ls-tree", "main").stdout
    tree = made("mktree", text=f"{listing}040000 tree {folder}\t.git\n")
    commit = made("commit-tree", tree, "-p", "main", "-m", "hostile")
    run_git(remote, "update-ref", "refs/heads/main", commit)
    head = vault.head()

    done = RemoteSync(vault, str(remote)).run()

    assert done.outcome == "failed"
    assert done.problem is not None and ".git/hooks/post-merge" in done.problem
    assert not (vault.root / ".git/hooks/post-merge").exists()
    assert vault.head() == head
    clean_and_committed(vault)
