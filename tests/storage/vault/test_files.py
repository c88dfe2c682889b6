"""The one reader of notes on disk (storage.vault.files): it looks before it reads, so
a named pipe, a device or a sparse 1.5 GB file is refused without blocking and
without reading it, and it never returns more than the cap."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from storage.errors import EntryNotFound, EntryTooLarge, NotAFile
from storage.vault.files import read_regular
from tests.storage.vault.bad_content import sparse

SECOND = 5.0  # a refused read answers at once; a read of a pipe would wait forever


async def read_soon(full: Path, limit: int | None, root: Path | None = None) -> bytes:
    return await asyncio.wait_for(
        asyncio.to_thread(read_regular, full, full.name, limit, root), SECOND
    )


async def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    with pytest.raises(NotAFile, match="named pipe"):
        await read_soon(tmp_path / "pipe.md", 1000)
    with pytest.raises(NotAFile):
        await read_soon(tmp_path / "pipe.md", None)  # not even without a cap


async def test_a_symlink_to_a_device_is_refused_without_reading(tmp_path: Path) -> None:
    os.symlink("/dev/zero", tmp_path / "zero.md")
    with pytest.raises(NotAFile, match="a symlink to a device"):
        await read_soon(tmp_path / "zero.md", None)


async def test_a_symlink_out_of_the_vault_is_refused(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (tmp_path / "secret.md").write_text("outside")
    os.symlink(tmp_path / "secret.md", vault / "link.md")
    with pytest.raises(NotAFile, match="outside the vault"):
        await read_soon(vault / "link.md", 1000, vault)
    (vault / "real.md").write_text("inside")
    os.symlink(vault / "real.md", vault / "inner.md")
    assert await read_soon(vault / "inner.md", 1000, vault) == b"inside"


async def test_a_sparse_huge_file_is_refused_by_its_size_before_reading(tmp_path: Path) -> None:
    sparse(tmp_path / "big.md")
    with pytest.raises(EntryTooLarge) as refused:
        await read_soon(tmp_path / "big.md", 1_000_000)
    assert refused.value.size == 1_500_000_000 and refused.value.limit == 1_000_000


async def test_never_more_than_the_cap_and_a_folder_or_nothing_is_no_note(
    tmp_path: Path,
) -> None:
    (tmp_path / "note.md").write_bytes(b"x" * 100)
    assert await read_soon(tmp_path / "note.md", 100) == b"x" * 100
    with pytest.raises(EntryTooLarge):
        await read_soon(tmp_path / "note.md", 99)
    (tmp_path / "folder.md").mkdir()
    with pytest.raises(NotAFile, match="a folder"):
        await read_soon(tmp_path / "folder.md", 100)
    with pytest.raises(EntryNotFound):
        await read_soon(tmp_path / "missing.md", 100)
