"""Ranking on Markdown this project did not write: keyword, vector and hybrid search
over a public docs vault, imported the way a user imports one (`brainbot import`),
with questions written by hand (bench/sets/*.tsv, one relevant page each).

The pages are not in this repository. Set BRAINBOT_BENCH_CORPORA to a folder holding
one sub-folder per corpus (e.g. `obsidian-help/en/...`, the `en` folder of the public
obsidian-help repository); a set whose corpus is missing is skipped, said so. Each
set's file names the repository, commit and folder; a `<set>.pages` file beside it
lists the pages taken from a corpus too large to embed whole here.

Prints recall@1/5/10 and MRR per set and mode. Needs: hybrid >= keyword - noise and
>= vector - noise (never below either side), and keyword >= the rank-bm25 package
(the peer) - noise.

Run: `python -m bench.thirdparty_ranking [--set NAME]... [--full]`: `--set` ranks only
the sets named; `--full` imports every page of a cut corpus, not only its listed ones
(the whole of tldr-pages' English pages takes some twenty minutes of two cores).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

from sqlalchemy import text

from bench.fusion_rules import shipped
from bench.storage_ranking import pick_embedder, rank_bm25
from storage.db.connection import Database
from storage.index import lookups
from storage.index.embeddings import Embedder, HashingEmbedder
from storage.index.index import CANDIDATES
from storage.index.query import parse_query
from storage.store import Store
from tests.storage.vault.vault_support import LIMITS

SETS = Path(__file__).parent / "sets"
DEPTH = 10
NOISE = 0.02


@dataclass(frozen=True)
class LabelledSet:
    name: str
    corpus: Path  # the folder imported
    questions: list[tuple[str, str]]  # (query, relevant path relative to the corpus)
    # When bench/sets/<name>.pages lists pages, only those are imported: a large corpus
    # is cut to the pages the questions point to plus others drawn at random, so that
    # local vectors are computed in minutes, not an hour.
    pages: tuple[str, ...] = ()


def load_sets(root: Path) -> tuple[list[LabelledSet], list[str]]:
    """The sets whose corpus is under `root`, and a line for each one that is not."""
    found: list[LabelledSet] = []
    missing: list[str] = []
    for tsv in sorted(SETS.glob("*.tsv")):
        corpus_name, _, folder = tsv.stem.rpartition("-")
        corpus = root / corpus_name / folder
        if not corpus.is_dir():
            missing.append(f"{tsv.stem}: no corpus at {corpus_name}/{folder}")
            continue
        questions = []
        for line in tsv.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                query, relevant = line.split("\t")
                questions.append((query.strip(), relevant.strip()))
        listed = tsv.with_suffix(".pages")
        pages = tuple(listed.read_text(encoding="utf-8").split("\n")) if listed.is_file() else ()
        pages = tuple(p for p in pages if p.strip())
        absent = [p for p in pages if not (corpus / p).is_file()]
        if absent:
            missing.append(f"{tsv.stem}: {len(absent)} listed pages missing, e.g. {absent[0]}")
            continue
        found.append(LabelledSet(tsv.stem, corpus, questions, pages))
    return found, missing


def scores(rankings: Sequence[Sequence[str]], relevant: Sequence[str]) -> dict[str, float]:
    n = len(relevant)
    ranks = [
        (ranked.index(want) + 1 if want in ranked else None)
        for ranked, want in zip(rankings, relevant, strict=True)
    ]
    out = {f"R@{k}": sum(1 for r in ranks if r and r <= k) / n for k in (1, 5, 10)}
    out["MRR"] = sum(1 / r for r in ranks if r) / n
    return out


Scored = list[tuple[str, float]]


class Candidates(NamedTuple):
    """One question's two candidate lists as the search fuses them (storage.index.
    Index.sides), by path with their scores, and the share of the question's words
    the first keyword note holds (what the fusion's gate reads)."""

    keyword: Scored
    vector: Scored
    matched: float


async def rank(
    store: Store, queries: Sequence[str]
) -> tuple[dict[str, list[list[str]]], list[Candidates]]:
    """The peer's, keyword, vector and hybrid rankings (hybrid as the bot searches) of
    each query, and each query's candidates (for fusion experiments)."""
    index = store.index
    async with store.database.engine.connect() as conn:
        rows = await conn.execute(text("SELECT id, path FROM entries"))
        path_of = {int(r.id): str(r.path) for r in rows}
    paths = sorted(path_of.values())
    pages = [(store.vault.root / p).read_text(encoding="utf-8") for p in paths]
    # The peer reads each page's whole Markdown file, as a plain BM25 tool would (with
    # our tokenizer, which is generous to it on CJK).
    peer = rank_bm25(paths, pages, queries, len(paths))
    out: dict[str, list[list[str]]] = {
        "rank-bm25 (peer)": [],
        "keyword": [],
        "vector": [],
        "hybrid": [],
    }
    candidates: list[Candidates] = []
    for query, peer_ranked in zip(queries, peer, strict=True):
        through = await let_through(store, query, len(paths))
        kept = [p for p in peer_ranked if through is None or p in through]
        out["rank-bm25 (peer)"].append(kept[:DEPTH])
        # The sides a search of this query fuses: its syntax ("a phrase", -word) filters
        # both, as it does for a searcher.
        sides = await index.sides(query, depth=CANDIDATES)
        keyword = [(path_of[i], s) for i, s in sides.keyword.hits]
        vector = [(path_of[i], s) for i, s, _ in sides.vector or []]
        candidates.append(Candidates(keyword, vector, sides.keyword.matched))
        out["keyword"].append([p for p, _ in keyword[:DEPTH]])
        out["vector"].append([p for p, _ in vector[:DEPTH]])
        out["hybrid"].append([h.path for h in (await store.search(query, limit=DEPTH)).hits])
    return out, candidates


async def let_through(store: Store, query: str, limit: int) -> set[str] | None:
    """The notes the query's own syntax ("a phrase", -word) lets through, None without
    syntax: the peer knows no syntax, so it ranks only these, as our search does."""
    filters = parse_query(query).filters
    if not filters.active:
        return None
    async with store.database.engine.connect() as conn:
        found = await lookups.list_entries(conn, store.index.vault_id, filters, limit)
    return {entry.path for entry in found}


def diverging(hybrid: Sequence[Sequence[str]], candidates: Sequence[Candidates]) -> int:
    """On how many queries the search's hybrid top DEPTH differs from what bench/fusion.py
    makes of the kept candidates with the shipped rule: 0 unless the fusion bench no
    longer sees what the search fuses."""
    ranked = shipped()
    return sum(
        list(found) != ranked(c.keyword, c.vector, c.matched)[:DEPTH]
        for found, c in zip(hybrid, candidates, strict=True)
    )


def dump(labelled: LabelledSet, candidates: list[Candidates], folder: Path | None) -> None:
    """With BENCH_DUMP=folder (or `folder`), keep the candidates there: other fusions
    can then be tried without indexing again (bench/fusion.py)."""
    folder = folder or (Path(os.environ["BENCH_DUMP"]) if os.environ.get("BENCH_DUMP") else None)
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    rows = [
        {"query": q, "relevant": r, "keyword": c.keyword, "vector": c.vector, "matched": c.matched}
        for (q, r), c in zip(labelled.questions, candidates, strict=True)
    ]
    (Path(folder) / f"{labelled.name}.json").write_text(json.dumps(rows))


def listed_pages(labelled: LabelledSet, into: Path) -> Path:
    """The folder to import: the corpus itself, or a copy of the pages it lists."""
    if not labelled.pages:
        return labelled.corpus
    for page in labelled.pages:
        (into / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(labelled.corpus / page, into / page)
    return into


async def measure(
    labelled: LabelledSet, embedder: Embedder, *, dump_to: Path | None = None
) -> dict[str, dict[str, float]]:
    root = Path(tempfile.mkdtemp(prefix="brainbot-bench-"))
    try:
        database = await Database.connect(None, root)
        try:
            store = await Store.open(
                vault_dir=root / "vault",
                categories=("inbox",),
                database=database,
                embedder=embedder,
                **LIMITS,
            )
            await store.import_folder(listed_pages(labelled, root / "pages"))
            rankings, candidates = await rank(store, [q for q, _ in labelled.questions])
        finally:
            await database.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    relevant = [r for _, r in labelled.questions]
    dump(labelled, candidates, dump_to)
    diverged = diverging(rankings["hybrid"], candidates)
    if diverged:
        raise AssertionError(
            f"{labelled.name}: the hybrid search ranked {diverged} questions otherwise than "
            "its own fusion of the candidates this bench keeps: bench/fusion.py would "
            "choose on lists a searcher never gets"
        )
    return {mode: scores(ranked, relevant) for mode, ranked in rankings.items()}


async def run(hashing: bool, only: Sequence[str] = (), full: bool = False) -> int:
    root = os.environ.get("BRAINBOT_BENCH_CORPORA")
    if not root:
        print("BRAINBOT_BENCH_CORPORA is not set: no third-party corpus to rank (skipped)")
        return 0
    sets, missing = load_sets(Path(root))
    for line in missing:
        print(f"(skipped {line})")
    unknown = sorted(set(only) - {s.name for s in sets})
    if unknown:
        print(f"no such set here: {', '.join(unknown)}")
        return 2
    sets = [replace(s, pages=()) if full else s for s in sets if not only or s.name in only]
    embedder, embedder_name = pick_embedder(hashing)
    print(f"vector side: {embedder_name}\n")
    print("| set | questions | mode | R@1 | R@5 | R@10 | MRR |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: |")
    ok = beats_peer = True
    for labelled in sets:
        table = await measure(labelled, embedder)
        for mode, values in table.items():
            cells = " | ".join(f"{values[k]:.3f}" for k in ("R@1", "R@5", "R@10", "MRR"))
            print(f"| {labelled.name} | {len(labelled.questions)} | {mode} | {cells} |")
        meaningful = not isinstance(embedder, HashingEmbedder)
        # One question is the finest step a set can measure: a difference of one is noise.
        noise = max(NOISE, 1 / len(labelled.questions))
        best_side = max(table["keyword"]["R@5"], table["vector"]["R@5"])
        if meaningful and table["hybrid"]["R@5"] < best_side - noise:
            ok = False
        if table["keyword"]["R@5"] < table["rank-bm25 (peer)"]["R@5"] - noise:
            beats_peer = False
    print(f"\nhybrid >= keyword and vector, within one question: {'yes' if ok else 'NO'}")
    print(f"keyword >= rank-bm25, within one question: {'yes' if beats_peer else 'NO'}")
    return 0 if ok and beats_peer else 1


def main(argv: Sequence[str] = ()) -> int:
    """`[--hashing] [--set NAME]... [--full]`; exit 1 when hybrid ranks below keyword or
    vector on a set, 2 when a set named is not here."""
    only = [name for flag, name in itertools.pairwise(argv) if flag == "--set"]
    return asyncio.run(run(hashing="--hashing" in argv, only=only, full="--full" in argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
