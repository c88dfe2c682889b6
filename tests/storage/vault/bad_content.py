"""Things a person (or an accident) may leave in a vault that brainbot must survive:
an impossible date, a sparse 1.5 GB note, a named pipe, a symlink to /dev/zero, a
note in Latin-1, and a folder nested far too deep."""

from __future__ import annotations

import os
from pathlib import Path

BAD_DATE = "---\ntitle: Ancient\nupdated: 0001-01-01T00:00:00+14:00\n---\nA walrus on ice.\n"


def put_bad_things(folder: Path, tag: str, *, pipe: bool = True) -> None:
    """One of each bad file in `folder`, named `<kind>-<tag>.md`; the readable ones
    hold the words `walrus<tag>` (bad date) and `otter<tag>` (not UTF-8)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"date-{tag}.md").write_text(BAD_DATE.replace("walrus", f"walrus{tag}"))
    sparse(folder / f"big-{tag}.md")
    if pipe:
        os.mkfifo(folder / f"pipe-{tag}.md")
    os.symlink("/dev/zero", folder / f"zero-{tag}.md")
    (folder / f"latin-{tag}.md").write_bytes(f"caf\xe9 otter{tag}\n".encode("latin-1"))


def sparse(path: Path, size: int = 1_500_000_000) -> None:
    """A file of `size` bytes that costs no disk (all a hole)."""
    with open(path, "wb") as handle:
        handle.truncate(size)


def nest(root: Path, levels: int) -> Path:
    """A folder `levels` deep under root (`d/d/...`), made one level at a time
    (os.makedirs recurses), with a note at the bottom."""
    folder = root
    for _ in range(levels):
        folder = folder / "d"
        folder.mkdir()
    (folder / "deep.md").write_text("deep narwhal\n")
    return folder


def unnest(root: Path) -> None:
    """Remove a `nest` from the bottom up: shutil.rmtree, and so pytest's clean-up of
    old temporary folders, recurses and fails at 1,000 levels."""
    folder = root
    while (folder / "d").is_dir():
        folder = folder / "d"
    while folder != root:
        for item in folder.iterdir():
            if not item.is_dir():
                item.unlink()
        folder.rmdir()
        folder = folder.parent
