"""Files built to exhaust a reader, sent on Telegram to a running `brainbot run`: a PDF
page whose content stream inflates to 1 GiB, a Word file of 63 MB of XML, one of
200,000 nested elements, a PNG declaring 100,000 by 100,000 pixels, a GIF of 10,000
frames. Each is that item's failure alone ("too large to read"), the note stays as
sent, the other files of the same note are read, the bot's own process stays small
(its peak resident memory, from /proc), the reader runs under its address-space limit,
and the next message is answered while the reading goes on."""

from __future__ import annotations

import asyncio
import contextlib
import io
from pathlib import Path
from typing import Any

import frontmatter
import pytest
from PIL import Image, ImageDraw, ImageFont

from tests.bot.helpers import notes_by_vault
from tests.fakes.hostile_files import (
    DOCX_MIME,
    docx_nested,
    docx_of_63_mb_xml,
    gif_of_frames,
    pdf_stream_bomb,
    png_declaring,
)
from tests.fakes.telegram_updates import Updates, photo
from tests.fakes.text_pictures import needs_ocr
from tests.production.conftest import Fakes
from tests.production.process import Brainbot

pytestmark = pytest.mark.slow  # starts brainbot processes

# What the bot's own process may grow by (peak resident memory) over all the files of
# a test: the files themselves are a few megabytes.
GROWTH_MIB = 100
MEMORY_MIB = 1024  # BRAINBOT_READ_MEMORY_MB's default


def _status_mib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) // 1024
    raise AssertionError(f"no {field} for process {pid}")


def _readers(parent: int) -> list[int]:
    """The reader processes `parent` started (each in a session of its own)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == parent and b"bot.readers.reader" in command:
            found.append(int(stat.parent.name))
    return found


def _address_limit(pid: int) -> str:
    limits = Path(f"/proc/{pid}/limits").read_text().splitlines()
    return next(" ".join(line.split()[3:5]) for line in limits if "address space" in line)


class Watch:
    """Samples the reader processes while the bot reads: their peak memory; then the
    address-space limit of those still running once it is done."""

    def __init__(self, bot_pid: int) -> None:
        self.bot_pid = bot_pid
        self.peak_mib = 0
        self.limits: set[str] = set()
        self._task = asyncio.create_task(self._sample())

    async def _sample(self) -> None:
        while True:
            for pid in _readers(self.bot_pid):
                # It may end between the listing and the reading.
                with contextlib.suppress(OSError, AssertionError):
                    self.peak_mib = max(self.peak_mib, _status_mib(pid, "VmHWM"))
            await asyncio.sleep(0.01)

    def stop(self) -> None:
        self._task.cancel()
        self.limits = {_address_limit(pid) for pid in _readers(self.bot_pid)}


async def _run(
    tmp_path: Path, database_url: str, fakes: Fakes, items: list[dict[str, Any]], files: dict
) -> tuple[str, str, str, int, Watch]:
    """Send an album of `items`, then a message; what was told of the reading, the
    note, the reply to the message, the bot's growth in MiB, and the readers seen."""
    for file_id, data in files.items():
        fakes.telegram.add_file(file_id, data)
    env = fakes.env(tmp_path, database_url, slack=None)
    bot = await Brainbot(tmp_path, env).start()
    try:
        await bot.wait_ready()
        assert bot.process is not None
        pid = bot.process.pid
        updates = Updates()
        fakes.telegram.queue_update(updates.message("warming up with a first thought"))
        await fakes.telegram.wait_for("sendMessage", 1, within=30)
        before = _status_mib(pid, "VmHWM")
        watch = Watch(pid)
        for part in updates.album(items, caption="shared files"):
            fakes.telegram.queue_update(part)
        await fakes.telegram.wait_for("sendMessage", 2, within=30)
        fakes.telegram.queue_update(updates.message("the next thought, about rye bread"))
        sent = await fakes.telegram.wait_for("sendMessage", 4, within=120)
        watch.stop()
        grown = _status_mib(pid, "VmHWM") - before
    finally:
        assert await bot.stop() == 0, bot.log()
    texts = [message["text"] for message in sent]
    (told,) = [text for text in texts if "Couldn't read" in text or "Added to" in text]
    (answer,) = [text for text in texts[2:] if text != told]
    # The next message was answered while the files were still being read.
    assert texts.index(answer) < texts.index(told), texts
    by_vault = notes_by_vault(tmp_path / "data")
    vault = tmp_path / "data" / "vault"
    (note,) = [p for p in by_vault["vault"] if "shared-files" in p]
    return told, (vault / note).read_text(), answer, grown, watch


def _pdf_of(lines: list[str]) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("helvetica", size=18)
    for text in lines:
        pdf.add_page()
        pdf.cell(text=text)
    return bytes(pdf.output())


def _document(file_id: str, name: str, mime: str) -> dict[str, Any]:
    return {
        "document": {
            "file_id": file_id,
            "file_unique_id": f"u-{file_id}",
            "file_name": name,
            "mime_type": mime,
        }
    }


@pytest.mark.slow(seconds=8)
async def test_a_pdf_bomb_and_word_files_built_to_exhaust_fail_alone(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    files = {
        "bomb": pdf_stream_bomb(),
        "big": docx_of_63_mb_xml(),
        "deep": docx_nested(),
        "good": _pdf_of(["Quarterly report", "Appendix: zeppelin logistics"]),
    }
    items = [
        _document("bomb", "report.pdf", "application/pdf"),
        _document("big", "minutes.docx", DOCX_MIME),
        _document("deep", "deep.docx", DOCX_MIME),
        _document("good", "q3.pdf", "application/pdf"),
    ]
    told, note, _, grown, watch = await _run(tmp_path, database_url, fakes, items, files)

    assert "Couldn't read report.pdf: too large to read." in told.splitlines()
    assert "Couldn't read deep.docx: the Word document is nested too deeply to read." in told
    assert "the text of minutes.docx" in told and "the text of q3.pdf" in told
    body = frontmatter.loads(note).content
    assert body.startswith("shared files")
    assert "zeppelin logistics" in body  # the good file of the same note landed
    assert "only the first 200,000 characters are kept" in body  # the 63 MB one, cut
    assert "## Text of report.pdf" not in body and "## Text of deep.docx" not in body
    assert grown < GROWTH_MIB, f"the bot's own process grew by {grown} MiB"
    assert watch.limits == {f"{MEMORY_MIB << 20} {MEMORY_MIB << 20}"}
    assert 0 < watch.peak_mib <= MEMORY_MIB


def _photo_of(lines: list[str]) -> bytes:
    image = Image.new("RGB", (1200, 840), (236, 236, 228))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=64)
    for i, line in enumerate(lines):
        draw.text((80, 120 + i * 130), line, fill=(25, 30, 60), font=font)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=88)
    return out.getvalue()


@needs_ocr
async def test_images_declaring_ten_gigapixels_or_ten_thousand_frames_fail_alone(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    # A bot is handed what the sender's app sent as a photo; the reader trusts only bytes.
    files = {
        "huge": png_declaring(100_000, 100_000),
        "frames": gif_of_frames(10_000),
        "board": _photo_of(["SPRINT PLANNING", "migrate billing"]),
    }
    items = [{"photo": photo(name)} for name in files]
    told, note, _, grown, watch = await _run(tmp_path, database_url, fakes, items, files)

    assert "the image is 10000 megapixels; I read at most 12 megapixels" in told
    assert "billing" in frontmatter.loads(note).content.lower()
    assert grown < GROWTH_MIB, f"the bot's own process grew by {grown} MiB"
    assert watch.limits == {f"{MEMORY_MIB << 20} {MEMORY_MIB << 20}"}
    assert 0 < watch.peak_mib <= MEMORY_MIB
