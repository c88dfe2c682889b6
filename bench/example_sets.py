"""Question sets made from command references, not written by hand: each question is
an example's own description line ("Create a new branch"), that example (description
and command) is removed from its page, and the page is the one relevant answer.

This is the kind of question the hybrid fusion once failed on (keywords stronger than
vectors, the sides disagreeing): three sets of it, from tldr-pages' English and
Spanish pages and from cheat/cheatsheets, sit beside the hand-written sets in
bench/sets. Only the questions (and the lists of pages imported) are in this
repository; the pages are made here from a copy of each source repository at the
commit its set names, under `<corpora>/sources/<source>`:

- `sources/tldr`: github.com/tldr-pages/tldr (CC BY 4.0), at least its `pages/`
  and `pages.es/` folders;
- `sources/cheatsheets`: github.com/cheat/cheatsheets (CC0).

Run: `python -m bench.example_sets <corpora> [--write]` writes each set's pages (the
examples taken out) to `<corpora>/<corpus>/<folder>`, where bench/thirdparty_ranking.py
and bench/fusion.py look for them; `--write` also rewrites the .tsv and .pages files
(the same seed and source give the same files).
"""

from __future__ import annotations

import random
import re
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SETS = Path(__file__).parent / "sets"
SEED = 41
QUESTIONS = 300
MIN_WORDS, MAX_WORDS = 2, 20


@dataclass(frozen=True)
class Example:
    page: str  # path of the page in the set's corpus
    question: str
    lines: tuple[int, ...]  # the page's lines that make the example (removed)


@dataclass(frozen=True)
class Spec:
    name: str  # <corpus>-<folder>: the pages go to <corpora>/<corpus>/<folder>
    source: str  # folder under <corpora>/sources
    folders: tuple[str, ...]  # folders of the source read (each becomes a folder of the corpus)
    kind: str  # "tldr" or "cheat": how examples are written
    repository: str
    commit: str
    licence: str
    per_page: int  # questions taken from one page at most
    others: int  # pages imported besides the relevant ones (0: every page)


SPECS = (
    Spec(
        "tldr-examples-en",
        "tldr",
        ("pages/common", "pages/linux"),
        "tldr",
        "github.com/tldr-pages/tldr",
        "08e345f42639f67d99282813247ac670dc6e87cb",
        "CC BY 4.0",
        per_page=1,
        others=500,
    ),
    Spec(
        "tldr-examples-es",
        "tldr",
        ("pages.es/common", "pages.es/linux"),
        "tldr",
        "github.com/tldr-pages/tldr",
        "08e345f42639f67d99282813247ac670dc6e87cb",
        "CC BY 4.0",
        per_page=1,
        others=300,
    ),
    Spec(
        "cheatsheets-examples-en",
        "cheatsheets",
        ("",),
        "cheat",
        "github.com/cheat/cheatsheets",
        "36bdb99dcfadde210503d8c2dcf94b34ee950e1d",
        "CC0 1.0",
        per_page=2,
        others=0,
    ),
)


def tldr_examples(page: str, lines: Sequence[str]) -> list[Example]:
    """tldr's `- Description:` line, a blank line, and the command in backticks."""
    found = []
    for n, line in enumerate(lines[:-2]):
        code = lines[n + 2]
        if line.startswith("- ") and not lines[n + 1].strip() and code.startswith("`"):
            question = line[2:].strip().rstrip(":").strip()
            # The blank line after the command goes with it.
            after = (n + 3,) if n + 3 < len(lines) and not lines[n + 3].strip() else ()
            found.append(Example(page, question, (n, n + 1, n + 2, *after)))
    return found


def cheat_examples(page: str, lines: Sequence[str]) -> list[Example]:
    """cheat's `# To do this:` comment lines and the command lines under them."""
    found = []
    n = 0
    while n < len(lines):
        if not lines[n].startswith("#"):
            n += 1
            continue
        start = n
        while n < len(lines) and lines[n].startswith("#"):
            n += 1
        comment = " ".join(line.lstrip("#").strip() for line in lines[start:n])
        commands = n
        while n < len(lines) and lines[n].strip() and not lines[n].startswith("#"):
            n += 1
        if n > commands:
            question = re.sub(r"^to\s+", "", comment.rstrip(":").strip(), flags=re.IGNORECASE)
            question = question[:1].upper() + question[1:]
            found.append(Example(page, question, tuple(range(start, n))))
    return found


def read_pages(spec: Spec, source: Path) -> dict[str, list[str]]:
    """The corpus's pages (path in the corpus -> lines), as a user would import them."""
    pages: dict[str, list[str]] = {}
    for folder in spec.folders:
        base = source / folder
        into = Path(folder).name
        for path in sorted(p for p in base.rglob("*") if p.is_file()):
            relative = path.relative_to(base)
            if relative.parts[0].startswith(".") or path.name in {"LICENSE", "README.md"}:
                continue
            text = path.read_text(encoding="utf-8")
            if spec.kind == "cheat":
                # A sheet is plain text with a YAML head for `cheat` itself: as a note,
                # its name is the title and the sheet is a block of shell.
                body = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.DOTALL)
                name = str(relative)
                text = f"# {path.name}\n\n```sh\n{body.strip()}\n```\n"
                pages[str(Path(into) / f"{name}.md") if into else f"{name}.md"] = text.split("\n")
            elif path.suffix == ".md":
                pages[str(Path(into) / relative)] = text.split("\n")
    return pages


def sample(spec: Spec, pages: dict[str, list[str]]) -> list[Example]:
    """QUESTIONS examples drawn with the seed, at most `per_page` from a page, questions
    of MIN_WORDS-MAX_WORDS words, no question twice."""
    reader = tldr_examples if spec.kind == "tldr" else cheat_examples
    rng = random.Random(SEED)
    candidates = [
        example
        for page, lines in pages.items()
        for example in reader(page, lines)
        if MIN_WORDS <= len(example.question.split()) <= MAX_WORDS and "\t" not in example.question
    ]
    rng.shuffle(candidates)
    taken: list[Example] = []
    per_page: dict[str, int] = {}
    questions: set[str] = set()
    for example in candidates:
        key = example.question.casefold()
        if per_page.get(example.page, 0) >= spec.per_page or key in questions:
            continue
        taken.append(example)
        per_page[example.page] = per_page.get(example.page, 0) + 1
        questions.add(key)
        if len(taken) == QUESTIONS:
            break
    return taken


def listed(spec: Spec, pages: dict[str, list[str]], taken: Sequence[Example]) -> list[str]:
    """The pages imported: every page, or the relevant ones and `others` drawn at random."""
    if not spec.others:
        return []
    relevant = {e.page for e in taken}
    rest = sorted(set(pages) - relevant)
    return sorted(relevant | set(random.Random(SEED).sample(rest, min(spec.others, len(rest)))))


def header(spec: Spec, total: int, imported: int) -> str:
    folders = ", ".join(f"{f}/" for f in spec.folders if f) or "the sheets"
    cut = (
        f"# Imported: the {imported} pages listed in {spec.name}.pages (the relevant ones and\n"
        f"# others drawn at random, seed {SEED}), so that local vectors take minutes here.\n"
        if imported
        else f"# Imported: all {total} pages.\n"
    )
    return (
        f"# Example questions from {spec.repository} at commit {spec.commit}\n"
        f"# ({folders}; {spec.licence}): {total} pages. Each question is one example's own\n"
        f"# description line; that example (description and command) is taken out of its\n"
        f"# page, which is the one relevant page. {QUESTIONS} examples drawn with seed {SEED},\n"
        f"# at most {spec.per_page} per page. Made by bench/example_sets.py (the pages too).\n"
        f"{cut}# query\trelevant page\n"
    )


def build(spec: Spec, corpora: Path, write: bool) -> str:
    """Write the set's pages (examples taken out) under `corpora`; with `write`, its
    question and page lists in bench/sets. Returns a line saying what was made."""
    source = corpora / "sources" / spec.source
    if not source.is_dir():
        return f"{spec.name}: skipped, no source at sources/{spec.source}"
    pages = read_pages(spec, source)
    taken = sample(spec, pages)
    removed: dict[str, set[int]] = {}
    for example in taken:
        removed.setdefault(example.page, set()).update(example.lines)
    corpus_name, _, folder = spec.name.rpartition("-")
    out = corpora / corpus_name / folder
    shutil.rmtree(out, ignore_errors=True)
    for page, lines in pages.items():
        gone = removed.get(page, set())
        (out / page).parent.mkdir(parents=True, exist_ok=True)
        kept = [line for n, line in enumerate(lines) if n not in gone]
        (out / page).write_text("\n".join(kept), encoding="utf-8")
    imported = listed(spec, pages, taken)
    if write:
        rows = "".join(f"{e.question}\t{e.page}\n" for e in taken)
        (SETS / f"{spec.name}.tsv").write_text(
            header(spec, len(pages), len(imported)) + rows, encoding="utf-8"
        )
        if imported:
            (SETS / f"{spec.name}.pages").write_text("\n".join(imported) + "\n", encoding="utf-8")
    return f"{spec.name}: {len(taken)} questions, {len(imported) or len(pages)} pages imported"


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for spec in SPECS:
        print(build(spec, Path(sys.argv[1]), "--write" in sys.argv[2:]))
