"""Reading one link or file of a saved note into a `Read`: the page behind a link (a PDF
behind a link is read as a document), the text in a photo, a document's text, the words
of a voice note, an audio file or a video (local transcription).

Parsing runs in a reader process held by memory and time limits (bot.readers); every
failure becomes a short reason for the person, never an exception that would stop
the other items of the note.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from bot.enrich.compose import (
    Read,
    document_section,
    image_section,
    link_section,
    transcript_section,
    words,
)
from bot.enrich.fetch_policy import FetchFailed, FetchPolicy
from bot.enrich.model import describe, summarise
from bot.llm import LLM
from bot.readers import ReaderPool, Unreadable
from storage.text.dates import iso_day

log = logging.getLogger(__name__)

PAGE_CHARS = 60_000  # the page's text kept in the note (about 10,000 words)
DOCUMENT_CHARS = 200_000
HEARD_SECONDS = 3600.0  # the most of one clip heard: an hour is 230 MB of decoded sound
TITLE_WORDS = 12  # a voice note's title: its first sentence when no longer, else cut


@dataclass(frozen=True, slots=True)
class Speech:
    """Local transcription: the model folder, the language (None: detected per clip),
    and the one reader process that hears (bot.readers.speech)."""

    model_dir: str
    language: str | None
    pool: ReaderPool
    timeout: float  # seconds one clip may take (the pool's own limit)


@dataclass(frozen=True, slots=True)
class Readers:
    """What reading may use: the fetch rules, a model for summaries and photos, the
    reader processes that parse what was fetched or sent, and local transcription."""

    policy: FetchPolicy | None  # None: links are not fetched (BRAINBOT_FETCH=false)
    read_files: bool = True
    llm: LLM | None = None
    vision_model: str | None = None
    pool: ReaderPool = field(default_factory=ReaderPool)
    speech: Speech | None = None  # None: voice notes are not transcribed after the reply


async def read_link(url: str, readers: Readers) -> Read:
    """The page (or PDF) behind a link, read into a section; a failure is said in `failed`."""
    if readers.policy is None:
        return Read("link", url)
    from bot.enrich.fetch import fetch  # aiohttp: imported by the first link read

    try:
        fetched = await fetch(url, readers.policy)
    except FetchFailed as exc:
        return Read("link", url, failed=f"Couldn't fetch the page {_short(url)}: {exc}.")
    except Exception as exc:  # a parser or network error nobody foresaw: told, not raised
        log.exception("fetching %s failed", url)
        return Read("link", url, failed=f"Couldn't fetch the page {_short(url)}: {exc}.")
    host = urlsplit(fetched.final_url).hostname or ""
    if fetched.content_type == "application/pdf":
        name = unquote(urlsplit(fetched.final_url).path.rsplit("/", 1)[-1]) or "document.pdf"
        try:
            text = await readers.pool.document(
                fetched.data, name, "application/pdf", max_chars=DOCUMENT_CHARS
            )
        except Unreadable as exc:
            return Read("link", url, failed=f"Couldn't read the PDF {_short(url)}: {exc}.")
        text = text or ""
        section = link_section(url, name, text, site=host)
        return Read("link", url, section, {"url": url, "site": host}, f"the PDF {name}")
    try:
        page = await readers.pool.page(
            fetched.data, fetched.final_url, fetched.charset, max_chars=PAGE_CHARS
        )
    except Unreadable as exc:
        return Read("link", url, failed=f"Couldn't read the page {_short(url)}: {exc}.")
    if not page.text.strip():
        return Read("link", url, failed=f"The page {_short(url)} had no text I could keep.")
    summary = None
    if readers.llm is not None:
        summary = await summarise(readers.llm, page.title, page.text)
    section = link_section(
        url,
        page.title,
        page.text,
        site=page.site,
        author=page.author,
        published=page.published,
        summary=summary,
    )
    fields = {
        "url": url,
        "site": page.site or host,
        "author": page.author,
        # A day is written unquoted, which Obsidian shows as a date property; anything
        # else the page said (a month) stays as text.
        "published": (iso_day(page.published) or page.published) if page.published else None,
        "page_title": page.title,
    }
    told = f"the page “{page.title or host}” ({words(page.text):,} words)"
    return Read("link", url, section, {k: v for k, v in fields.items() if v}, told)


async def read_photo(
    name: str, data: bytes, mime: str | None, readers: Readers, *, several: bool
) -> Read:
    """The text in a photo (and, with a vision model, what it shows)."""
    if not readers.read_files:
        return Read("photo", name)
    description = None
    if readers.llm is not None and readers.vision_model:
        description = await describe(readers.llm, readers.vision_model, data, mime)
    try:
        text = await readers.pool.image(data)
    except Unreadable as exc:
        if description:
            return Read("photo", name, image_section(name, "", description, several=several))
        return Read("photo", name, failed=f"Couldn't read the text in {name}: {exc}.")
    if not text.strip() and not description:
        return Read("photo", name)  # a photo without text: nothing to add, nothing to say
    section = image_section(name, text, description, several=several)
    told = f"the text in {name} ({words(text):,} words)" if text.strip() else f"what {name} shows"
    return Read("photo", name, section, told=told)


async def read_document(name: str, data: bytes, mime: str | None, readers: Readers) -> Read:
    """A document's text (PDF, Word, plain text, Markdown); other kinds are kept as sent."""
    if not readers.read_files:
        return Read("document", name)
    try:
        text = await readers.pool.document(data, name, mime, max_chars=DOCUMENT_CHARS)
    except Unreadable as exc:
        return Read("document", name, failed=f"Couldn't read {name}: {exc}.")
    if text is None:  # not a kind of file that has text to read (an archive, a video)
        return Read("document", name)
    if not text.strip():
        return Read("document", name, failed=f"{name} has no text I could read.")
    return Read(
        "document",
        name,
        document_section(name, text),
        told=f"the text of {name} ({words(text):,} words)",
    )


async def read_speech(kind: str, name: str, data: bytes, speech: Speech) -> Read:
    """The words of a voice note, an audio file or a video, heard on this machine; a
    note that had no words of its own takes its title from them."""
    try:
        heard = await speech.pool.speech(
            data, speech.model_dir, speech.language, max_seconds=HEARD_SECONDS
        )
    except Unreadable as exc:
        return Read(kind, name, failed=f"Couldn't transcribe {name}: {exc}. The audio is kept.")
    if not heard.text.strip():
        return Read(kind, name, failed=f"I heard no words in {name}; the audio is kept.")
    cut = heard.heard_seconds + 1 < heard.seconds
    section = transcript_section(
        name, heard.text, heard.language, heard_minutes=heard.heard_seconds / 60 if cut else None
    )
    title = _spoken_title(heard.text)
    told = f"the words of {name} ({words(heard.text):,} words)"
    return Read(kind, name, section, {"heard_title": title}, told)


def _spoken_title(text: str) -> str:
    """A voice note's first sentence as its title, or its first words when that runs on."""
    sentence = re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0].split()
    if len(sentence) <= TITLE_WORDS:
        return " ".join(sentence).rstrip(".,;:!?")
    return " ".join(sentence[: TITLE_WORDS - 4]).rstrip(".,;:!?") + "…"


def _short(url: str) -> str:
    parts = urlsplit(url)
    shown = (parts.hostname or "") + parts.path
    return shown if len(shown) <= 60 else shown[:57] + "…"
