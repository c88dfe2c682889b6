"""What a change that lands whole or not at all costs (storage.vault.journal): a
note created, and a note renamed with its links rewritten in N other notes, on the
vault alone (git + files, no index), in a temporary folder on this machine's disk.

| what | target |
| --- | --- |
| create one note | median <= 30 ms |
| rename, links in 100 notes | median <= 1,000 ms |
| rename, links in 1,500 notes | median <= 15,000 ms |

Every new content is fsynced (one fsync per file, as before the journal), and that is
most of a big rename's time on a disk: run with TMPDIR on a tmpfs to see the rest.

Run: `python -m bench.vault_writes [rounds]`.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from storage.entry import Author
from storage.vault.vault import Vault
from tests.storage.vault.vault_support import LIMITS

CATEGORIES = ("people", "projects", "ideas", "admin", "inbox")
AUTHOR = Author("Bench", "bench@example.org")
TARGETS = {"create one note": 30.0, 100: 1000.0, 1500: 15000.0}


def median_ms(rounds: int, step: Callable[[int], object]) -> float:
    timings = []
    for number in range(rounds):
        started = time.perf_counter()
        step(number)
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def linked_vault(root: Path, linking: int) -> Vault:
    """A vault whose `ideas/target-0.md` is linked from `linking` notes (wikilinks,
    every third also a Markdown link), imported as one commit."""
    source = root / "import"
    (source / "inbox").mkdir(parents=True)
    (source / "ideas").mkdir()
    (source / "ideas/target-0.md").write_text("---\ntitle: Target 0\n---\nLinked to.\n")
    for number in range(linking):
        body = f"# Note {number}\n\nSee [[target-0]].\n"
        if number % 3 == 0:
            body += "\nAlso [it](../ideas/target-0.md).\n"
        (source / f"inbox/note-{number:04d}.md").write_text(body)
    vault = Vault(root / "vault", CATEGORIES, **LIMITS)
    vault.import_tree(source)
    return vault


def measure(root: Path, rounds: int) -> list[tuple[str, float, float]]:
    figures = []
    small = Vault(root / "small", CATEGORIES, **LIMITS)

    def create(number: int) -> None:
        small.create("inbox", f"Bench capture {number}", "A quick thought.", author=AUTHOR)

    name = "create one note"
    figures.append((name, median_ms(rounds * 4, create), TARGETS[name]))
    for linking in (100, 1500):
        vault = linked_vault(root / f"linked-{linking}", linking)

        def rename(number: int, vault: Vault = vault, linking: int = linking) -> None:
            old = f"ideas/target-{number}.md"
            written = vault.rename(old, f"Target {number + 1}", author=AUTHOR)
            assert len(written.change.paths) == linking + 2  # the note, twice, and its links

        figures.append(
            (f"rename, links in {linking:,} notes", median_ms(rounds, rename), TARGETS[linking])
        )
    return figures


def main(argv: Sequence[str] = ()) -> int:
    """Print the table; exit 1 when a figure misses its target."""
    rounds = int(argv[0]) if argv else 7
    root = Path(tempfile.mkdtemp(prefix="brainbot-bench-"))
    try:
        figures = measure(root, rounds)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"\nVault writes (git + files, fsynced), medians of {rounds} rounds\n")
    print(f"| {'what':<30} | {'median':>12} | {'target':>12} | ok  |")
    print(f"| {'-' * 30} | {'-' * 12} | {'-' * 12} | --- |")
    for name, value, target in figures:
        ok = "yes" if value <= target else "NO"
        print(f"| {name:<30} | {value:>9.1f} ms | <= {target:>6g} ms | {ok:<3} |")
    return 0 if all(value <= target for _, value, target in figures) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
