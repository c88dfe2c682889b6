"""The Slack adapter: a slack-bolt AsyncApp in Socket Mode or HTTP mode.

Every listener only parses the payload, acknowledges it and starts a task; the
task looks up the sender, asks the engine (`on_event`) and delivers its replies.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.adapter.socket_mode.aiohttp import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext, AsyncBoltRequest

from adapters.base import SentRef
from bot.events import Attachment, Conversation, EventHandler, MayUse, RecentEvents, Reply, Sender

from .render import SlackMessage, plain_message, render
from .save import ALREADY_SAVED, SHORTCUT, parse_reaction, parse_shortcut, read_saved
from .settings import PLATFORM
from .translate import (
    Incoming,
    Origin,
    parse_button,
    parse_command,
    parse_mention,
    parse_message,
)
from .webapi import MAX_FILE_BYTES, BotIdentity, SlackCallError, SlackWebAPI

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
COMMAND = "/brain"
APOLOGY = "Sorry, something went wrong while handling that. Please try again."


class SlackAdapter:
    """Slack via slack-bolt. Socket Mode when `app_token` is set; HTTP mode (routes
    added by `mount`) when `signing_secret` is set; both may be given."""

    platform = PLATFORM

    def __init__(
        self,
        bot_token: str,
        *,
        app_token: str | None = None,
        signing_secret: str | None = None,
        api_url: str = "https://slack.com/api/",
        shutdown_timeout: float = 10.0,
        max_file_bytes: int = MAX_FILE_BYTES,
        save_emoji: str = "brain",
    ):
        if not app_token and not signing_secret:
            raise ValueError(
                "Slack needs an app token (Socket Mode) or a signing secret (HTTP mode)"
            )
        self._app_token = app_token
        self._signing_secret = signing_secret
        self._api = SlackWebAPI(bot_token, api_url)
        self._shutdown_timeout = shutdown_timeout
        self._max_file_bytes = max_file_bytes
        self._save_emoji = save_emoji.strip(":")
        self._bolt: AsyncApp | None = None
        self._socket: AsyncSocketModeHandler | None = None
        self._on_event: EventHandler | None = None
        self._may_use: MayUse | None = None
        self._identity: BotIdentity | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._seen = RecentEvents()  # retries arrive within minutes: plenty

    @property
    def bot_user_id(self) -> str | None:
        """The bot's Slack user id, known after `start`."""
        return self._identity.user_id if self._identity else None

    def mount(self, app: web.Application) -> None:
        """Serve Events API and interactivity requests at POST /slack/events (HTTP mode).

        Does nothing in Socket Mode (no signing secret), so callers may mount every adapter.
        """
        if not self._signing_secret:
            log.debug("Slack runs in Socket Mode: no HTTP route mounted")
            return
        app.router.add_post(EVENTS_PATH, self._serve_http)

    async def start(self, on_event: EventHandler, may_use: MayUse | None = None) -> None:
        """Check the token (auth.test), build the bolt app and connect Socket Mode if configured."""
        await self._api.open()
        socket: AsyncSocketModeHandler | None = None
        try:
            self._identity = await self._api.identify()
            bolt = self._build_bolt()
            if self._app_token:
                socket = AsyncSocketModeHandler(bolt, self._app_token, web_client=self._api.client)
                # Asking for the URL here makes a bad app token fail `start` instead of
                # leaving the SDK retrying forever in the background.
                socket.client.wss_uri = await self._api.socket_url(self._app_token)
                await socket.connect_async()  # type: ignore[no-untyped-call]  # bolt: unannotated
        except BaseException:
            if socket is not None:
                await socket.close_async()  # type: ignore[no-untyped-call]
            await self._api.close()
            raise
        self._socket = socket
        self._on_event = on_event
        self._may_use = may_use
        self._bolt = bolt
        log.info(
            "Slack connected as %s (%s)",
            self._identity.user_id,
            "Socket Mode" if self._app_token else "HTTP mode",
        )

    @property
    def connected(self) -> bool:
        """Serving events now: started, and in Socket Mode with the websocket open."""
        if self._bolt is None:
            return False
        if self._socket is None:
            return True  # HTTP mode: Slack reaches us whenever we run
        client = self._socket.client
        session = client.current_session
        return not client.closed and session is not None and not session.closed

    async def stop(self) -> None:
        """Disconnect, let running handlers finish (bounded), close the HTTP session."""
        self._bolt = None
        if self._socket is not None:
            await self._socket.close_async()  # type: ignore[no-untyped-call]
            self._socket = None
        if self._tasks:
            _, pending = await asyncio.wait(set(self._tasks), timeout=self._shutdown_timeout)
            for task in pending:
                task.cancel()
            if pending:
                log.warning("Slack stop: cancelled %d unfinished handlers", len(pending))
                await asyncio.gather(*pending, return_exceptions=True)
        await self._api.close()

    async def send(self, conversation: Conversation, reply: Reply) -> SentRef:
        """Post a reply (split over several messages if long) into a conversation."""
        ids = [
            await self._api.post(conversation.chat_id, message, conversation.thread_id)
            for message in render(reply)
        ]
        return SentRef(conversation, tuple(ids))

    async def edit(self, ref: SentRef, reply: Reply) -> None:
        """Rewrite earlier messages in place; extra parts of a longer reply are posted after."""
        conversation = ref.conversation
        for index, message in enumerate(render(reply)):
            if index < len(ref.message_ids):
                await self._api.update(conversation.chat_id, ref.message_ids[index], message)
            else:
                await self._api.post(conversation.chat_id, message, conversation.thread_id)

    async def members_among(self, chat_id: str, user_ids: Collection[str]) -> set[str]:
        """Which of `user_ids` are in channel `chat_id` now (bot.people.teams); raises
        SlackCallError when Slack cannot say (down, `missing_scope`, not in the channel)."""
        return set(user_ids) & await self._api.channel_members(chat_id)

    # -- inbound -------------------------------------------------------------

    async def _serve_http(self, request: web.Request) -> web.Response:
        bolt = self._bolt
        if bolt is None:
            return web.Response(status=503, text="brainbot is not connected to Slack yet")
        try:
            bolt_request = await to_bolt_request(request)
        except ValueError:  # bolt parses the body first: broken JSON or form data
            return web.Response(status=400, text="the request body is not valid")
        return await to_aiohttp_response(await bolt.async_dispatch(bolt_request))

    def _build_bolt(self) -> AsyncApp:
        # process_before_response: our listeners return within milliseconds (they
        # only start a task), so bolt need not poll for the ack in the background.
        bolt = AsyncApp(
            name="brainbot",
            client=self._api.client,
            signing_secret=self._signing_secret or "",
            process_before_response=True,
        )
        identity = self._identity
        bot_user_id = identity.user_id if identity else None
        team_url = identity.team_url if identity else None

        @bolt.event("message")
        async def on_message(
            ack: AsyncAck, body: dict[str, Any], request: AsyncBoltRequest
        ) -> None:
            await ack()
            self._accept(parse_message(body, bot_user_id=bot_user_id, team_url=team_url), request)

        @bolt.event("app_mention")
        async def on_mention(
            ack: AsyncAck, body: dict[str, Any], request: AsyncBoltRequest
        ) -> None:
            await ack()
            self._accept(parse_mention(body, bot_user_id=bot_user_id, team_url=team_url), request)

        @bolt.action(re.compile(r"^bb:"))
        async def on_button(ack: AsyncAck, body: dict[str, Any], request: AsyncBoltRequest) -> None:
            await ack()
            self._accept(parse_button(body), request)

        @bolt.message_shortcut(SHORTCUT)
        async def on_save_shortcut(
            ack: AsyncAck, body: dict[str, Any], request: AsyncBoltRequest
        ) -> None:
            await ack()
            self._accept(parse_shortcut(body), request)

        @bolt.event("reaction_added")
        async def on_reaction(
            ack: AsyncAck, body: dict[str, Any], request: AsyncBoltRequest
        ) -> None:
            await ack()
            emoji = self._save_emoji
            self._accept(parse_reaction(body, emoji=emoji, bot_user_id=bot_user_id), request)

        @bolt.command(COMMAND)
        async def on_command(
            ack: AsyncAck, body: dict[str, Any], request: AsyncBoltRequest
        ) -> None:
            await ack()
            self._accept(parse_command(body), request)

        @bolt.error
        async def on_error(error: Exception, context: AsyncBoltContext) -> None:
            log.error("Slack listener failed: %r", error)

        return bolt

    def _accept(self, incoming: Incoming | None, request: AsyncBoltRequest) -> None:
        if incoming is None:
            return
        if not self._seen.first_time(incoming.delivery_id or incoming.event_id):
            retry = request.headers.get("x-slack-retry-num", ["0"])[0]
            log.debug("Slack event %s already handled (retry %s)", incoming.event_id, retry)
            return
        task = asyncio.create_task(self._handle(incoming), name=f"slack:{incoming.event_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle(self, incoming: Incoming) -> None:
        on_event = self._on_event
        if on_event is None:
            return
        sender = self._with_team(incoming, await self._api.sender(incoming.user_id))
        # A stranger's files are never fetched: the engine refuses them anyway.
        may_use = self._may_use
        allowed = may_use is None or await may_use(sender)
        if allowed and incoming.kind == "save":
            # Only for a person who may use the bot is someone's message read at all.
            team_url = self._identity.team_url if self._identity else None
            saved = await read_saved(self._api, incoming, team_url)
            if isinstance(saved, str):
                await self._deliver(incoming.origin, Reply(text=saved))
                return
            incoming = saved
        attachments = await self._download(incoming) if allowed else ()
        try:
            replies: Sequence[Reply] = await on_event(incoming.to_event(sender, attachments))
        except Exception:
            log.exception("handling Slack event %s failed", incoming.event_id)
            replies = [Reply(text=APOLOGY)]
        if not replies and allowed and incoming.kind == "save":
            replies = [Reply(text=ALREADY_SAVED)]  # the engine's answer to a duplicate
        for reply in replies:
            await self._deliver(incoming.origin, reply)

    def _with_team(self, incoming: Incoming, sender: Sender) -> Sender:
        team = incoming.user_team or sender.team
        home = self._identity.team_id if self._identity else None
        foreign = bool(home and team and team != home)
        return replace(sender, team=team, foreign=foreign)

    async def _download(self, incoming: Incoming) -> tuple[Attachment, ...]:
        attachments: list[Attachment] = []
        for file in incoming.files:
            try:
                if file.size > self._max_file_bytes:
                    raise SlackCallError("files.download", "file_too_large")
                data = await self._api.download(file.url, limit=self._max_file_bytes)
            except SlackCallError as failure:
                log.warning("Slack file %s not downloaded: %s", file.name, failure.error)
                note = (
                    f"I couldn't fetch {file.name} from Slack ({failure.error}); the text is kept."
                )
                await self._deliver(incoming.origin, Reply(text=note))
                continue
            attachments.append(Attachment(file.kind, data, file.name, file.mime_type))
        return tuple(attachments)

    # -- outbound ------------------------------------------------------------

    async def _deliver(self, origin: Origin, reply: Reply) -> None:
        messages = render(reply)
        try:
            await self._deliver_messages(origin, messages, replace=reply.replace)
        except SlackCallError as failure:
            # The reply could not be shown; a short plain message often still can.
            note = f"Sorry, I couldn't show my reply here (Slack said: {failure.error})."
            try:
                await self._deliver_messages(origin, [plain_message(note)], replace=False)
            except SlackCallError:
                log.warning("Slack: could not tell the user either; reply lost")

    async def _deliver_messages(
        self, origin: Origin, messages: Sequence[SlackMessage], *, replace: bool
    ) -> None:
        if not messages:
            return
        if origin.private_to:
            for message in messages:
                await self._tell_privately(origin, origin.private_to, message)
            return
        rest = list(messages)
        if replace and origin.message_ts:
            first = rest.pop(0)
            if origin.ephemeral and origin.response_url:
                await self._api.respond(origin.response_url, first, replace_original=True)
            else:
                await self._api.update(origin.channel, origin.message_ts, first)
        for message in rest:
            if (origin.via_response_url or origin.ephemeral) and origin.response_url:
                await self._api.respond(origin.response_url, message)
            else:
                await self._api.post(origin.channel, message, origin.thread_ts)

    async def _tell_privately(self, origin: Origin, user: str, message: SlackMessage) -> None:
        """An ephemeral message in the channel; where Slack refuses one (the bot is not
        in it), a direct message to the person instead."""
        try:
            await self._api.post_ephemeral(origin.channel, user, message, origin.thread_ts)
        except SlackCallError as failure:
            log.info("no ephemeral message in %s (%s): a DM instead", origin.channel, failure.error)
            await self._api.post(user, message)
