"""Reading what a saved note shares, after the reply: one job per note, run in the
background, bounded in time, landing as a second commit on the same note.

- The note is already committed as sent; a job that fails or times out changes
  nothing in it, and the person is told why in one line.
- A job is a row (storage.db.enrichments) written before the event is marked
  finished. After a crash a restart runs the rows whose process is gone; the second
  commit names `enrich:<id>`, so a job whose commit landed just before the crash is
  only marked done, never applied twice. A job tried three times (one that takes the
  process down with it) or older than a day is skipped.
- The person's words stay above; the note may have been edited meanwhile, so the
  sections are added to what the note holds when they are written (a hash-checked
  update, tried again if someone wrote in between).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from bot import metrics
from bot.enrich.background import Background
from bot.enrich.compose import Read, told, with_sections
from bot.enrich.read_item import Readers, read_document, read_link, read_photo, read_speech
from bot.enrich.saved import own_words
from bot.events import MAX_FILES, Button, Conversation, Deliver, NoRoute, Reply
from bot.tools import UNDO_ACTION, UNDO_KIND
from storage import BOT_AUTHOR, Entry, EntryNotFound, StaleEdit, StorageError, Store, Vaults
from storage.db import Enrichment, Enrichments, Records
from storage.text import wikilinks

log = logging.getLogger(__name__)

START_AFTER = 0.5  # seconds: the capture's own reply goes out first
AT_ONCE = 2  # jobs read side by side (the machine may have 2 cores)
RESUME_WITHIN = timedelta(days=1)
MOST_ATTEMPTS = 3
# Where nobody waits for a message: an MCP client reads its notes when it wants them;
# a mail's sender is answered by no mail (bot.mail); the API answered already. Why a
# reading failed goes to the person's own chat instead, when they have one; it stays on
# the note's record in any case (the ledger's detail: `/get` and the API's GET show it).
UNTOLD = frozenset({"mcp", "email", "api"})
HEARD = frozenset({"voice", "audio", "video"})  # items transcribed (Readers.speech)


class Enricher:
    """Runs reading jobs: `plan` keeps one, `submit` starts it, `resume` after a restart."""

    def __init__(
        self,
        ledger: Enrichments,
        vaults: Vaults,
        readers: Readers,
        *,
        owner: int,
        timeout: float,
        max_file_bytes: int,
        max_note_bytes: int,
        records: Records | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        deliver: Deliver | None = None,
    ) -> None:
        self.ledger = ledger
        self.vaults = vaults
        self.readers = readers
        self.owner = owner
        self.timeout = timeout
        self.max_file_bytes = max_file_bytes
        self.max_note_bytes = max_note_bytes  # frontmatter included: 4 KB are left for it
        self.records = records  # for the Undo button of what was added (None: no button)
        self.clock = clock
        self.deliver = deliver  # "couldn't fetch the page: 404"; None: nobody is told
        self.start_after = START_AFTER
        self._jobs = Background()
        self._at_once = asyncio.Semaphore(AT_ONCE)

    def wants(self, links: Sequence[str], files: Sequence[Mapping[str, str]]) -> bool:
        """Whether a note with these links and files has anything to read."""
        return bool(links and self.readers.policy is not None) or any(
            self._reads(str(f.get("kind", ""))) for f in files
        )

    def _reads(self, kind: str) -> bool:
        if kind in HEARD:
            return self.readers.speech is not None
        return self.readers.read_files

    async def plan(
        self,
        *,
        store: Store,
        path: str,
        note_id: str,
        event_key: str,
        person_id: int,
        links: Sequence[str],
        files: Sequence[Mapping[str, str]],
        conversation: Conversation,
    ) -> Enrichment:
        items: list[dict[str, Any]] = [{"kind": "link", "url": url} for url in links[:3]]
        items += [dict(f) for f in files[:MAX_FILES]]
        return await self.ledger.add(
            vault_id=store.vault_id,
            path=path,
            note_id=note_id,
            event_key=event_key,
            person_id=person_id,
            items=items,
            platform=conversation.platform,
            chat_id=conversation.chat_id,
            thread_id=conversation.thread_id,
            owner=self.owner,
            at=self.clock(),
        )

    def submit(self, job_id: int) -> None:
        self._jobs.start(self._run(job_id), f"enrich-{job_id}")

    async def resume(self, alive: Callable[[int], Awaitable[bool]]) -> int:
        """Start the jobs a stopped or crashed process left waiting; how many."""
        started = 0
        now = self.clock()
        for job in await self.ledger.waiting():
            if job.owner != self.owner and await alive(job.owner):
                continue  # another running process has it
            if now - job.created_at > RESUME_WITHIN or job.attempts >= MOST_ATTEMPTS:
                reason = "too old" if job.attempts < MOST_ATTEMPTS else "tried too often"
                await self.ledger.finish(job.id, Enrichment.SKIPPED, now, reason)
                continue
            self.submit(job.id)
            started += 1
        return started

    async def wait_idle(self) -> None:
        """Until every job started so far has finished (tests; a drain)."""
        await self._jobs.wait_idle()

    async def close(self) -> None:
        """Stop reading: unfinished jobs stay waiting for the next start."""
        await self._jobs.cancel()
        await self.readers.pool.close()
        if self.readers.speech is not None:
            await self.readers.speech.pool.close()

    # -- one job -----------------------------------------------------------------------

    async def _run(self, job_id: int) -> None:
        await asyncio.sleep(self.start_after)
        async with self._at_once:
            job = await self.ledger.claim(job_id, self.owner)
            if job is None:
                return
            commit: str | None = None
            try:
                status, message, commit = await self._enrich(job)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.exception("reading what note %s shares failed", job.path)
                metrics.error("enrich")
                status, message = Enrichment.FAILED, f"Couldn't read what you shared: {exc}."
            await self.ledger.finish(job.id, status, self.clock(), message)
            if message:
                await self._tell(job, message, commit, status)

    async def _enrich(self, job: Enrichment) -> tuple[str, str, str | None]:
        """How the job went, what to tell the person, and the commit that added to the
        note (None when nothing was added)."""
        vault = await self.vaults.get(job.vault_id)
        if vault is None:
            return Enrichment.SKIPPED, "", None
        store = await self.vaults.store(vault)
        if await store.has_event_commit(job.commit_key, since=job.created_at):
            return Enrichment.DONE, "", None  # landed before a restart: done, and not told twice
        note = await where_now(store, job.path, job.note_id)
        if note is None:
            return Enrichment.SKIPPED, "", None  # deleted before it could be read
        path = note.path
        # A clip has its own time (BRAINBOT_TRANSCRIBE_TIMEOUT) on top of the note's.
        speech = self.readers.speech
        clips = sum(1 for item in job.items if item.get("kind") in HEARD)
        timeout = self.timeout + (speech.timeout * clips if speech is not None else 0)
        try:
            async with asyncio.timeout(timeout):
                reads = await self._read_all(store, job)
        except TimeoutError:
            message = (
                f"Reading what you shared took longer than {timeout:g} s; "
                "the note stays as you sent it."
            )
            return Enrichment.FAILED, message, None
        title, commit = await self._apply(store, job, path, reads)
        message = told(title, reads) if title is not None else ""
        return (
            (Enrichment.FAILED if any(r.failed for r in reads) else Enrichment.DONE),
            message,
            commit,
        )

    async def _read_all(self, store: Store, job: Enrichment) -> list[Read]:
        several = sum(1 for item in job.items if item.get("kind") == "photo") > 1
        reads: list[Read] = []
        for item in job.items:
            kind = str(item.get("kind"))
            label = str(item.get("url") if kind == "link" else item.get("name") or item.get("path"))
            try:
                reads.append(await self._read_one(store, item, kind, label, several))
            except Exception as exc:  # one item's failure, never the note's
                log.exception("reading %s of note %s failed", label, job.path)
                metrics.error("enrich")
                reads.append(Read(kind, label, failed=f"Couldn't read {label}: {exc}."))
        return reads

    async def _read_one(
        self, store: Store, item: Mapping[str, Any], kind: str, label: str, several: bool
    ) -> Read:
        if kind == "link":
            return await read_link(label, self.readers)
        if kind in HEARD and self.readers.speech is None:
            return Read(kind, label)  # heard before the reply (an endpoint), or not at all
        try:
            data = await store.read_file(str(item["path"]), self.max_file_bytes)
        except StorageError as exc:
            return Read(kind, label, failed=f"Couldn't read {label}: {exc}.")
        mime = item.get("mime")
        if kind in HEARD and self.readers.speech is not None:
            return await read_speech(kind, label, data, self.readers.speech)
        if kind == "photo":
            return await read_photo(label, data, mime, self.readers, several=several)
        return await read_document(label, data, mime, self.readers)

    async def _apply(
        self, store: Store, job: Enrichment, path: str, reads: Sequence[Read]
    ) -> tuple[str | None, str | None]:
        """Add the sections and fields to the note as it is now; its title (None when
        there is nothing to say) and the commit (None when nothing was added)."""
        stale: StaleEdit | None = None
        for _ in range(3):
            entry = await store.read(path)
            fields = _fields(entry.body, entry.title, entry.fields, reads)
            body = with_sections(entry.body, reads, self.max_note_bytes - 4096)
            if body == entry.body and not fields:
                return (entry.title if any(r.failed for r in reads) else None), None
            try:
                updated, change = await store.update_committed(
                    path,
                    fields=fields,
                    body=body,
                    expected_hash=entry.content_hash,
                    author=BOT_AUTHOR,
                    source={"platform": job.platform, "event": job.commit_key},
                )
            except StaleEdit as exc:
                stale = exc  # written meanwhile (the person, a watcher's sync): read again
                continue
            if self.records is not None:  # its category buttons still file it
                await self.records.buttons.follow_note_change(
                    job.vault_id, path, entry.content_hash, updated.content_hash
                )
            return updated.title, change.commit
        assert stale is not None
        raise stale

    async def _chat_of(self, person_id: int) -> Conversation | None:
        """The person's own direct chat (the account they started with first), for what
        a door without one cannot be told."""
        if self.records is None:
            return None
        identities = await self.records.people.identities_of(person_id)
        for identity in sorted(identities, key=lambda i: i.created_at or self.clock()):
            if identity.home_chat_id and identity.platform not in UNTOLD:
                return Conversation(identity.platform, identity.home_chat_id)
        return None

    async def _tell(self, job: Enrichment, message: str, commit: str | None, status: str) -> None:
        """Say how reading went; what was added can be undone from there, like any small
        change made at once."""
        if self.deliver is None:
            return
        conversation = Conversation(job.platform, job.chat_id, job.thread_id)
        if job.platform in UNTOLD:
            if status == Enrichment.DONE:
                return  # what was added is in the note, where that door's person looks
            chat = await self._chat_of(job.person_id)
            if chat is None:
                return  # nobody to tell: the ledger keeps it for /get and the API
            conversation = chat
        buttons: tuple[Button, ...] = ()
        try:
            if commit is not None and self.records is not None:
                payload = {
                    "commit": commit,
                    "path": job.path,
                    "summary": message,
                    "conversation": conversation.key,
                }
                action = await self.records.buttons.add(
                    job.person_id, UNDO_KIND, payload, self.clock(), vault_id=job.vault_id
                )
                buttons = (Button("Undo", UNDO_ACTION, action),)
            await self.deliver(conversation, Reply(message, buttons))
        except NoRoute as exc:  # that chat's platform is not served here: it stays recorded
            log.info("could not tell %s how reading went: %s", conversation.key, exc)
        except Exception as exc:
            log.warning("could not tell %s how reading went: %s", conversation.key, exc)


async def where_now(store: Store, path: str, note_id: str | None) -> Entry | None:
    """The note as it is now: at `path`, or (filed into a category, renamed) wherever
    the note with its `id` went; None when it is gone. Reading (bot.enrich) and linking
    (bot.connect) both act on a note some time after it was filed."""
    try:
        return await store.read(path)
    except EntryNotFound:
        pass
    if not note_id:
        return None
    values = await store.index.field_values("id", note_id)
    found = [p for p, _, value in values if value == note_id]
    return await store.read(found[0]) if len(found) == 1 else None


def _fields(
    body: str, title: str, have: Mapping[str, Any], reads: Sequence[Read]
) -> dict[str, Any]:
    """The frontmatter the reads add; a note that is only a link takes the page's title,
    one that is only a voice note its first words."""
    fields: dict[str, Any] = {}
    for read in reads:
        for name, value in read.fields.items():
            if name not in have and name not in fields:
                fields[name] = value
    page_title = fields.pop("page_title", None) or fields.pop("heard_title", None)
    fields.pop("heard_title", None)
    if page_title and not own_words(wikilinks.without_embeds(body)) and title != page_title:
        fields["title"] = page_title
    return fields
