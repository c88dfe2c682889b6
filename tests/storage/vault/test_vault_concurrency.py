"""Concurrent writers: threads sharing one Vault, and two Vault objects on one folder
(each holds its own file lock, as two processes would)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from storage.entry import Written
from storage.vault.vault import Vault
from tests.storage.vault.vault_support import ANN, commit_count, git, make_vault, status

WRITERS = 6
EACH = 8


def create_many(vault: Vault, writer: int) -> list[Written]:
    return [vault.create("ideas", "Same title", f"writer {writer} note {n}") for n in range(EACH)]


def check_all_written(vault: Vault, results: list[list[Written]]) -> None:
    paths = [w.change.paths[0] for batch in results for w in batch]
    assert len(set(paths)) == WRITERS * EACH  # no file was overwritten
    bodies = {vault.read(p).body for p in paths}
    assert bodies == {f"writer {w} note {n}" for w in range(WRITERS) for n in range(EACH)}
    assert commit_count(vault.root) == 1 + WRITERS * EACH
    assert status(vault.root) == ""
    git(vault.root, "fsck", "--strict", "--no-dangling")
    # Each commit holds exactly one new file.
    counts = git(vault.root, "log", "--format=", "--name-only", f"HEAD~{WRITERS * EACH}..HEAD")
    assert len(counts.split()) == WRITERS * EACH


def test_threads_sharing_a_vault_never_lose_or_mix_notes(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault")
    with ThreadPoolExecutor(WRITERS) as pool:
        results = list(pool.map(lambda w: create_many(vault, w), range(WRITERS)))
    check_all_written(vault, results)


def test_two_vault_objects_on_one_folder_take_turns(tmp_path: Path) -> None:
    first = make_vault(tmp_path / "vault")
    second = make_vault(tmp_path / "vault")
    with ThreadPoolExecutor(WRITERS) as pool:
        results = list(
            pool.map(lambda w: create_many(first if w % 2 else second, w), range(WRITERS))
        )
    check_all_written(first, results)


def test_concurrent_updates_of_one_note_apply_one_after_another(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault")
    vault.create("projects", "Counter", "", {"status": "start"})

    def tag(n: int) -> None:
        vault.update("projects/counter.md", fields={f"field_{n}": n}, author=ANN)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(tag, range(12)))
    fields = vault.read("projects/counter.md").fields
    assert all(fields[f"field_{n}"] == n for n in range(12))
    assert fields["status"] == "start"
    assert commit_count(vault.root) == 2 + 12
    assert status(vault.root) == ""
