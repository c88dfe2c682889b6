"""Time in questions, on the labelled personal vault of bench.time_corpus: recall@1
and @5 of each question's relevant note with and without the time reading, apart for
the questions that name a time and for the others; and what the reading costs.

Both runs go the way a question goes without a model (bot.commands.router `answer`
and the search tool it calls): without the time reading, the question's words
(`search_words`) are searched; with it, the time words leave the query and become
the days searched (`question_span`, then `plan_search`, as `search_entries` does).
The vault (bench.time_corpus, fixed seed) is imported through the real Store on the
embedded Postgres, keyword search only (no embedder: the dates are what is measured);
`--hashing` runs it hybrid, with the hashing embedder.

Targets: on the time questions, recall@5 with the reading above recall@5 without;
on the others, the same hits in the same order with and without (the reading finds
no time there, so nothing may change); the reading at most 1 ms median per question.

Run: `python -m bench.time_questions [runs] [--hashing]`.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bench.time_corpus import SET, generate, write_vault
from bot.commands import search_words
from bot.tools.search_span import plan_search
from storage.db.connection import Database
from storage.index.embeddings import Embedder, HashingEmbedder
from storage.store import Store
from storage.text.dates import question_span
from tests.storage.vault.vault_support import LIMITS

MAX_MS = 1.0
CATEGORIES = ("inbox", "people", "projects", "ideas", "admin")


async def _paths(
    store: Store, question: str, zone: ZoneInfo, now: datetime, timed: bool
) -> list[str]:
    """The notes the no-model answer shows for `question`, best first."""
    span = question_span(question, zone, now) if timed else None
    query = search_words(span.rest) if span else search_words(question)
    if not timed:
        return [h.path for h in (await store.search(query, limit=5)).hits]
    plan = plan_search(question, query, zone, now)
    found = await store.search(plan.query, limit=20 if plan.listing else 5, filed=plan.filed)
    return [h.path for h in found.hits]


def _recall(rankings: Sequence[list[str]], relevant: Sequence[str], k: int) -> float:
    return sum(r in ranked[:k] for ranked, r in zip(rankings, relevant, strict=True)) / len(
        relevant
    )


def _cost(labelled: Sequence[dict[str, str]], zone: ZoneInfo, now: datetime, runs: int) -> float:
    """Median ms of reading one question's time and planning its search."""
    per_question = []
    for row in labelled:
        question = row["question"]
        timings = []
        for _ in range(runs):
            started = time.perf_counter()
            span = question_span(question, zone, now)
            query = search_words(span.rest) if span else search_words(question)
            plan_search(question, query, zone, now)
            timings.append((time.perf_counter() - started) * 1000)
        per_question.append(statistics.median(timings))
    return statistics.median(per_question)


async def run(runs: int, embedder: Embedder | None) -> int:
    data: dict[str, Any] = json.loads(SET.read_text(encoding="utf-8"))
    zone = ZoneInfo(data["zone"])
    now = datetime.fromisoformat(data["now"])
    labelled: list[dict[str, str]] = data["questions"]
    notes, _ = generate()
    root = Path(tempfile.mkdtemp(prefix="brainbot-bench-time-"))
    try:
        write_vault(notes, root / "source")
        database = await Database.connect(None, root)
        try:
            store = await Store.open(
                vault_dir=root / "vault",
                categories=CATEGORIES,
                database=database,
                embedder=embedder,
                embed_in_background=False,
                **LIMITS,
            )
            await store.import_folder(root / "source")
            without = [await _paths(store, q["question"], zone, now, False) for q in labelled]
            with_time = [await _paths(store, q["question"], zone, now, True) for q in labelled]
        finally:
            await database.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    mode = "hybrid, hashing embedder" if embedder else "keyword search"
    print(f"{len(notes)} notes, {len(labelled)} questions (bench/sets/{SET.name}), {mode}")
    print("| questions | n | R@1 without | R@1 with | R@5 without | R@5 with |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    figures: dict[str, dict[str, float]] = {}
    for kind, name in (("yes", "with time words"), ("no", "without time words")):
        rows = [i for i, q in enumerate(labelled) if q["time"] == kind]
        relevant = [labelled[i]["relevant"] for i in rows]
        before, after = [without[i] for i in rows], [with_time[i] for i in rows]
        figures[kind] = {
            "same": sum(before[j] == after[j] for j in range(len(rows))),
            "r5_without": _recall(before, relevant, 5),
            "r5_with": _recall(after, relevant, 5),
        }
        print(
            f"| {name} | {len(rows)} | {_recall(before, relevant, 1):.3f} | "
            f"{_recall(after, relevant, 1):.3f} | {figures[kind]['r5_without']:.3f} | "
            f"{figures[kind]['r5_with']:.3f} |"
        )
        for i in rows:
            if labelled[i]["relevant"] not in with_time[i][:5]:
                print(f"  missed with the reading: {labelled[i]['question']!r}")
    others = sum(q["time"] == "no" for q in labelled)
    unchanged = figures["no"]["same"] == others
    print(
        f"questions without time words with the same hits in the same order: "
        f"{figures['no']['same']:.0f}/{others}"
    )
    cost = _cost(labelled, zone, now, runs)
    print(
        f"reading the time and planning the search: median {cost:.3f} ms per question "
        f"(target <= {MAX_MS} ms)"
    )
    helps = figures["yes"]["r5_with"] > figures["yes"]["r5_without"]
    return 0 if helps and unchanged and cost <= MAX_MS else 1


def main(argv: Sequence[str] = ()) -> int:
    """`[runs] [--hashing]`: runs per question for the cost; exit 1 when a target is missed."""
    numbers = [a for a in argv if a.isdigit()]
    embedder = HashingEmbedder(256) if "--hashing" in argv else None
    return asyncio.run(run(int(numbers[0]) if numbers else 200, embedder))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
