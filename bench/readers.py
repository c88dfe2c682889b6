"""What holding the readers in reader processes costs (bot.readers.pool), and what it holds.

Cost: a 3-page PDF, a 1-megapixel photo of a printed note (OCR) and a 244 KB Wikipedia
article (tests/data/pages/wikipedia-mozilla.html), each read RUNS times the way the bot
read them before (the reader called in a thread of the bot's own process) and the way
it reads them now (sent to a running reader process): the medians and their difference
per item. Target: the difference within TARGET_OVERHEAD_MS. Also what starting a
reader process costs (paid by the first item, and by the next after a kill).

Bounds: each file of tests/fakes/hostile_files.py read through a ReaderPool at its
defaults (1 GiB, 30 s), each in a process of its own so that its peak memory is its
own: how it ended, how long it took, how much the reading process grew (peak resident
memory, VmHWM) and the reader's peak (sampled every 5 ms while it lives). Target: the
reading process grows by at most TARGET_GROWTH_MIB for every file.

Run: `python -m bench.readers [runs]` (default 15).
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from bot.readers import ReaderPool, Unreadable
from bot.readers.documents import document_text
from bot.readers.images import OcrUnavailable, engine, image_text
from bot.readers.pages import read_page
from tests.fakes import hostile_files
from tests.fakes.text_pictures import NOTES, note_photo

TARGET_OVERHEAD_MS = 20.0
TARGET_GROWTH_MIB = 50
ARTICLE = Path(__file__).parents[1] / "tests" / "data" / "pages" / "wikipedia-mozilla.html"
ARTICLE_URL = "https://en.wikipedia.org/wiki/Mozilla"
HOSTILE: dict[str, tuple[str, Callable[[], bytes]]] = {
    "PDF page inflating to 1 GiB": ("document", hostile_files.pdf_stream_bomb),
    "DOCX of 63 MB of XML": ("document", hostile_files.docx_of_63_mb_xml),
    "DOCX nested 200,000 deep": ("document", hostile_files.docx_nested),
    "PNG declaring 100,000 x 100,000": ("image", hostile_files.png_declaring),
    "GIF of 10,000 frames": ("image", hostile_files.gif_of_frames),
    "5 MB page of tiny elements": ("page", hostile_files.page_of_tiny_elements),
}


def _pdf(pages: int) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("helvetica", size=11)
    for page in range(pages):
        pdf.add_page()
        pdf.multi_cell(0, 6, f"Page {page + 1}. " + "Quarterly figures and their notes. " * 60)
    return bytes(pdf.output())


def _vm(pid: int | str, field: str) -> int:
    """A memory figure of /proc/PID/status, in KiB (0 when the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


async def _medians_ms(
    before: Callable[[], Awaitable[object]], after: Callable[[], Awaitable[object]], runs: int
) -> tuple[float, float]:
    """Median ms of each, run in turns so that a busy moment weighs on both alike."""
    await before()  # warm: imports, the reader process, Tesseract's models in the page cache
    await after()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for read, into in ((before, times[0]), (after, times[1])):
            started = time.perf_counter()
            await read()
            into.append((time.perf_counter() - started) * 1000)
    return statistics.median(times[0]), statistics.median(times[1])


async def _costs(runs: int) -> bool:
    pdf, photo, article = _pdf(3), note_photo(NOTES["en"]), ARTICLE.read_bytes()
    pool = ReaderPool()
    items: dict[str, tuple[Callable[[], Awaitable[object]], Callable[[], Awaitable[object]]]] = {
        "3-page PDF": (
            lambda: asyncio.to_thread(document_text, pdf, "q3.pdf", None, max_chars=200_000),
            lambda: pool.document(pdf, "q3.pdf", None, max_chars=200_000),
        ),
        "1-MP photo (OCR)": (
            lambda: asyncio.to_thread(image_text, photo),
            lambda: pool.image(photo),
        ),
        f"{len(article) // 1000} KB page": (
            lambda: asyncio.to_thread(read_page, article, ARTICLE_URL, "utf-8", max_chars=60_000),
            lambda: pool.page(article, ARTICLE_URL, "utf-8", max_chars=60_000),
        ),
    }
    ok = True
    try:
        started = time.perf_counter()
        await pool.document(b"x", "a.txt", "text/plain", max_chars=10)
        start_ms = (time.perf_counter() - started) * 1000
        print(f"starting a reader process (the first item pays it): {start_ms:.0f} ms")
        for name, (before, after) in items.items():
            in_thread, in_reader = await _medians_ms(before, after, runs)
            extra = in_reader - in_thread
            ok = ok and extra <= TARGET_OVERHEAD_MS
            print(
                f"  {name:<18} in a thread {in_thread:7.1f} ms, in a reader process "
                f"{in_reader:7.1f} ms: {extra:+.1f} ms (target ≤ {TARGET_OVERHEAD_MS:g})"
            )
    finally:
        await pool.close()
    return ok


async def _hostile(name: str) -> dict[str, Any]:
    kind, build = HOSTILE[name]
    data = build()
    if hasattr(build, "cache_clear"):
        build.cache_clear()  # the cached copy would count as the reading process's
    gc.collect()
    pool = ReaderPool()
    await pool.document(b"x", "a.txt", "text/plain", max_chars=10)
    before = _vm("self", "VmHWM")
    peak = 0
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            for pid in pool.pids:
                peak = max(peak, _vm(pid, "VmHWM"))
            await asyncio.sleep(0.005)

    sampler = asyncio.create_task(sample())
    started = time.perf_counter()
    try:
        if kind == "document":
            text = await pool.document(data, "file", None, max_chars=200_000)
        elif kind == "image":
            text = await pool.image(data)
        else:
            text = (await pool.page(data, "http://x.test/", "utf-8", max_chars=60_000)).text
        outcome = f"read, {len(text or ''):,} characters"
    except Unreadable as exc:
        outcome = exc.reason
    seconds = time.perf_counter() - started
    done.set()
    await sampler
    await pool.close()
    return {
        "outcome": outcome,
        "seconds": round(seconds, 1),
        "grown_mib": (_vm("self", "VmHWM") - before) // 1024,
        "reader_mib": peak // 1024,
        "size": len(data),
    }


def _bounds() -> bool:
    ok = True
    print("hostile files (each in a process of its own, the pool at its defaults):")
    for name in HOSTILE:
        out = subprocess.run(
            [sys.executable, "-m", "bench.readers", "--hostile", name],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parents[1],
        ).stdout
        found = json.loads(out.strip().splitlines()[-1])
        ok = ok and found["grown_mib"] <= TARGET_GROWTH_MIB
        print(
            f"  {name:<32} {found['size']:>10,} bytes: {found['outcome']} in "
            f"{found['seconds']:g} s; the reading process grew {found['grown_mib']} MiB "
            f"(target ≤ {TARGET_GROWTH_MIB}), the reader peaked at {found['reader_mib']} MiB"
        )
    return ok


def main(argv: Sequence[str] = ()) -> int:
    if argv[:1] == ["--hostile"]:
        print(json.dumps(asyncio.run(_hostile(argv[1]))))
        return 0
    runs = int(argv[0]) if argv else 15
    try:
        engine()
    except OcrUnavailable as missing:
        print(f"OCR is not available here: {missing.reason}")
        return 1
    cheap = asyncio.run(_costs(runs))
    bounded = _bounds()
    print(
        f"readers: per-item cost of the reader process {'ok' if cheap else 'MISSED'}, "
        f"hostile files {'bounded' if bounded else 'NOT BOUNDED'}"
    )
    return 0 if cheap and bounded else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
