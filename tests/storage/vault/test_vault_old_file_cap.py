"""Replacing a whole note (a digest, today's daily note) and deleting one read the
file there first; that read is held to the note size cap like every other: a file
over it is refused with its size, nothing changes, and it is never read."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from storage.errors import EntryTooLarge
from storage.vault.vault import Vault
from tests.storage.vault.bad_content import sparse
from tests.storage.vault.vault_support import ANN, make_vault, status

HUGE = 300_000_000  # a sparse file: no disk, but a read of it would cost 300 MB
CAP = 10_000


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    vault = make_vault(tmp_path / "vault", max_bytes=CAP)
    vault.create("ideas", "Keep", "A note that stays.")
    return vault


@pytest.fixture
def peak() -> Iterator[Callable[[], int]]:
    """The most memory Python allocated meanwhile, in bytes."""
    tracemalloc.start()
    try:
        yield lambda: tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def refused_untouched(vault: Vault, rel: str, call: Callable[[], Any]) -> None:
    head, before = vault.head(), status(vault.root)
    with pytest.raises(EntryTooLarge) as refused:
        call()
    assert str(refused.value) == f"{rel!r} is {HUGE} bytes; the limit is {CAP}"
    assert (vault.root / rel).stat().st_size == HUGE
    assert vault.head() == head and status(vault.root) == before


def test_a_digest_over_an_oversize_file_is_refused_unread(
    vault: Vault, peak: Callable[[], int]
) -> None:
    rel = "digests/2026-11-20.md"
    (vault.root / "digests").mkdir()
    sparse(vault.root / rel, HUGE)
    refused_untouched(
        vault, rel, lambda: vault.write_note(rel, "# Digest\n", operation="digest", author=ANN)
    )
    refused_untouched(
        vault,
        rel,
        lambda: vault.write_note(rel, lambda old: f"{old}more\n", operation="log", author=ANN),
    )
    assert peak() < 5_000_000


def test_deleting_an_oversize_note_is_refused_unread(vault: Vault, peak: Callable[[], int]) -> None:
    rel = "ideas/huge.md"
    sparse(vault.root / rel, HUGE)
    refused_untouched(vault, rel, lambda: vault.preview_delete(rel))
    refused_untouched(vault, rel, lambda: vault.delete(rel, author=ANN))
    assert peak() < 5_000_000
    vault.delete("ideas/keep.md", author=ANN)  # a note within the cap goes as before
    assert not (vault.root / "ideas/keep.md").exists()
