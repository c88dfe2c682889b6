"""Reader processes (bot.readers.pool): one is kept for the next item, runs under its
address-space limit, and an item that passes the memory or the time it is given, or
whose caller stops waiting, is that item's failure alone: its reader is killed (with
what it started) and the next item gets a fresh one."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.readers import ReaderPool, Unreadable
from tests.bot.enrich.test_shared_files import pdf_of
from tests.fakes.hostile_files import (
    docx_nested,
    docx_of_63_mb_xml,
    gif_of_frames,
    page_of_tiny_elements,
    pdf_stream_bomb,
    png_declaring,
)

REPORT = pdf_of(["Quarterly report", "Revenue grew", "Appendix: zeppelin logistics"])


def _address_limit(pid: int) -> list[str]:
    """The soft and hard limit of a process's address space, in bytes."""
    limits = Path(f"/proc/{pid}/limits").read_text().splitlines()
    (line,) = [line for line in limits if line.startswith("Max address space")]
    return line.split()[3:5]


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state == "Z"  # dead, waiting to be reaped


async def _until_gone(pid: int) -> None:
    for _ in range(1000):
        if _gone(pid):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"reader {pid} still runs")


async def _read_report(pool: ReaderPool) -> str | None:
    return await pool.document(REPORT, "q3.pdf", "application/pdf", max_chars=200_000)


@pytest.fixture
async def pool() -> AsyncIterator[ReaderPool]:
    readers = ReaderPool(memory_bytes=768 << 20, seconds=20)
    yield readers
    await readers.close()


async def test_one_reader_reads_item_after_item_under_its_memory_limit(pool: ReaderPool) -> None:
    assert pool.pids == []  # started on first use
    first = await _read_report(pool)
    (pid,) = pool.pids
    assert first is not None and "zeppelin logistics" in first
    assert await pool.document(b"plain words", "a.txt", "text/plain", max_chars=100) == (
        "plain words"
    )
    assert pool.pids == [pid]
    assert _address_limit(pid) == [str(768 << 20)] * 2


async def test_a_pdf_page_inflating_to_a_gibibyte_is_too_large_and_the_next_is_read(
    pool: ReaderPool,
) -> None:
    await _read_report(pool)
    (first,) = pool.pids
    with pytest.raises(Unreadable) as refused:
        await pool.document(pdf_stream_bomb(), "bomb.pdf", "application/pdf", max_chars=200_000)
    assert refused.value.reason == "too large to read"
    await _until_gone(first)
    assert "zeppelin logistics" in (await _read_report(pool) or "")
    assert pool.pids != [first]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (docx_nested(), "the Word document is nested too deeply to read"),
        (b"PK\x03\x04 broken", "the file is not a readable Word document"),
    ],
)
async def test_a_word_file_that_cannot_be_read_says_why_and_keeps_its_reader(
    pool: ReaderPool, data: bytes, expected: str
) -> None:
    await _read_report(pool)
    (pid,) = pool.pids
    with pytest.raises(Unreadable) as refused:
        await pool.document(data, "deep.docx", None, max_chars=200_000)
    assert refused.value.reason == expected
    assert pool.pids == [pid]


async def test_a_word_file_of_63_mb_of_xml_gives_the_characters_kept(pool: ReaderPool) -> None:
    text = await pool.document(docx_of_63_mb_xml(), "big.docx", None, max_chars=200_000)
    assert text is not None and text.startswith("word\n\nword")
    assert text.endswith("[… cut here: only the first 200,000 characters are kept]")


async def test_images_declaring_gigapixels_or_thousands_of_frames_are_held(
    pool: ReaderPool,
) -> None:
    with pytest.raises(Unreadable, match="10000 megapixels; I read at most 12 megapixels"):
        await pool.image(png_declaring(100_000, 100_000))
    assert await pool.image(gif_of_frames(10_000)) == ""  # its first frame, blank


async def test_an_item_past_its_time_is_killed_and_said_to_take_too_long() -> None:
    pool = ReaderPool(seconds=1)
    try:
        await pool.document(b"warm", "a.txt", "text/plain", max_chars=10)
        (pid,) = pool.pids
        with pytest.raises(Unreadable) as refused:
            await pool.page(page_of_tiny_elements(), "http://x.test/", "utf-8", max_chars=60_000)
        assert refused.value.reason == "it took too long to read (over 1 s)"
        await _until_gone(pid)
        assert await pool.document(b"again", "a.txt", "text/plain", max_chars=10) == "again"
    finally:
        await pool.close()


async def test_a_caller_that_stops_waiting_stops_the_reading(pool: ReaderPool) -> None:
    await pool.document(b"warm", "a.txt", "text/plain", max_chars=10)
    (pid,) = pool.pids
    page = page_of_tiny_elements()
    reading = asyncio.create_task(pool.page(page, "http://x.test/", "utf-8", max_chars=60_000))
    await _until_busy(pid)
    reading.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reading
    await _until_gone(pid)
    # Dead is not yet reaped: the pool lists it until the event loop has collected it.
    for _ in range(1000):
        if not pool.pids:
            break
        await asyncio.sleep(0.01)
    assert pool.pids == []


async def _until_busy(pid: int) -> None:
    """Until the reader has used a second of CPU (it is parsing)."""
    ticks = os.sysconf("SC_CLK_TCK")
    for _ in range(3000):
        if _cpu_ticks(pid) > ticks:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"reader {pid} never got to work")


async def test_a_closed_pool_leaves_no_reader_running(pool: ReaderPool) -> None:
    await _read_report(pool)
    (pid,) = pool.pids
    await pool.close()
    assert _gone(pid) and pool.pids == []


def _environment(pid: int) -> dict[str, str]:
    pairs = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(pair.decode().split("=", 1) for pair in pairs if b"=" in pair)


async def test_a_reader_gets_none_of_the_bot_s_keys_and_tokens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-parsers")
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:not-for-parsers")
    pool = ReaderPool()
    try:
        await pool.document(b"words", "a.txt", "text/plain", max_chars=10)
        (pid,) = pool.pids
        environment = _environment(pid)
    finally:
        await pool.close()
    assert "PATH" in environment
    assert "not-for-parsers" not in " ".join(environment.values())
