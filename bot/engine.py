"""The conversation engine: every platform's events come through `Engine.handle`.

1. authorise the sender (unknown users get one polite refusal, nothing is stored)
2. record the event durably, once per platform + event id (retries are ignored)
3. route: slash command, correction, LLM tool loop, or the classifier without an LLM
4. reply; if the LLM cannot be reached, the text is saved to the inbox anyway
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from bot import logs, metrics, tools
from bot.buttons.approvals import Buttons
from bot.buttons.digest import DigestButtons
from bot.buttons.reminders import ReminderButtons
from bot.buttons.undo import UndoButton
from bot.commands.intent import kind_of
from bot.commands.router import Router
from bot.config import Settings
from bot.custom_tools.vault_tools import VaultTools
from bot.events import Attachment, ButtonPress, Event, InboundMessage, Reply
from bot.keep import Keeper, carries_the_thought
from bot.people.directory import People
from bot.people.ratelimit import RateLimit
from bot.tools.registry import ToolContext
from bot.tools.runner import ToolRunner
from bot.turn.llm import LLM, LLMUnavailable
from bot.turn.loop import Agent, Turn
from storage.db.digest_log import DigestLog
from storage.db.events import StoredFile
from storage.db.people import Person
from storage.db.records import Records
from storage.errors import StorageError
from storage.store import Store
from storage.vaults import VaultInfo, Vaults

log = logging.getLogger(__name__)

REFUSAL = (
    "Sorry, I only work for the people this brainbot was set up for. Ask its owner to add "
    "you; if you are setting it up, send /start with the claim code from its log."
)
REFUSALS_REMEMBERED = 10_000
SLOW_DOWN = (
    "You are sending messages faster than I file them (at most {limit} a minute). "
    "That one was not saved: wait a moment, then send it again."
)
LINK = re.compile(r"^/link(?:@\S+)?\s+(?P<code>[A-Za-z0-9][A-Za-z0-9 -]{3,40})$", re.I)
UNREACHABLE = (
    "The assistant is unreachable right now, so I saved your message to the inbox "
    "unchanged. Pick a category, or ask me again later."
)
NOT_FILED = "The assistant did not file this, so I kept your words in the inbox."
NOT_CHANGED = (
    "I could not work out that change, so nothing changed. You can say it with a command: "
    "/move NOTE CATEGORY, /delete NOTE, /append NOTE TEXT, /undo."
)
GREETING = "Hello! Tell me a thought to keep, or ask me about your notes."
# A model's reply that says it saved something, shown only when something was saved.
CLAIMS_A_WRITE = re.compile(
    r"^\W*(?:done|saved|noted|filed|captured|got it)\b"
    r"|\bI(?:'ve| have| just)?\s+"
    r"(?:saved|filed|noted|captured|stored|added|moved|deleted|updated)\b"
    r"|\b(?:saved|filed) (?:to|in|it|your|as)\b|gespeichert|notiert|저장",
    re.IGNORECASE,
)
CLAIM = re.compile(r"^/?(?:start|claim)(?:@\S+)?\s+(?P<code>[A-Za-z0-9][A-Za-z0-9 -]{3,40})$", re.I)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Engine:
    def __init__(
        self,
        *,
        vaults: Vaults,
        records: Records,
        settings: Settings,
        llm: LLM | None,
        clock: Callable[[], datetime] = utcnow,
        owner: int = 0,
    ) -> None:
        self.vaults = vaults
        self._joined: set[tuple[int, int]] = set()  # (team vault, person) recorded
        self.records = records
        self.settings = settings
        self.llm = llm
        self.clock = clock
        self.owner = owner  # this process's liveness token, recorded on each event
        self.people = People(records, settings.allowed_users)
        self.vault_tools = VaultTools(settings.tool_hosts)
        self.runner = ToolRunner(
            tools.REGISTRY,
            settings.approval_tools,
            settings.approval_ttl_seconds,
            settings.direct_changes,
            custom=self.vault_tools.specs_for,
        )
        self.buttons = Buttons(self.runner)
        UndoButton(self.runner).register(self.buttons.handlers)
        # Digest buttons work in every process, whichever one sent the digest.
        DigestButtons(DigestLog(records.engine)).register(self.buttons.handlers)
        ReminderButtons().register(self.buttons.handlers)
        self.router = Router(self.runner, self.people)
        self.router.register(self.buttons)
        self.keeper = Keeper(self.runner)
        self.agent = (
            Agent(
                llm,
                self.runner,
                max_rounds=settings.llm_max_rounds,
                history_tokens=settings.history_token_budget,
                max_tool_calls=settings.max_tool_calls,
                routed=settings.llm_tools == "routed",
            )
            if llm is not None
            else None
        )
        self._refused: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._rate = RateLimit(settings.rate_limit_per_minute)
        self.last_prompt_tokens = 0
        self.last_turn: Turn | None = None  # the model's last turn (for the model check)

    async def handle(self, event: Event) -> Sequence[Reply]:
        """Process one event from any platform; returns what to say (nothing for a retry)."""
        logs.bind_event(event)
        if not await self.people.is_allowed(event.sender):
            claimed = await self._claim(event)
            return [claimed] if claimed is not None else self._refuse(event)
        is_message = isinstance(event, InboundMessage)
        if is_message and not self._rate.admit(event.sender.key, self.clock()):
            # Not recorded, so nothing is half-kept: the person is told to send it again.
            return [Reply(SLOW_DOWN.format(limit=self.settings.rate_limit_per_minute))]
        first = await self.records.record_event(
            platform=event.conversation.platform,
            event_id=event.event_id,
            kind="message" if is_message else "button",
            user_key=event.sender.key,
            chat_id=event.conversation.chat_id,
            thread_id=event.conversation.thread_id,
            text=event.text
            if isinstance(event, InboundMessage)
            else f"{event.action}:{event.value}",
            received_at=event.received_at,
            owner=self.owner,
            files=[
                StoredFile(a.kind, a.file_name, a.mime_type, a.data)
                for a in (event.attachments if isinstance(event, InboundMessage) else ())
            ],
        )
        if not first:
            log.info("duplicate event %s:%s ignored", event.conversation.platform, event.event_id)
            return []
        metrics.message_received(event.conversation.platform, "message" if is_message else "button")
        return await self.process(event)

    async def process(self, event: Event) -> list[Reply]:
        """Handle an event that is already recorded, and mark it finished."""
        logs.bind_event(event)  # also for events resumed after a restart
        now = self.clock()
        status = "failed"
        try:
            person = await self.people.resolve(event.sender, event.conversation, now)
            ctx = await self.context(event, person, now)
            if isinstance(event, ButtonPress):
                replies = await self.buttons.press(ctx, event.action, event.value)
            else:
                replies = await self._message(ctx, event)
            status = "done"
            return replies
        except asyncio.CancelledError:
            status = "received"  # cut short by shutdown: left for resume_unfinished
            raise
        except Exception:
            log.exception("event %s failed", event.event_id)
            return [
                Reply("Sorry, something went wrong on my side. Your message is kept; try again.")
            ]
        finally:
            if status != "received":
                await self.records.finish_event(
                    event.conversation.platform, event.event_id, status, self.clock()
                )

    async def _claim(self, event: Event) -> Reply | None:
        """`/start CODE`, `claim CODE` or `/link CODE` from a stranger: all a closed
        install listens to from them (see storage.db.admission). Nothing is recorded."""
        if not isinstance(event, InboundMessage):
            return None
        text = event.text.strip()
        link = LINK.match(text)
        if link is not None:
            # Another account of an admitted person joins it with the code it was given.
            return Reply(await self.people.finish_link(event.sender, link["code"], self.clock()))
        match = CLAIM.match(text)
        if match is None:
            return None
        answer = await self.people.claim(event.sender, match.group("code"), self.clock())
        return None if answer is None else Reply(answer)

    def _refuse(self, event: Event) -> Sequence[Reply]:
        key = (event.conversation.platform, event.event_id)
        if key in self._refused:
            return []
        self._refused[key] = None
        if len(self._refused) > REFUSALS_REMEMBERED:
            self._refused.popitem(last=False)
        log.info("refused %s: not in BRAINBOT_ALLOWED_USERS", event.sender.key)
        return [Reply(REFUSAL)]

    async def vault_for(self, event: Event, person: Person, now: datetime) -> VaultInfo:
        """Where the event's notes go: the team vault of its chat (BRAINBOT_TEAM_VAULTS;
        writing there makes the person a member), else the person's own vault."""
        conversation = event.conversation
        team = self.settings.team_vaults.get(f"{conversation.platform}:{conversation.chat_id}")
        if team is None:
            return await self.vaults.of_person(person.id, person.name, now)
        vault = await self.vaults.team(team, now)
        if (vault.id, person.id) not in self._joined:
            await self.vaults.join(vault, person.id, now)
            self._joined.add((vault.id, person.id))
        return vault

    async def store_for(self, event: Event) -> Store:
        """The store of the vault the event's notes go to (see `vault_for`)."""
        now = self.clock()
        person = await self.people.resolve(event.sender, event.conversation, now)
        return await self.vaults.store(await self.vault_for(event, person, now))

    async def context(self, event: Event, person: Person, now: datetime) -> ToolContext:
        """What the tools may use for this event: its vault's store, who, where, when."""
        vault = await self.vault_for(event, person, now)
        store = await self.vaults.store(vault)
        event_key = f"{event.conversation.platform}:{event.event_id}"
        source = {"platform": event.conversation.platform}
        if isinstance(event, InboundMessage):
            source.update(event.source)
        # Every commit made for this event names it: after a crash, the vault itself
        # says whether the event's writes happened (see bot.app.recovery).
        source["event"] = event_key
        return ToolContext(
            store=store,
            records=self.records,
            settings=self.settings,
            person=person,
            author=People.author(person, event.sender),
            conversation=event.conversation,
            source=source,
            now=now,
            event_key=event_key,
            people=self.people,
            vault=vault,
            vaults=self.vaults,
        )

    async def _message(self, ctx: ToolContext, event: InboundMessage) -> list[Reply]:
        text = event.text.strip()
        if len(text) > self.settings.max_message_chars:
            return [
                Reply(
                    f"That message is {len(text):,} characters; I take at most "
                    f"{self.settings.max_message_chars:,}. Nothing was saved. "
                    "Split it, or put it in a file."
                )
            ]
        notices: list[str] = []
        if event.attachments:
            ctx, text = await self._attachments(ctx, event.attachments, text, notices)
        if not text:
            return [Reply("Send me a thought, a question, or /help.")]
        if text.startswith("/"):
            return await self.router.command(ctx, event.sender, text)
        correction = await self.router.correction(ctx, text)
        if correction is not None:
            return correction
        if self.agent is None:
            replies = await self.router.plain_text(ctx, text)
        else:
            replies = await self._ask_model(ctx, text, notices)
        if notices and replies:
            replies[0] = Reply(
                replies[0].text,
                replies[0].buttons,
                replies[0].preview,
                " ".join(notices),
                replies[0].replace,
            )
        return replies

    async def _ask_model(self, ctx: ToolContext, text: str, notices: list[str]) -> list[Reply]:
        """The model's turn, judged by what it did: a thought it did not file is kept in
        the inbox; a question it could not answer gets the keyword search's answer."""
        assert self.agent is not None
        try:
            turn = await self.agent.respond(ctx, text)
        except LLMUnavailable as exc:
            log.warning("LLM unavailable, saving to inbox: %s", exc)
            self.last_turn = None
            return await self.keeper.inbox(ctx, text, UNREACHABLE)
        self.last_turn = turn
        self.last_prompt_tokens = turn.prompt_tokens
        kind = kind_of(text)
        if turn.wrote and kind == "thought" and not carries_the_thought(turn, text):
            # A change to another note (waiting for Approve) that does not hold the
            # person's words: a weak model's guess. The thought is kept as well.
            metrics.model_repair("kept_thought")
            await self._remember(ctx, turn)
            return [*turn.replies, *await self.keeper.inbox(ctx, text, NOT_FILED)]
        if turn.wrote:
            await self._remember(ctx, turn)
            return list(turn.replies)
        # Nothing was written: a reply that says otherwise is not shown.
        answers = [r for r in turn.replies if not CLAIMS_A_WRITE.search(r.text)]
        if kind == "thought":
            # Kept at once: an answer in words, even a sensible one, files nothing, and
            # a weak model's answer is often its last one repeated.
            metrics.model_repair("kept_thought")
            log.info("the model filed nothing for a thought (tools: %s); kept", turn.tools)
            return [*answers[:1], *await self.keeper.inbox(ctx, text, NOT_FILED)]
        if turn.gave_up or not answers:
            if kind == "question":
                return await self.router.answer(ctx, text)
            if kind == "change":
                return [Reply(NOT_CHANGED)]
            return [Reply(GREETING)]
        await self._remember(ctx, turn)
        return answers

    async def _remember(self, ctx: ToolContext, turn: Turn) -> None:
        await self.records.add_messages(ctx.conversation.key, ctx.person.id, turn.history, ctx.now)

    async def _attachments(
        self, ctx: ToolContext, attachments: Sequence[Attachment], text: str, notices: list[str]
    ) -> tuple[ToolContext, str]:
        """Keep every file in the vault; a voice note's transcript becomes the text."""
        paths: list[str] = []
        for attachment in attachments:
            try:
                written = await ctx.store.write_attachment(
                    attachment.file_name,
                    attachment.data,
                    author=ctx.author,
                    source=dict(ctx.source),
                )
            except StorageError as exc:
                notices.append(f"Could not keep {attachment.file_name}: {exc}.")
                continue
            paths.append(written)
            if attachment.kind in ("voice", "audio"):
                transcript = await self._transcribe(attachment, notices)
                text = f"{text}\n\n{transcript}".strip() if transcript else text
        if paths and not text:
            text = (
                "Voice note" if any(a.kind in ("voice", "audio") for a in attachments) else "File"
            )
        return replace(ctx, attachments=tuple(paths)), text

    async def _transcribe(self, attachment: Attachment, notices: list[str]) -> str:
        if self.llm is None:
            notices.append("Voice notes are kept but not transcribed without a speech model.")
            return ""
        try:
            return (await self.llm.transcribe(attachment.data, attachment.file_name)).strip()
        except LLMUnavailable as exc:
            log.warning("transcription failed: %s", exc)
            notices.append("I could not transcribe the voice note; the audio is kept.")
            return ""
