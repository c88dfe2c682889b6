"""A vault of 100,000 files: what syncing it costs on the vault's side.

The notes are generated (not committed to this repository) in a temporary folder,
committed once, and then timed (medians): the full scan a first open or a reindex
makes (every note found by an iterative walk, then read through the bounded
reader), and the incremental sync's look at the working tree (`git status`) with
nothing changed and after one hand edit. The same is timed at a tenth of the size:
a cost per note that grows with the vault would show something quadratic. The bench
fails (exit 1) when the per-note cost of a scan or a read at full size is more than
twice that at a tenth, or when a note is read more than once per full scan.

Run: `python -m bench.vault_scan [files]` (default 100,000).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pygit2

from bench.storage import peak_rss_mb
from storage.entry import BOT_AUTHOR
from storage.index.sync import read_notes
from storage.vault import files
from storage.vault.gitrepo import signature
from storage.vault.vault import Vault
from tests.storage.vault.vault_support import LIMITS

CATEGORIES = ("people", "projects", "ideas", "admin", "inbox")
PER_FOLDER = 500
RUNS = 5


def _median_ms(runs: int, step: Callable[[], object]) -> float:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        step()
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def _make_vault(root: Path, count: int) -> Vault:
    """`count` small notes in folders of PER_FOLDER, two levels deep, one commit."""
    for n in range(count):
        folder = root / CATEGORIES[n % len(CATEGORIES)] / f"f{n // PER_FOLDER:04d}"
        if n % PER_FOLDER < len(CATEGORIES):
            folder.mkdir(parents=True, exist_ok=True)
        body = f"Note {n} about the heron number {n % 97} and the kite {n % 13}.\n"
        note = folder / f"note-{n}.md"
        note.write_text(f"---\ntitle: Note {n}\n---\n{body}")
        # An hour old, as a vault's notes are: a file changed in the second the git
        # index was written is "racily clean" and git must read it again every time.
        os.utime(note, (time.time() - 3600, time.time() - 3600))
    repo = pygit2.init_repository(str(root), initial_head="main")
    repo.index.add_all()
    repo.index.write()
    tree = repo.index.write_tree()
    who = signature(BOT_AUTHOR)
    repo.create_commit("HEAD", who, who, "generated notes", tree, [])
    return Vault(root, CATEGORIES, **LIMITS)


def _measure(count: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="brainbot-vault-scan-") as tmp:
        vault = _make_vault(Path(tmp) / "vault", count)
        head = vault.head()
        scan = _median_ms(RUNS, lambda: vault.changed_since(None))
        paths = vault.changed_since(None).changed
        reads = _count_reads(lambda: read_notes(vault, paths))
        read = _median_ms(3, lambda: read_notes(vault, paths))
        quiet = _median_ms(RUNS, lambda: vault.changed_since(head))
        commit = _median_ms(RUNS, vault.commit_outside_edits)
        edited = vault.root / paths[len(paths) // 2]
        edited.write_text(edited.read_text() + "An edit by hand.\n")
        one_edit = _median_ms(1, lambda: (vault.commit_outside_edits(), vault.changed_since(head)))
    return {
        "notes": len(paths),
        "full scan (walk)": scan,
        "read every note": read,
        "reads per note": reads / max(1, len(paths)),
        "incremental, nothing changed": quiet,
        "commit hand edits, none": commit,
        "incremental, one hand edit": one_edit,
    }


def _count_reads(step: Callable[[], object]) -> int:
    """How many times the bounded reader ran during `step`."""
    calls = [0]
    real = files.read_regular

    def counted(*args: object, **kwargs: object) -> bytes:
        calls[0] += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    files.read_regular = counted  # type: ignore[assignment]
    import storage.vault.edits as edits

    edits.read_regular = counted  # type: ignore[assignment]
    try:
        step()
    finally:
        files.read_regular = real
        edits.read_regular = real
    return calls[0]


def main(argv: Sequence[str] = ()) -> int:
    count = int(argv[0]) if argv else 100_000
    small, large = _measure(count // 10), _measure(count)
    print(f"\nA vault of {count:,} files vs {count // 10:,} (medians, ms)\n")
    print(f"{'':32} {int(small['notes']):>10,} {int(large['notes']):>10,}  per note ratio")
    ok = large["reads per note"] <= 1.0
    for name in small:
        if name in ("notes", "reads per note"):
            continue
        ratio = (large[name] / large["notes"]) / max(1e-9, small[name] / small["notes"])
        print(f"{name:32} {small[name]:10.1f} {large[name]:10.1f}  {ratio:5.2f}")
        if name in ("full scan (walk)", "read every note") and ratio > 2:
            ok = False
    print(f"{'reads per note (full scan)':32} {large['reads per note']:10.2f}")
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
