"""The conversation engine: every platform's events come through `Engine.handle`.

1. arrive, in one trip to storage: may the sender use the bot (unknown users get one
   polite refusal, nothing is stored), record the event once per platform + event id
   (a retry is ignored), who they are with their own vault, and whether it may answer
   a "Tell me why" (a rejection waiting for its reason)
2. route: a button to its handler; a door's typed capture (or files alone) to the one
   capture path (bot.capture, where `/capture` goes too); a message to a command, a
   correction, the model's turn (bot.turn) or, without a model, the keyword
   classifier (bot.commands); what follows a capture follows it (bot.capture)
3. the tools act through the vault's store; bot.turn.verdict alone decides what a turn
   did and what the reply says (if the model cannot be reached, the text is kept in
   the inbox anyway)
4. mark the event finished, and reply
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime, timedelta

from bot import logs, metrics
from bot.buttons import Approvals, Buttons
from bot.capture import AfterCapture, Captured, Capturing, capture_words
from bot.commands import Intent, Router, as_command, intent_of
from bot.config import Settings
from bot.connect import Related, Timeline
from bot.enrich import Arrivals, Enricher, find_urls
from bot.events import (
    ButtonPress,
    CaptureRequest,
    Event,
    InboundMessage,
    Recent,
    RecentEvents,
    Reply,
    Sender,
)
from bot.llm import LLMUnavailable
from bot.people import Access, People, RateLimit
from bot.tools import ToolContext, ToolRunner
from bot.turn import Agent, Turn, Verdict
from storage import Store, VaultInfo, Vaults
from storage.db import Arrival, NewEvent, Records, StoredFile, history_rows

log = logging.getLogger(__name__)

REFUSAL = (
    "Sorry, I only work for the people this brainbot was set up for. Ask its owner to add "
    "you; if you are setting it up, send /start with the claim code from its log."
)
REFUSALS_REMEMBERED = 10_000
FILED_REMEMBERED = 1_000  # recent events' notes, for the capture API's answer
SLOW_DOWN = (
    "You are sending messages faster than I file them (at most {limit} a minute). "
    "That one was not saved: wait a moment, then send it again."
)
# After a failure, a message is called kept only when the vault holds a commit for it.
FAILED_KEPT = "Sorry, something went wrong on my side after your message was saved; it is kept."
FAILED = "Sorry, something went wrong on my side: that was not saved. Please send it again."
FAILED_QUEUED = (
    "Sorry, something went wrong on my side. Your message is recorded and will be filed "
    "when I start again."
)
FAILED_PRESS = "Sorry, something went wrong on my side. Please try again."
# How a door's typed capture is recorded (its text: the request as JSON).
CAPTURE_KIND = "capture"
# How often a message in a team chat re-records its writer as a member.
JOIN_REFRESH = timedelta(minutes=10)


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class EngineParts:
    """The collaborators the engine decides with, built by the composition root
    (app.engine_parts) and handed in."""

    access: Access
    people: People
    runner: ToolRunner
    router: Router
    approvals: Approvals
    buttons: Buttons
    verdict: Verdict
    agent: Agent | None  # None without a model: the command router and the classifier
    enricher: Enricher
    arrivals: Arrivals
    after: AfterCapture  # what follows every capture: reading, timelines, related notes
    capturing: Capturing  # the one capture path
    rate: RateLimit


class Engine:
    """Decides what each event means and does (see the module doc), with collaborators
    it is handed built."""

    def __init__(
        self,
        parts: EngineParts,
        *,
        vaults: Vaults,
        records: Records,
        settings: Settings,
        clock: Callable[[], datetime] = utcnow,
        owner: int = 0,
    ) -> None:
        self.vaults = vaults
        self._joined: dict[tuple[int, int], datetime] = {}  # (team vault, person) -> recorded
        self.records = records
        self.settings = settings
        self.clock = clock
        self.owner = owner  # this process's liveness token, recorded on each event
        self.access = parts.access
        self.people = parts.people
        self.runner = parts.runner
        self.router = parts.router
        self.approvals = parts.approvals
        self.buttons = parts.buttons
        self.verdict = parts.verdict
        self.agent = parts.agent
        self.enricher = parts.enricher
        self.arrivals = parts.arrivals
        self.after = parts.after
        self.capturing = parts.capturing
        self._rate = parts.rate
        self._refused = RecentEvents(REFUSALS_REMEMBERED)
        self._filed: Recent[tuple[str, str]] = Recent(FILED_REMEMBERED)
        self._captured: Recent[Captured] = Recent(FILED_REMEMBERED)
        self.last_turn: Turn | None = None  # the model's last turn (for the model check)

    @property
    def timeline(self) -> Timeline:
        return self.after.timeline

    @property
    def related(self) -> Related:
        return self.after.related

    @property
    def last_prompt_tokens(self) -> int:
        return self.last_turn.prompt_tokens if self.last_turn is not None else 0

    async def handle(self, event: Event) -> Sequence[Reply]:
        """Process one event from any platform; returns what to say (nothing for a retry)."""
        logs.bind_event(event)
        is_message = isinstance(event, InboundMessage)
        # The limit guards against floods from chats; the console's owner (typing, or
        # piping a file of lines in) is never limited, and every line is kept.
        limited = is_message and not self.access.at_the_terminal(event.sender)
        if limited and not self._rate.admit(event.sender.key, self.clock()):
            if not await self.access.is_allowed(event.sender):
                return self._refuse(event)
            # Not recorded, so nothing is half-kept: the person is told to send it again.
            limit = self.settings.rate_limit_per_minute
            return [Reply(SLOW_DOWN.format(limit=limit), not_kept=True)]
        arrival = await self.records.events.arrive(
            self._new_event(event),
            by_setting=self.access.known_allowed(event.sender),
            files=[
                StoredFile(a.kind, a.file_name, a.mime_type, a.data)
                for a in (event.attachments if isinstance(event, InboundMessage) else ())
            ],
            awaited=self.approvals.awaited(event.conversation.key, self.clock()),
        )
        if not arrival.admitted:
            claimed = await self._claim(event)
            return [claimed] if claimed is not None else self._refuse(event)
        if not arrival.first:
            log.info("duplicate event %s:%s ignored", event.conversation.platform, event.event_id)
            return []
        metrics.message_received(event.conversation.platform, "message" if is_message else "button")
        return await self.process(event, arrival)

    def _new_event(self, event: Event) -> NewEvent:
        kind, text = "button", ""
        if isinstance(event, ButtonPress):
            text = f"{event.action}:{event.value}"
        elif event.capture is not None:  # the whole request, so a restart files it alike
            kind, text = CAPTURE_KIND, json.dumps(asdict(event.capture), ensure_ascii=False)
        else:
            kind, text = "message", event.text
        where = event.conversation  # NewEvent's fields, in their order:
        return NewEvent(
            *(where.platform, event.event_id, kind, event.sender.key, where.chat_id),
            *(where.thread_id, text, event.received_at, self.owner),
        )

    async def process(self, event: Event, arrival: Arrival | None = None) -> list[Reply]:
        """Handle an event that is already recorded, and mark it finished. `arrival` is
        what recording it found out (`handle` bound the event to the logs); without it
        (resumed after a restart) the event is bound, its person and vault looked up."""
        if arrival is None:
            logs.bind_event(event)
        now = self.clock()
        ctx: ToolContext | None = None
        try:
            ctx = replace(await self.context(event, now, arrival), history_later=[])
            if isinstance(event, ButtonPress):
                replies = await self.buttons.press(ctx, event.action, event.value)
            else:
                replies = await self._message(ctx, event, arrival is None or arrival.awaited)
        except asyncio.CancelledError:
            raise  # cut short by shutdown: left received for resume_unfinished
        except Exception:
            log.exception("event %s failed", event.event_id)
            marked = await self._finish(event, "failed", ctx)
            return [Reply(await self._failed(ctx, event, queued=not marked))]
        await self._finish(event, "done", ctx)
        if self.agent is not None:
            self.agent.after_reply(ctx)  # the turn is in the history now
        return replies

    async def _finish(self, event: Event, status: str, ctx: ToolContext | None) -> bool:
        """Mark the event finished, with its turn's history; False if the database could
        not be reached. Then it stays recorded as received, and the next start looks at
        it again (app.recovery: done if the vault has its commit, else processed then)."""
        rows = []
        if ctx is not None and ctx.history_later:
            rows = history_rows(ctx.conversation.key, ctx.person.id, ctx.history_later, ctx.now)
        try:
            await self.records.events.finish(
                event.conversation.platform, event.event_id, status, self.clock(), rows
            )
        except Exception:
            log.exception("event %s could not be marked %s", event.event_id, status)
            return False
        return True

    @staticmethod
    async def _failed(ctx: ToolContext | None, event: Event, *, queued: bool) -> str:
        """What to say after a failure: "kept" only if the vault has a commit naming this
        event (the failure came after the write); "recorded" if the event is still
        waiting in the database for the next start; else that nothing was saved (a
        failed event is not retried, so the person must send it again)."""
        if isinstance(event, ButtonPress):
            return FAILED_PRESS
        written = False
        if ctx is not None:
            try:
                written = await ctx.store.has_event_commit(ctx.event_key, since=event.received_at)
            except Exception:
                log.exception("could not tell whether event %s was written", event.event_id)
        if written:
            return FAILED_KEPT
        return FAILED_QUEUED if queued else FAILED

    async def _claim(self, event: Event) -> Reply | None:
        """A stranger's claim or link code (Access.answer_code). Nothing is recorded."""
        if not isinstance(event, InboundMessage):
            return None
        answer = await self.access.answer_code(event.sender, event.text, self.clock())
        return None if answer is None else Reply(answer)

    def _refuse(self, event: Event) -> Sequence[Reply]:
        if not self._refused.first_time((event.conversation.platform, event.event_id)):
            return []
        log.info("refused %s: not in BRAINBOT_ALLOWED_USERS", event.sender.key)
        return [Reply(REFUSAL)]

    async def context(
        self, event: Event, now: datetime, arrival: Arrival | None = None
    ) -> ToolContext:
        """What the tools may use for this event: its vault's store, who, where, when.
        The notes go to the team vault of the event's chat (BRAINBOT_TEAM_VAULTS; writing
        there makes the person a member), else to the person's own vault."""
        person = arrival.person if arrival is not None else None
        if person is None:  # first contact, or an event resumed after a restart
            person = await self.people.resolve(event.sender, event.conversation, now)
        conversation = event.conversation
        team = self.settings.team_vaults.get(f"{conversation.platform}:{conversation.chat_id}")
        vault: VaultInfo | None
        if team is not None:
            vault = await self.vaults.team(team, now)
            # Each message there confirms the membership; a write per JOIN_REFRESH is
            # plenty next to a check bound of hours (bot.people.teams).
            joined = self._joined.get((vault.id, person.id))
            if joined is None or now - joined >= JOIN_REFRESH or now < joined:
                await self.vaults.join(vault, person.id, now)
                self._joined[vault.id, person.id] = now
        else:
            vault = arrival.vault if arrival is not None else None
            if vault is None:
                vault = await self.vaults.of_person(person.id, person.name, now)
        event_key = f"{conversation.platform}:{event.event_id}"
        source = {"platform": conversation.platform}
        if isinstance(event, InboundMessage):
            source.update(event.source)
        # Every commit made for this event names it: after a crash, the vault itself
        # says whether the event's writes happened (see app.recovery).
        source["event"] = event_key
        return ToolContext(
            store=await self.vaults.store(vault),
            records=self.records,
            settings=self.settings,
            person=person,
            author=People.author(person, event.sender),
            conversation=conversation,
            source=source,
            now=now,
            event_key=event_key,
            people=self.people,
            vault=vault,
            vaults=self.vaults,
            capturing=self.capturing,  # a model's `capture` call takes the one path too
        )

    async def store_for(self, event: Event) -> Store:
        """The store of the vault the event's notes go to (see `context`)."""
        return (await self.context(event, self.clock())).store

    async def _message(self, ctx: ToolContext, event: InboundMessage, awaited: bool) -> list[Reply]:
        request = event.capture
        text = (request.words if request is not None else event.text).strip()
        # A capture's limit counts its words only (bot.capture); a chat line's, all of it.
        too_long = request is None and len(text) > self.settings.max_message_chars
        if too_long and capture_words(text) is None:
            return [
                Reply(
                    f"That message is {len(text):,} characters; I take at most "
                    f"{self.settings.max_message_chars:,}. Nothing was saved. "
                    "Split it, or put it in a file."
                )
            ]
        notices: list[str] = []
        if event.attachments:
            ctx, text = await self.arrivals.arrive(ctx, event.attachments, text, notices)
            if request is None and not text and ctx.files is not None and ctx.files.waiting:
                request = CaptureRequest()  # files alone: a capture titled after them
        if request is not None:
            replies, kept = await self._capture(ctx, replace(request, words=text), notices)
        else:
            replies, kept = await self._turn(ctx, event.sender, text, notices, awaited), True
        # Files no note took (a question, a command) are kept; a refused capture keeps none.
        keeps = kept and ctx.files is not None  # a message without files has none to keep
        return await self.arrivals.keep_rest(ctx, replies) if keeps else replies

    async def _capture(
        self, ctx: ToolContext, request: CaptureRequest, notices: list[str]
    ) -> tuple[list[Reply], bool]:
        """A capture, on the one path (bot.capture): the replies, and whether it was
        taken (a refused one keeps nothing)."""
        captured = await self.capturing.capture(ctx, request)
        replies = captured.replies
        if notices and replies:
            replies[0] = replace(replies[0], notice=" ".join(notices))
        if captured.note is not None:  # for callers that answer with the note (the API)
            self._filed.keep(ctx.event_key, captured.note)
        self._captured.keep(ctx.event_key, captured)  # for callers that answer with it (MCP)
        return replies, not captured.refused

    async def _turn(
        self, ctx: ToolContext, sender: Sender, text: str, notices: list[str], awaited: bool
    ) -> list[Reply]:
        """What the words ask: a "Tell me why" answered (if `awaited`), a command, a
        correction, the model's turn."""
        if not text:
            return [Reply("Send me a thought, a question, or /help.")]
        reason = await self.approvals.after_reject(ctx, text, awaited=awaited)
        if reason is not None:  # "Tell me why", answered: not a thought to file
            return reason
        text = as_command(text)  # "log: ..." is /log: a line in today's daily note
        intent = intent_of(text)  # its kind and whether it only asks: decided here, once
        # A question's own dates bound its searches (bot.tools.search_span); a thought's
        # ("yesterday I met Sarah") must not hide Sarah's older page from a lookup.
        asked = text if intent.kind == "question" else ""
        ctx = replace(ctx, links=tuple(find_urls(text)), filed=[], said=asked)
        if text.startswith("/"):
            replies = await self.router.command(ctx, sender, text)
        else:
            if ctx.links and not (ctx.files and ctx.files.readable()) and intent.kind != "question":
                again = await self.arrivals.saved_again(ctx, text)
                if again is not None:
                    self._filed.keep(ctx.event_key, (again.path, again.title))
                    return again.replies
            replies = await self._reply(ctx, text, intent, notices)
        await self.after.follow(ctx, text)  # whichever route filed it (bot.capture)
        if ctx.filed:  # for callers that answer with the note (the capture API)
            self._filed.keep(ctx.event_key, (ctx.filed[0].path, ctx.filed[0].title))
        return replies

    def filed_by(self, event_key: str) -> tuple[str, str] | None:
        """(path, title) of the note a recent event filed (or added to: a link saved
        before), if this process handled it."""
        return self._filed.get(event_key)

    def captured_by(self, event_key: str) -> Captured | None:
        """What a recent door's capture (`event_key`) came to, if this process handled it."""
        return self._captured.get(event_key)

    async def _reply(
        self, ctx: ToolContext, text: str, intent: Intent, notices: list[str]
    ) -> list[Reply]:
        correction = await self.router.correction(ctx, text)
        if correction is not None:
            return correction
        if self.agent is None or (await self.agent.mode.settle()).mode == "none":
            replies = await self.router.plain_text(ctx, text, intent.kind)
        else:
            replies = await self._ask_model(ctx, text, intent)
        if notices and replies:
            replies[0] = replace(replies[0], notice=" ".join(notices))
        return replies

    async def _ask_model(self, ctx: ToolContext, text: str, intent: Intent) -> list[Reply]:
        """The model's turn, and the verdict on what it did."""
        assert self.agent is not None
        try:
            self.last_turn = await self.agent.respond(ctx, text, intent)
        except LLMUnavailable as exc:
            log.warning("LLM unavailable, saving to inbox: %s", exc)
            self.last_turn = None
            return await self.verdict.unreachable(ctx, text, intent.kind)
        return await self.verdict.judge(ctx, self.last_turn, text, intent.kind)
