"""What a message brings besides its words: files kept in the vault, in the commit of
the note they came with (a voice note transcribed by the endpoint becomes its text), a
link saved before, and the job that reads its links, photos, documents and (heard on
this machine) voice notes into the note after the reply (bot.enrich.worker)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.enrich.hearing import TURN_ON, Hearing
from bot.enrich.link_keys import find_urls
from bot.enrich.saved import own_words, saved_before
from bot.enrich.worker import Enricher
from bot.events import Attachment, Reply
from bot.llm import LLM, LLMUnavailable
from bot.tools import ArrivedFiles, ToolContext, ToolRunner
from storage import StorageError
from storage.db import Enrichment

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SavedAgain:
    """What a link saved before did: the replies, and the note that has the link."""

    replies: list[Reply]
    path: str
    title: str


class Arrivals:
    """The engine's help with what a message shares (see the module doc)."""

    def __init__(
        self, enricher: Enricher, runner: ToolRunner, llm: LLM | None, hearing: Hearing
    ) -> None:
        self.enricher = enricher
        self.runner = runner
        self.llm = llm
        self.hearing = hearing

    async def saved_again(self, ctx: ToolContext, text: str) -> SavedAgain | None:
        """A link saved before is not filed twice: the message's other words are added
        to the note that has it (a small change, with Undo), unless the note holds them
        already. A link that was never read (refused, a 404, the site down) is read
        again now, and the reply says so."""
        saved = await saved_before(ctx.store, ctx.links[0])
        if saved is None:
            return None
        path, title = saved
        said = f"You saved this link before: “{title}” ({path})."
        again = await self._read_again(ctx, path, ctx.links[0])
        if again:
            said = f"{said} {again}"
        words = own_words(text)
        held = await ctx.store.read(path)
        if not words or " ".join(words.split()) in " ".join(held.body.split()):
            ending = "" if again else " Nothing new to add."
            return SavedAgain([Reply(f"{said}{ending}")], path, title)
        outcome = await self.runner.call(
            ctx,
            "update_entry",
            {
                "path": path,
                "set_fields": None,
                "remove_fields": None,
                "body": None,
                "append": text,
            },
        )
        if outcome.result is None:
            reply = Reply(f"{said} I could not add your words there: {outcome.content}")
            return SavedAgain([reply], path, title)
        reply = Reply(f"{said} I added your words there.", outcome.result.buttons)
        return SavedAgain([reply], path, title)

    async def reread(self, ctx: ToolContext, path: str) -> str:
        """`/reread NOTE`: read the note's link into it when no reading of it ever
        succeeded; what to tell the person."""
        note = await ctx.store.read(path)
        url = str(note.fields.get("url") or "") or next(iter(find_urls(note.body)), "")
        if not url:
            return f"{note.title} ({note.path}) shares no link to read."
        if not self.enricher.wants([url], []):
            return "Links are not read in this brainbot, so there is nothing to read again."
        again = await self._read_again(ctx, note.path, url)
        return f"{note.title}: {again}" if again else f"{url} was read into {note.title} already."

    async def _read_again(self, ctx: ToolContext, path: str, url: str) -> str:
        """Keep a job to read `url` into the note at `path` when no reading of it ever
        succeeded (bot.enrich's ledger knows); what to tell the person ("" when it was
        read, or cannot be read here)."""
        if not self.enricher.wants([url], []):
            return ""
        note = await ctx.store.read(path)
        note_id = str(note.fields.get("id", ""))
        last = await self.enricher.ledger.last_read(
            ctx.store.vault_id, note_id, path, {"kind": "link", "url": url}
        )
        if last is not None and last[0] in (Enrichment.DONE, Enrichment.WAITING):
            return ""
        try:
            job = await self.enricher.plan(
                store=ctx.store,
                path=path,
                note_id=note_id,
                event_key=ctx.event_key,
                person_id=ctx.person.id,
                links=[url],
                files=[],
                conversation=ctx.conversation,
            )
        except Exception:  # the words are kept; reading is extra
            log.exception("could not keep the job that reads %s again", path)
            return ""
        if job.status == Enrichment.WAITING:
            self.enricher.submit(job.id)
        why = f" ({last[1].rstrip('.')})" if last is not None and last[1] else ""
        return f"It was never read{why}: I am reading it again now."

    async def read_later(self, ctx: ToolContext) -> None:
        """Keep a job to read the note's links and files after the reply (bot.enrich)."""
        files = _to_read(ctx)
        if not ctx.filed or not self.enricher.wants(ctx.links, files):
            return
        # The note that holds the files (another call of the turn may have filed first).
        held = ctx.files.note if ctx.files is not None else None
        note = next((e for e in ctx.filed if e.path == held), ctx.filed[0])
        try:
            job = await self.enricher.plan(
                store=ctx.store,
                path=note.path,
                note_id=str(note.fields.get("id", "")),
                event_key=ctx.event_key,
                person_id=ctx.person.id,
                links=ctx.links,
                files=files,
                conversation=ctx.conversation,
            )
        except Exception:  # the note is saved; reading what it shares is extra
            log.exception("could not keep the reading job of %s", note.path)
            return
        if job.status == Enrichment.WAITING:
            self.enricher.submit(job.id)

    async def arrive(
        self,
        ctx: ToolContext,
        attachments: Sequence[Attachment],
        text: str,
        notices: list[str],
    ) -> tuple[ToolContext, str]:
        """The files to keep (one over the size cap is told in `notices`), waiting
        for the note the message files (`capture` keeps them in its commit, `keep_rest`
        those it did not); a voice note's transcript becomes the text (files with no
        words are a capture titled after them: bot.capture)."""
        waiting: list[Attachment] = []
        cap = ctx.settings.max_attachment_bytes  # the vault's own cap
        untold = True  # a message of several clips hears "kept untranscribed" once
        for attachment in attachments:
            if len(attachment.data) > cap:
                notices.append(
                    f"Could not keep {attachment.file_name}: it is {len(attachment.data):,} "
                    f"bytes, over the {cap:,} of BRAINBOT_MAX_ATTACHMENT_BYTES."
                )
                continue
            waiting.append(attachment)
            if attachment.kind not in ("voice", "audio"):
                continue
            if self.hearing.mode == "openai":
                transcript = await self._transcribe(attachment, notices)
                text = f"{text}\n\n{transcript}".strip() if transcript else text
            elif self.hearing.mode == "off" and untold:
                untold = False
                notices.append(f"The audio is kept untranscribed: {self.hearing.why}. {TURN_ON}")
        return replace(ctx, files=ArrivedFiles(waiting)), text

    async def keep_rest(self, ctx: ToolContext, replies: list[Reply]) -> list[Reply]:
        """Keep the files no note of the turn took, in one commit of their own."""
        waiting = ctx.files.take() if ctx.files is not None else []
        if ctx.files is None or not waiting:
            return replies
        try:
            paths = await ctx.store.write_attachments(
                [(f.file_name, f.data) for f in waiting],
                author=ctx.author,
                source=dict(ctx.source),
            )
        except StorageError as exc:
            log.warning("could not keep %d file(s): %s", len(waiting), exc)
            names = ", ".join(f.file_name for f in waiting)
            return [*replies, Reply(f"Could not keep {names}: {exc}.")]
        ctx.files.kept_as(waiting, paths, None)
        return replies

    async def _transcribe(self, attachment: Attachment, notices: list[str]) -> str:
        """The endpoint's transcript, before the reply (`openai`)."""
        if self.llm is None:
            notices.append(f"The audio is kept untranscribed: no model endpoint. {TURN_ON}")
            return ""
        try:
            return (await self.llm.transcribe(attachment.data, attachment.file_name)).strip()
        except LLMUnavailable as exc:
            log.warning("transcription failed: %s", exc)
            notices.append("I could not transcribe the voice note; the audio is kept.")
            return ""


def _to_read(ctx: ToolContext) -> list[dict[str, str]]:
    """The photos, documents and clips kept with the note: their text (a clip's words,
    when heard on this machine) is read into it."""
    if ctx.files is None:
        return []
    return [
        {
            "kind": _kind(attachment),
            "path": path,
            "name": path.rsplit("/", 1)[-1],  # unique, as the note embeds it
            "mime": attachment.mime_type or "",
        }
        for attachment, path in ctx.files.kept
    ]


def _kind(attachment: Attachment) -> str:
    """What reading does with a file: a video or a sound sent as a file is heard."""
    mime = attachment.mime_type or ""
    if attachment.kind == "document" and mime.startswith(("video/", "audio/")):
        return mime.split("/", 1)[0]
    return attachment.kind
