"""Related notes at capture (bot.connect): how the thresholds were chosen, and what the
lookup and the capture's reply cost.

1. Calibration, on bench/sets/related-til-help.json: a vault of third-party notes
   (Josh Branchaud's TIL notes, the Obsidian help pages; see BRAINBOT_BENCH_CORPORA in
   bench/thirdparty_ranking.py), and 90 captures: 50 of its pages, held out of the
   vault, each related to the notes of its own topic folder, and 40 everyday thoughts
   related to none of them. Each capture is filed into the vault, its neighbours are
   scored (storage.index.related) and the capture removed again. Then the rule of
   bot.connect.related is swept over a grid and scored:
   - precision: of all notes suggested (at most 3 per capture), the share in the
     capture's topic (a lower bound: a vim note about git commits is counted wrong
     next to a git note);
   - alarms: the share of the 40 unrelated captures that got any suggestion;
   - recall: the share of the 50 page captures that got at least one right note.
   Chosen: the best recall with no alarm and precision >= 0.9 (unrelated notes must
   not be suggested). The neighbours are kept in BRAINBOT_BENCH_CACHE (default
   `.candidates` beside the corpora) so the sweep can be run again in seconds.
   Vectors: the local multilingual-e5-small (the `local` extra) when installed, else
   the hashing embedder (which measures shared words, not meaning: said so).
2. Lookup time: the median of `Index.related` over 50 notes of a generated vault of
   10,000 notes (bench/storage_corpus.py, hashing vectors of 384 dimensions, as E5's),
   target <= 30 ms.
3. The capture's reply: engine time per captured message with the suggestions on and
   off (a runtime as bench/engine.py's, the fake model filing each message, on 1,000
   generated notes; no embeddings, as its settings have): the suggestion runs after
   the reply, so the two must match (within 20 % + 2 ms).

Measured 2026-11-26, on a 2-core machine shared with other work:
vectors from multilingual-e5-small (the `local` extra), a vault of 796 notes.

Shipped: z >= 3 sharing a word, or words >= 0.25 sharing 4. Precision by the topic
folder, then with any help page counted right for a help capture.

| rule | precision | precision (help: any page) | alarms | recall |
| --- | --- | --- | --- | --- |
| shipped | 0.75 | 0.92 | 0 of 40 | 0.64 |
| z >= 2.5 (else shipped) | 0.71 | 0.85 | 0 | 0.68 |
| z >= 3.5 (else shipped) | 0.74 | 0.95 | 0 | 0.58 |
| words >= 0.2 (else shipped) | 0.70 | 0.84 | 1 | 0.70 |
| 3 shared words (else shipped) | 0.73 | 0.90 | 2 | 0.64 |
| meaning only, z >= 3 | 0.73 | 0.92 | 0 | 0.60 |
| words only (no embeddings), shipped | 0.83 | 0.98 | 0 | 0.48 |

The unrelated captures' best z-score was 2.07; the related ones' reached 5.5. Of the
8 suggestions for TIL captures counted wrong by folder, 5 are related by any reading
(a git stash note filed under unix, a Rails index beside a Postgres index, React and
JavaScript destructuring, a CSV note beside the help page on importing CSV, date
formatting beside the Templates page's date formats); 3 are not. Chosen on one half
of the captures and scored on the other, the sweep once picked 3 shared words, which
raised 2 alarms of 20 there; the shipped 4 raised none on either half. The 40
unrelated captures were written for this set (everyday thoughts); the rest is
third-party text. An OpenAI-compatible embedder has not been measured: the z-score
against the vault's own random pairs is what should carry over.

Lookup at 10,000 notes: median 10.8 to 15.8 ms over two quiet runs (p90 11.6 to 17.5);
19 ms under load, where a hybrid search of a note's title took 22 ms. Capture reply,
1,000 notes, suggestions off and on alternating: 58.3 ms and 58.3 ms (an earlier run
in two rounds: 35.5 and 38.7 ms): the suggestion does not delay the reply.

Run: `python -m bench.related [--sweep-only]`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from app.engine_parts import build_engine
from app.runtime import Runtime
from bench.engine import message as engine_message
from bench.storage import CATEGORIES, DIMENSIONS
from bench.storage_corpus import generate, write_notes
from bench.storage_ranking import pick_embedder
from bot.connect import related as rule
from bot.events import Conversation, Reply
from storage.db.connection import Database
from storage.index.embeddings import Embedder, HashingEmbedder
from storage.index.related import Neighbour
from storage.store import Store
from tests.fakes.brain import make_settings
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.scripts import capture_everything
from tests.storage.vault.vault_support import LIMITS

SET = Path(__file__).parent / "sets" / "related-til-help.json"
LOOKUP_TARGET_MS = 30.0
GRID_SIMILARITY = (1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 99.0)  # 99: vectors unused
GRID_KEYWORD = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 1.01)  # 1.01: words alone never
GRID_SHARED = (2, 3, 4, 5, 6)
_LINK = re.compile(r"!?\[\[([^\]|]+)(?:\|([^\]]+))?\]\]")


@dataclass(frozen=True)
class Scored:
    """One capture's neighbours and the folders its related notes are in."""

    capture: str
    related: tuple[str, ...]
    neighbours: tuple[Neighbour, ...]
    near: tuple[str, ...] = ()  # a looser reading of `related` (see the set's `about`)


def corpora() -> Path:
    return Path(os.environ.get("BRAINBOT_BENCH_CORPORA", "corpora"))


def cache_file(embedder_name: str) -> Path:
    folder = Path(os.environ.get("BRAINBOT_BENCH_CACHE", corpora() / ".candidates"))
    slug = re.sub(r"[^a-z0-9]+", "-", embedder_name.lower()).strip("-")
    return folder / f"related-{slug}.json"


def as_capture(text: str, fallback: str) -> tuple[str, str]:
    """(title, body) of a page filed as a thought: its heading is the title, its links
    plain words (a thought does not link the notes it is to be compared with)."""
    text = _LINK.sub(lambda m: m[2] or m[1], text)
    lines = text.strip().split("\n")
    if lines and lines[0].startswith("# "):
        return lines[0][2:].strip(), "\n".join(lines[1:]).strip()
    return fallback, text.strip()


def build_vault(labelled: dict[str, Any], into: Path) -> None:
    captured = {c["page"] for c in labelled["captures"] if "page" in c}
    for prefix, folder in labelled["corpora"].items():
        for page in sorted((corpora() / folder).glob("*/*.md")):
            name = f"{prefix}/{page.parent.name}/{page.name}"
            if name not in captured:
                (into / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(page, into / name)


def page_text(labelled: dict[str, Any], name: str) -> str:
    prefix, rest = name.split("/", 1)
    return (corpora() / str(labelled["corpora"][prefix]) / rest).read_text(encoding="utf-8")


async def score_set(embedder: Embedder) -> list[Scored]:
    labelled = json.loads(SET.read_text(encoding="utf-8"))
    root = Path(tempfile.mkdtemp(prefix="brainbot-related-"))
    try:
        build_vault(labelled, root / "pages")
        database = await Database.connect(None, root)
        try:
            store = await Store.open(
                vault_dir=root / "vault",
                categories=("inbox",),
                database=database,
                embedder=embedder,
                **LIMITS,
            )
            started = time.perf_counter()
            await store.import_folder(root / "pages")
            print(
                f"vault: {await store.index.count()} notes in {time.perf_counter() - started:.0f} s"
            )
            out = []
            for number, capture in enumerate(labelled["captures"]):
                if "page" in capture:
                    title, body = as_capture(page_text(labelled, capture["page"]), capture["page"])
                else:
                    title, body = capture["text"], capture["text"]
                entry = await store.create("inbox", title[:80], body)
                near = await store.index.related(entry.path)
                await store.delete(entry.path)
                name = capture.get("page") or f"text {number}"
                out.append(
                    Scored(
                        name,
                        tuple(capture["related"]),
                        tuple(near),
                        tuple(capture.get("near", capture["related"])),
                    )
                )
            return out
        finally:
            await database.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


@dataclass(frozen=True)
class Rule:
    similarity: float
    keyword: float
    shared: int

    def __str__(self) -> str:
        vectors = "off" if self.similarity >= 99 else f"z>={self.similarity:g}"
        words = "off" if self.keyword > 1 else f"kw>={self.keyword:g} (shared>={self.shared})"
        return f"{vectors}, {words}"

    def passes(self, n: Neighbour) -> bool:
        if n.similarity is not None and n.similarity >= self.similarity and n.shared >= 1:
            return True
        return n.keyword >= self.keyword and n.shared >= self.shared


def evaluate(scored: Sequence[Scored], chosen: Rule) -> dict[str, float]:
    suggested = right = near = alarms = found = 0
    positives = [s for s in scored if s.related]
    for s in scored:
        passed = sorted(
            (n for n in s.neighbours if chosen.passes(n)),
            key=lambda n: (-rule.strength(n), n.path),
        )[: rule.SHOWN]
        good = sum(1 for n in passed if any(n.path.startswith(r) for r in s.related))
        suggested += len(passed)
        right += good
        near += sum(1 for n in passed if any(n.path.startswith(r) for r in s.near or s.related))
        if not s.related and passed:
            alarms += 1
        if s.related and good:
            found += 1
    negatives = len(scored) - len(positives)
    return {
        "precision": right / suggested if suggested else 1.0,
        "near": near / suggested if suggested else 1.0,
        "alarms": alarms / negatives if negatives else 0.0,
        "recall": found / len(positives) if positives else 0.0,
        "suggested": suggested,
    }


def sweep(scored: Sequence[Scored]) -> tuple[Rule, list[tuple[Rule, dict[str, float]]]]:
    rows = [
        (r, evaluate(scored, r))
        for r in (
            Rule(z, k, s)
            for z, k, s in itertools.product(GRID_SIMILARITY, GRID_KEYWORD, GRID_SHARED)
        )
    ]
    fit = [(r, m) for r, m in rows if m["alarms"] == 0 and m["near"] >= 0.9]
    best = max(fit or rows, key=lambda rm: (rm[1]["recall"], rm[1]["precision"], rm[0].similarity))
    return best[0], rows


def report(scored: Sequence[Scored], embedder_name: str) -> None:
    best, rows = sweep(scored)
    shipped = Rule(rule.SIMILARITY_AT_LEAST, rule.KEYWORD_AT_LEAST, rule.KEYWORD_SHARED_AT_LEAST)
    words_only = [(r, m) for r, m in rows if r.similarity >= 99 and m["alarms"] == 0]
    best_words = max(words_only, key=lambda rm: (rm[1]["recall"], rm[1]["precision"]))[0]
    print(f"\nvectors: {embedder_name}; {len(scored)} captures\n")
    print(
        "| rule | precision (topic folder) | precision (help: any help page) "
        "| alarms (unrelated captures with a suggestion) | recall | suggested |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    near = {
        shipped,
        best,
        best_words,
        Rule(shipped.similarity - 0.5, shipped.keyword, shipped.shared),
        Rule(shipped.similarity + 0.5, shipped.keyword, shipped.shared),
        Rule(shipped.similarity, shipped.keyword - 0.05, shipped.shared),
        Rule(shipped.similarity, shipped.keyword + 0.05, shipped.shared),
        Rule(shipped.similarity, shipped.keyword, shipped.shared - 1),
        Rule(shipped.similarity, shipped.keyword, shipped.shared + 1),
        Rule(99.0, shipped.keyword - 0.05, shipped.shared),
        Rule(99.0, shipped.keyword + 0.05, shipped.shared),
        Rule(shipped.similarity, 1.01, shipped.shared),
        Rule(99.0, shipped.keyword, shipped.shared),
    }
    for r in sorted(near, key=lambda r: (r.similarity, r.keyword, r.shared)):
        m = evaluate(scored, r)
        mark = " (shipped)" if r == shipped else " (best)" if r == best else ""
        print(
            f"| {r}{mark} | {m['precision']:.2f} | {m['near']:.2f} | {m['alarms']:.2f} "
            f"| {m['recall']:.2f} "
            f"| {m['suggested']:.0f} |"
        )


def two_fold(scored: Sequence[Scored]) -> None:
    """The sweep's choice on half the captures, scored on the other half: whether the
    choice holds on captures it was not made on."""
    shipped = Rule(rule.SIMILARITY_AT_LEAST, rule.KEYWORD_AT_LEAST, rule.KEYWORD_SHARED_AT_LEAST)
    for fold in (0, 1):
        train = [s for i, s in enumerate(scored) if i % 2 == fold]
        test = [s for i, s in enumerate(scored) if i % 2 != fold]
        chosen, _ = sweep(train)
        for name, r in (("chosen on the other half", chosen), ("shipped", shipped)):
            m = evaluate(test, r)
            print(
                f"half {fold + 1}, {name} ({r}): precision {m['precision']:.2f} / "
                f"{m['near']:.2f}, alarms {m['alarms']:.2f}, recall {m['recall']:.2f}"
            )


async def calibration(sweep_only: bool) -> None:
    """Score the set's captures (or read them back from the cache) and print the sweep.
    Without the corpora nothing is scored, and it says so."""
    embedder, name = pick_embedder(os.environ.get("BENCH_EMBEDDER") == "hashing")
    cached = cache_file(name)
    if sweep_only and not cached.is_file():
        print(f"no neighbours kept at {cached}: run without --sweep-only first")
        return
    if cached.is_file():
        rows = json.loads(cached.read_text(encoding="utf-8"))
        # The labels are read from the set as it is now (kept in set order).
        captures = json.loads(SET.read_text(encoding="utf-8"))["captures"]
        scored = [
            Scored(
                r["capture"],
                tuple(c["related"]),
                tuple(Neighbour(**n) for n in r["neighbours"]),
                tuple(c.get("near", c["related"])),
            )
            for r, c in zip(rows, captures, strict=True)
        ]
    elif not all((corpora() / c).is_dir() for c in ("til/notes", "obsidian-help/en")):
        print(f"calibration skipped: no corpora under {corpora()} (BRAINBOT_BENCH_CORPORA)")
        return
    else:
        scored = await score_set(embedder)
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps([asdict(s) for s in scored]), encoding="utf-8")
    report(scored, name)
    print()
    two_fold(scored)


async def lookup_ms(count: int = 10_000, runs: int = 50) -> tuple[float, float, int]:
    """(median, p90) milliseconds of `Index.related` on a generated vault of `count`
    notes, and how many of the looked-up notes had a neighbour passing the rule."""
    notes, _ = generate(count, seed=3)
    root = Path(tempfile.mkdtemp(prefix="brainbot-related-"))
    try:
        write_notes(notes, root / "import")
        database = await Database.connect(None, root / "data")
        try:
            store = await Store.open(
                vault_dir=root / "vault",
                categories=CATEGORIES,
                database=database,
                embedder=HashingEmbedder(DIMENSIONS),
                **LIMITS,
            )
            await store.import_folder(root / "import")
            paths = sorted(await store.index.paths())[:: max(1, count // runs)][:runs]
            await store.index.related(paths[-1])  # the vault's baseline, sampled once an hour
            timings, related = [], 0
            for path in paths:
                started = time.perf_counter()
                near = await store.index.related(path)
                timings.append((time.perf_counter() - started) * 1000)
                related += bool(rule.most_related(near))
            await store.close()
            return statistics.median(timings), statistics.quantiles(timings, n=10)[-1], related
        finally:
            await database.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def note_texts(folder: Path) -> list[str]:
    """The bodies of the notes under `folder` (what the bench sends as captures)."""
    pages = sorted(folder.rglob("*.md"))
    return [p.read_text(encoding="utf-8").split("---")[-1].strip()[:400] for p in pages]


async def reply_ms(notes: int = 1_000, runs: int = 60) -> dict[str, float]:
    """Median engine time of a capture's reply, with the suggestions off and on; and how
    many captures got a suggestion (after the reply, not timed)."""
    openai = FakeOpenAI()
    openai.responder = capture_everything
    await openai.start()
    out: dict[str, float] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="brainbot-related-engine-") as tmp:
            generated, _ = generate(notes, seed=5)
            write_notes(generated, Path(tmp, "source"))
            settings = make_settings(Path(tmp), None, openai, BRAINBOT_RATE_LIMIT=0)  # type: ignore[arg-type]
            told: list[object] = []

            async def sink(conversation: Conversation, reply: Reply) -> None:
                if reply.text.startswith((rule.RELATED, "Linked to")):  # not a timeline line
                    told.append(reply)

            # Suggestions are made where someone can be told: "on" is the runtime's engine,
            # which tells `sink`; "off" a second engine on the same vaults, telling nobody.
            runtime = await Runtime.open(settings, deliver=sink)
            off = build_engine(
                vaults=runtime.vaults,
                records=runtime.records,
                settings=settings,
                llm=runtime.llm,
                owner=runtime.liveness.token,
            )
            engines = {"off": off, "on": runtime.engine}
            try:
                await runtime.store.import_folder(Path(tmp, "source"))
                texts = note_texts(Path(tmp, "source"))
                # Off and on alternate, message by message: a machine whose load
                # changes during the run weighs on both alike.
                timings: dict[str, list[float]] = {"off": [], "on": []}
                for number in range(2 * runs):
                    mode = "on" if number % 2 else "off"
                    text = texts[(number * 7) % len(texts)]
                    event = engine_message("solo", f"r{number}", text)
                    started = time.perf_counter()
                    await engines[mode].handle(event)
                    timings[mode].append((time.perf_counter() - started) * 1000)
                    await engines[mode].related.wait_idle()  # the suggestion, not timed
                out = {mode: statistics.median(values) for mode, values in timings.items()}
                out["suggested"] = float(len(told))
            finally:
                for part in (off.enricher, off.timeline, off.related):
                    await part.close()
                await runtime.close()
    finally:
        await openai.stop()
    return out


def main(argv: Sequence[str] = ()) -> int:
    """Print the calibration table and the timings; exit 1 when a timing misses."""
    asyncio.run(calibration("--sweep-only" in argv))
    if "--sweep-only" in argv:
        return 0
    median, p90, related = asyncio.run(lookup_ms())
    replies = asyncio.run(reply_ms())
    print(
        f"\nlookup at 10,000 notes: median {median:.1f} ms, p90 {p90:.1f} ms "
        f"(target <= {LOOKUP_TARGET_MS:g}); {related} of 50 notes had a related note"
    )
    print(
        f"capture reply (1,000 notes, median, off and on alternating): "
        f"{replies['off']:.1f} ms without suggestions, {replies['on']:.1f} ms with "
        f"({replies['suggested']:.0f} suggestions sent after the replies)"
    )
    delayed = replies["on"] > replies["off"] * 1.2 + 2
    return 1 if median > LOOKUP_TARGET_MS or delayed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
