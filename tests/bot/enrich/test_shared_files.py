"""A photo or a document sent with a message: kept as sent, then its text is read into
the note after the reply, so search finds a word on the whiteboard or on page 3."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import frontmatter
from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont

from bot.events import Attachment, Conversation, InboundMessage, Sender
from tests.bot.helpers import git_log, notes, press
from tests.fakes.brain import Told, running_brain
from tests.fakes.hostile_files import DOCX_MIME, docx_nested
from tests.fakes.openai_server import FakeOpenAI, Step, call, say
from tests.fakes.text_pictures import needs_ocr

CHAT = Conversation("test", "chat-1")
JPEG, PDF = "image/jpeg", "application/pdf"


def photo_of(lines: list[str]) -> bytes:
    """A 1-megapixel photo of dark writing on a light board."""
    image = Image.new("RGB", (1200, 840), (236, 236, 228))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=64)
    for i, line in enumerate(lines):
        draw.text((80, 120 + i * 130), line, fill=(25, 30, 60), font=font)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=88)
    return out.getvalue()


def pdf_of(pages: list[str]) -> bytes:
    """A PDF with one line of text per page."""
    pdf = FPDF()
    pdf.set_font("helvetica", size=18)
    for text in pages:
        pdf.add_page()
        pdf.cell(text=text)
    return bytes(pdf.output())


def with_files(text: str, *files: Attachment, event_id: str = "f1") -> InboundMessage:
    return InboundMessage(
        event_id, CHAT, Sender("test", "U1", "Ada"), text, datetime.now(UTC), attachments=files
    )


@needs_ocr
async def test_the_text_on_a_whiteboard_photo_becomes_searchable(
    tmp_path: Path, database_url: str
) -> None:
    board = photo_of(["SPRINT PLANNING", "migrate billing", "hire designer"])
    told = Told()
    async with running_brain(tmp_path, database_url, deliver=told) as brain:
        (reply,) = await brain.engine.handle(
            with_files(
                "whiteboard from today", Attachment("photo", board, "board.jpg", "image/jpeg")
            )
        )
        vault = brain.settings.vault_dir
        (path,) = notes(vault)
        assert path in reply.text
        await brain.engine.enricher.wait_idle()
        note = frontmatter.load(vault / path)
        assert note.content.startswith("whiteboard from today")
        assert "![[attachments/board.jpg]]" in note.content
        section = note.content.split("## Text in the image", 1)[1].lower()
        assert "billing" in section and "designer" in section
        assert (vault / "attachments/board.jpg").read_bytes() == board
        hits = (await brain.store.search("billing")).hits
        assert [h.path for h in hits] == [path]
        (said,) = told.texts
        assert "board.jpg" in said


async def test_a_word_on_the_third_page_of_a_pdf_is_found(
    tmp_path: Path, database_url: str
) -> None:
    pdf = pdf_of(["Quarterly report", "Revenue grew in spring", "Appendix: zeppelin logistics"])
    async with running_brain(tmp_path, database_url) as brain:
        (reply,) = await brain.engine.handle(
            with_files("report from finance", Attachment("document", pdf, "q3.pdf", PDF))
        )
        await brain.engine.enricher.wait_idle()
        vault = brain.settings.vault_dir
        (path,) = notes(vault)
        assert path.startswith("inbox/") and "## Text of q3.pdf" in (vault / path).read_text()
        hits = (await brain.store.search("zeppelin")).hits
        assert [h.path for h in hits] == [path]
        # the note with its file, then its text (after the vault's first commit)
        kinds = [line.split()[0] for line in git_log(vault)]
        assert kinds == ["update", "create", "init"]
        # The text read in the meantime is not a change of the person's: the category
        # buttons under the reply still file the note.
        (filed,) = await brain.engine.handle(press(reply, "projects"))
        assert filed.text.startswith("Filed in projects:")
        assert notes(vault) == ["projects/report-from-finance.md"]


async def test_a_broken_document_leaves_the_note_as_sent_and_says_why(
    tmp_path: Path, database_url: str
) -> None:
    broken = b"%PDF-1.4\n" + b"\x00garbage" * 200
    told = Told()
    async with running_brain(tmp_path, database_url, deliver=told) as brain:
        await brain.engine.handle(
            with_files(
                "contract", Attachment("document", broken, "contract.pdf", "application/pdf")
            )
        )
        await brain.engine.enricher.wait_idle()
        vault = brain.settings.vault_dir
        (path,) = notes(vault)
        assert "## Text of" not in (vault / path).read_text()
        (said,) = told.texts
        assert said.startswith("Couldn't read contract.pdf:")


async def test_a_file_built_to_stall_its_reader_fails_alone_and_the_others_land(
    tmp_path: Path, database_url: str
) -> None:
    report = pdf_of(["Quarterly report", "Appendix: zeppelin logistics"])
    told = Told()
    async with running_brain(tmp_path, database_url, deliver=told) as brain:
        await brain.engine.handle(
            with_files(
                "papers from the board",
                Attachment("document", docx_nested(200_000), "deep.docx", DOCX_MIME),
                Attachment("document", report, "q3.pdf", PDF),
            )
        )
        await brain.engine.enricher.wait_idle()
        vault = brain.settings.vault_dir
        (path,) = notes(vault)
        note = frontmatter.load(vault / path).content
        assert note.startswith("papers from the board")
        assert "## Text of q3.pdf" in note and "zeppelin logistics" in note
        assert "## Text of deep.docx" not in note
        (said,) = told.texts
        assert said.splitlines()[1:] == [
            "Couldn't read deep.docx: the Word document is nested too deeply to read."
        ]
        assert "the text of q3.pdf" in said.splitlines()[0]


@needs_ocr
async def test_a_vision_model_adds_a_one_line_description_asked_without_tools(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    seen: list[dict[str, Any]] = []

    def vision(body: dict[str, Any]) -> Step:
        seen.append(body)
        return say("A whiteboard with a sprint plan in blue marker.")

    openai_fake.script = [
        call(
            "capture",
            category="projects",
            title="Sprint board",
            body="sprint board",
            confidence=0.9,
            tags=[],
            fields=[],
        ),
    ]
    openai_fake.responder = vision
    board = photo_of(["SPRINT PLANNING", "migrate billing"])
    async with running_brain(
        tmp_path, database_url, openai_fake, BRAINBOT_VISION_MODEL="vision-small"
    ) as brain:
        await brain.engine.handle(
            with_files("sprint board", Attachment("photo", board, "board.jpg", "image/jpeg"))
        )
        await brain.engine.enricher.wait_idle()
        text = (brain.settings.vault_dir / "projects/sprint-board.md").read_text()
        assert "*A whiteboard with a sprint plan in blue marker.*" in text
    (asked,) = seen
    assert asked["model"] == "vision-small" and "tools" not in asked
    parts = asked["messages"][0]["content"]
    assert parts[1]["image_url"]["url"].startswith("data:image/jpeg;base64,")


async def test_a_note_filed_before_its_text_was_read_gets_the_text_where_it_went(
    tmp_path: Path, database_url: str
) -> None:
    pdf = pdf_of(["Minutes", "The committee chose the heron logo"])
    async with running_brain(tmp_path, database_url) as brain:
        brain.engine.enricher.start_after = 1.0  # the person is quicker than the reading
        (reply,) = await brain.engine.handle(
            with_files("notes from the meeting", Attachment("document", pdf, "minutes.pdf", PDF))
        )
        (filed,) = await brain.engine.handle(press(reply, "projects"))
        assert filed.text.startswith("Filed in projects:")
        await brain.engine.enricher.wait_idle()
        vault = brain.settings.vault_dir
        assert notes(vault) == ["projects/notes-from-the-meeting.md"]
        assert "heron logo" in (vault / "projects/notes-from-the-meeting.md").read_text()


async def test_a_file_over_the_cap_is_told_and_the_others_stay_with_the_note(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, BRAINBOT_MAX_ATTACHMENT_BYTES="100") as brain:
        vault = brain.settings.vault_dir
        before = git_log(vault)
        (reply,) = await brain.engine.handle(
            with_files(
                "tickets for the trip",
                Attachment("document", b"x" * 101, "big.pdf", PDF),
                Attachment("document", b"seat 12A", "ticket.txt", "text/plain"),
            )
        )
        assert reply.notice is not None and "Could not keep big.pdf" in reply.notice
        (path,) = notes(vault)
        assert "![[attachments/ticket.txt]]" in (vault / path).read_text()
        assert not (vault / "attachments/big.pdf").exists()
        assert len(git_log(vault)) == len(before) + 1  # the note and its file together
        await brain.engine.enricher.wait_idle()


async def test_files_sent_with_a_question_are_kept_all_the_same(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        vault = brain.settings.vault_dir
        before = git_log(vault)
        await brain.engine.handle(
            with_files(
                "/search boiler",
                Attachment("document", b"one", "a.txt", "text/plain"),
                Attachment("document", b"two", "a.txt", "text/plain"),
            )
        )
        assert notes(vault) == []
        assert (vault / "attachments/a.txt").read_bytes() == b"one"
        assert (vault / "attachments/a-2.txt").read_bytes() == b"two"
        assert git_log(vault) == ["attach 2 files", *before]
