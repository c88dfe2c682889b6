"""The Telegram adapter: python-telegram-bot's Application wired to the engine.

Updates arrive by long polling (PTB's Updater) or, with a webhook URL, on our own
aiohttp route, which drops them into the Application's update queue. PTB then
runs each update as its own task (`concurrent_updates`), and `_handle` turns it
into an event, shows "typing" while the engine works, and renders the replies.
The parts of an album are gathered first (`albums`) and go to the engine as one.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import re
from collections.abc import Collection, Hashable, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

from aiohttp import web
from telegram import (
    BotCommand,
    ChatMember,
    ChatMemberRestricted,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    ReplyParameters,
    Update,
)
from telegram.constants import ChatAction, ParseMode
from telegram.error import BadRequest, TelegramError
from telegram.ext import Application, ApplicationBuilder, TypeHandler

from adapters.base import SentRef
from adapters.platform import MenuCommand
from adapters.telegram.albums import ALBUM_QUIET, Albums
from adapters.telegram.flood_control import RetryAfterLimiter
from adapters.telegram.menu import menu as telegram_menu
from adapters.telegram.render import rendered
from adapters.telegram.save import translate_update
from adapters.telegram.settings import PLATFORM
from adapters.telegram.translate import FileRef, Incoming, Press, Skip
from bot.events import (
    Attachment,
    Conversation,
    Event,
    EventHandler,
    InboundMessage,
    MayUse,
    RecentEvents,
    Reply,
)

log = logging.getLogger(__name__)

WEBHOOK_PATH = "/telegram/webhook"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
MAX_DOWNLOAD = 20 * 1024 * 1024  # the Bot API refuses getFile above this
ALLOWED_UPDATES = ("message", "callback_query")
TOO_BIG = (
    "That file is too big for me: I keep files up to {limit}. "
    "Nothing was saved — send a smaller file, or a link to it."
)


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.0f} MB" if size >= 2**20 else f"{max(1, round(size / 1024))} kB"


FAILED = "Sorry — something went wrong on my side while handling that. Please try again."


class FileTooBig(Exception):
    """The Bot API will not hand this file to a bot."""


class TelegramAdapter:
    """Telegram through the Bot API: polling by default, webhook when `webhook_url` is set."""

    platform = PLATFORM

    def __init__(
        self,
        token: str,
        *,
        api_url: str = "https://api.telegram.org",
        webhook_url: str | None = None,
        webhook_secret: str | None = None,
        poll_timeout: float = 30.0,
        typing_interval: float = 4.0,
        max_file_bytes: int = MAX_DOWNLOAD,
        album_quiet: float = ALBUM_QUIET,
        menu: Sequence[MenuCommand] | None = None,
    ) -> None:
        if webhook_url and not webhook_secret:
            # Without a secret anyone who finds the URL could post updates as any user.
            raise ValueError("a Telegram webhook needs a secret (TELEGRAM_WEBHOOK_SECRET)")
        if webhook_secret and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", webhook_secret):
            raise ValueError("TELEGRAM_WEBHOOK_SECRET: 1-256 characters of A-Z, a-z, 0-9, _ or -")
        # httpx logs every request URL at INFO, and Bot API URLs contain the token.
        logging.getLogger("httpx").setLevel(max(logging.WARNING, logging.getLogger("httpx").level))
        root = api_url.rstrip("/")
        builder = (
            ApplicationBuilder()
            .token(token)
            .base_url(f"{root}/bot")
            .base_file_url(f"{root}/file/bot")
            .rate_limiter(RetryAfterLimiter())
            .concurrent_updates(True)
            # Scheduling lives in brainbot's scheduler; PTB would start its own otherwise.
            .job_queue(None)
        )
        if webhook_url:
            builder = builder.updater(None)
        self._application: Application[Any, Any, Any, Any, Any, Any] = builder.build()
        self._application.add_handler(TypeHandler(Update, self._handle))
        self._webhook_url = webhook_url
        self._webhook_secret = webhook_secret
        self._poll_timeout = poll_timeout
        self._typing_interval = typing_interval
        self._max_file_bytes = min(max_file_bytes, MAX_DOWNLOAD)
        self._on_event: EventHandler | None = None
        self._may_use: MayUse | None = None
        self._connected = False  # the bot has its connections and knows itself (getMe)
        self._seen = RecentEvents()
        self._albums = Albums(self._take, album_quiet)
        self._menu = [
            BotCommand(c.command, c.description)
            for c in (telegram_menu() if menu is None else menu)
        ]

    # -- lifecycle ---------------------------------------------------------------

    async def start(self, on_event: EventHandler, may_use: MayUse | None = None) -> None:
        """Connect (getMe), register the command menu, then poll or set the webhook."""
        self._on_event = on_event
        self._may_use = may_use
        app = self._application
        await app.initialize()
        await app.bot.set_my_commands(self._menu)
        await app.start()
        if self._webhook_url:
            await app.bot.set_webhook(
                self._webhook_url,
                secret_token=self._webhook_secret,
                allowed_updates=ALLOWED_UPDATES,
            )
        elif app.updater is not None:
            await app.updater.start_polling(
                timeout=timedelta(seconds=self._poll_timeout), allowed_updates=ALLOWED_UPDATES
            )
        log.info("Telegram adapter started as @%s", app.bot.username)

    @property
    def connected(self) -> bool:
        """Receiving updates now: started, and polling unless a webhook delivers them."""
        app = self._application
        if not app.running:
            return False
        return bool(self._webhook_url) or (app.updater is not None and app.updater.running)

    async def stop(self) -> None:
        """Stop fetching, let updates in progress finish, close connections."""
        app = self._application
        if app.updater is not None and app.updater.running:
            await app.updater.stop()
        if app.running:
            await app.stop()  # every update fetched is handled by now
        await self._albums.flush()  # parts already acknowledged: see Albums
        await app.shutdown()
        # When only send/edit were used, the Application never started but its bot did.
        await app.bot.shutdown()
        self._connected = False

    def mount(self, app: web.Application) -> None:
        """Add POST /telegram/webhook to the bot's aiohttp server (webhook mode)."""
        app.router.add_post(WEBHOOK_PATH, self._webhook)

    async def _webhook(self, request: web.Request) -> web.Response:
        secret = self._webhook_secret
        given = request.headers.get(SECRET_HEADER, "")
        if secret is None or not hmac.compare_digest(given.encode(), secret.encode()):
            return web.Response(status=403)
        if not self._application.running:
            # Telegram retries a failed delivery, so nothing is lost by refusing now.
            return web.Response(status=503)
        try:
            body = await request.json()
            if not isinstance(body, dict) or not isinstance(body.get("update_id"), int):
                return web.Response(status=400)
            update = Update.de_json(body, self._application.bot)
        except (ValueError, TypeError, KeyError, AttributeError):
            return web.Response(status=400)
        await self._application.update_queue.put(update)
        return web.Response()

    # -- sending -----------------------------------------------------------------

    async def _connect(self) -> None:
        """Connect the bot unless it is (sending works without `start()`): once, not
        before every call, as PTB's initialize() would set the rate limiter up again."""
        if not self._connected:
            await self._application.bot.initialize()
            self._connected = True

    async def send(
        self, conversation: Conversation, reply: Reply, *, reply_to: int | None = None
    ) -> SentRef:
        """Send a reply as one or more messages; the buttons go on the last one.

        Works without `start()` too (digests sent from the CLI): the bot then
        connects on first use, and `stop()` closes it.
        """
        await self._connect()
        chunks, markup = rendered(reply)
        return await self._send_chunks(conversation, chunks, markup, reply_to)

    async def _send_chunks(
        self,
        conversation: Conversation,
        chunks: Sequence[str],
        markup: InlineKeyboardMarkup | None,
        reply_to: int | None = None,
    ) -> SentRef:
        ids: list[str] = []
        for index, chunk in enumerate(chunks):
            quote = reply_to if index == 0 else None
            message = await self._application.bot.send_message(
                chat_id=int(conversation.chat_id),
                text=chunk,
                parse_mode=ParseMode.HTML,
                reply_markup=markup if index == len(chunks) - 1 else None,
                message_thread_id=_thread_id(conversation),
                link_preview_options=LinkPreviewOptions(is_disabled=True),
                reply_parameters=(
                    ReplyParameters(quote, allow_sending_without_reply=True) if quote else None
                ),
            )
            ids.append(str(message.message_id))
        return SentRef(conversation, tuple(ids))

    async def edit(self, ref: SentRef, reply: Reply) -> None:
        """Rewrite the message that carries the buttons (its old buttons go away).

        Text past the first message's limit continues in new messages. When the
        message can no longer be edited, the reply is sent as a new message.
        """
        bot = self._application.bot
        await self._connect()
        chat_id, message_id = int(ref.conversation.chat_id), int(ref.message_ids[-1])
        chunks, markup = rendered(reply)
        try:
            if not chunks:
                await bot.edit_message_reply_markup(chat_id, message_id, reply_markup=markup)
                return
            await bot.edit_message_text(
                chunks[0],
                chat_id,
                message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=markup if len(chunks) == 1 else None,
                link_preview_options=LinkPreviewOptions(is_disabled=True),
            )
        except BadRequest as exc:
            if "not modified" in exc.message:
                return
            log.info("could not edit Telegram message %s (%s); sending anew", message_id, exc)
            await self.send(ref.conversation, reply)
            return
        await self._send_chunks(ref.conversation, chunks[1:], markup)

    # -- who is in a chat --------------------------------------------------------

    async def members_among(self, chat_id: str, user_ids: Collection[str]) -> set[str]:
        """Which of `user_ids` are in group `chat_id` now (bot.people.teams), one
        getChatMember each; raises TelegramError when Telegram cannot say."""
        bot = self._application.bot
        await self._connect()
        present: set[str] = set()
        for user_id in user_ids:
            try:
                member = await bot.get_chat_member(int(chat_id), int(user_id))
            except BadRequest as exc:
                if _NEVER_MET.search(exc.message):
                    continue  # a user Telegram does not know in this chat: not in it
                raise
            if _is_in(member):
                present.add(user_id)
        return present

    # -- receiving ---------------------------------------------------------------

    async def _handle(self, update: Update, context: object) -> None:
        if not self._first_delivery(update):
            log.debug("dropping re-delivered update %s", update.update_id)
            return
        if update.callback_query is not None:
            # Answer at once: the user's button shows a spinner until this arrives.
            try:
                await update.callback_query.answer()
            except TelegramError as exc:
                log.info("answerCallbackQuery failed: %s", exc)
        bot = self._application.bot
        translation = translate_update(update, bot.username, bot.id)
        try:
            if isinstance(translation, Skip):
                log.debug("ignoring update %s: %s", update.update_id, translation.reason)
                if translation.answer and translation.conversation:
                    await self.send(translation.conversation, Reply(translation.answer))
            elif isinstance(translation, Press):
                await self._run(translation.event, (), pressed=translation.message_id)
            elif isinstance(translation, Incoming) and translation.media_group:
                self._albums.add(translation)
            elif isinstance(translation, Incoming):
                await self._take(translation)
        except Exception:
            log.exception("Telegram update %s failed", update.update_id)

    def _first_delivery(self, update: Update) -> bool:
        keys: list[Hashable] = [("update", update.update_id)]
        message = update.message
        if message is not None:
            keys.append(("message", message.chat_id, message.message_id))
        if update.callback_query is not None:
            keys.append(("query", update.callback_query.id))
        return self._seen.first_time(*keys)

    async def _take(self, incoming: Incoming) -> None:
        await self._run(
            incoming.event, incoming.files, reply_to=incoming.reply_to, duplicate=incoming.duplicate
        )

    async def _run(
        self,
        event: Event,
        files: Sequence[FileRef],
        *,
        reply_to: int | None = None,
        pressed: int | None = None,
        duplicate: str | None = None,
    ) -> None:
        assert self._on_event is not None, "start() was not called"
        conversation = event.conversation
        done = asyncio.Event()
        typing = asyncio.create_task(self._keep_typing(conversation, done))
        try:
            allowed = False
            if isinstance(event, InboundMessage) and (files or duplicate):
                allowed = await self._may_fetch(event)
            if files and allowed and isinstance(event, InboundMessage):
                attachments = tuple([await self._download(ref) for ref in files])
                event = replace(event, attachments=attachments)
            replies: Sequence[Reply] = await self._on_event(event)
            if not replies and allowed and duplicate:
                replies = [Reply(duplicate)]  # the engine answers a duplicate with nothing
        except FileTooBig:
            replies = [Reply(TOO_BIG.format(limit=_megabytes(self._max_file_bytes)))]
        except Exception:
            log.exception("handling a Telegram event failed")
            replies = [Reply(FAILED)]
        finally:
            # Let a chatAction already on its way land first: arriving after the
            # reply, it would show "typing" under the answer for five seconds.
            done.set()
            await typing
        for reply in replies:
            if reply.replace and pressed is not None:
                await self.edit(SentRef(conversation, (str(pressed),)), reply)
            else:
                await self.send(conversation, reply, reply_to=reply_to)

    async def _may_fetch(self, event: InboundMessage) -> bool:
        # A stranger's files are never fetched: the engine refuses them anyway.
        return self._may_use is None or await self._may_use(event.sender)

    async def _download(self, ref: FileRef) -> Attachment:
        if ref.file_size is not None and ref.file_size > self._max_file_bytes:
            raise FileTooBig(ref.file_name)
        try:
            file = await self._application.bot.get_file(ref.file_id)
        except BadRequest as exc:
            if "file is too big" in exc.message.lower():
                raise FileTooBig(ref.file_name) from exc
            raise
        if file.file_size is not None and file.file_size > self._max_file_bytes:
            raise FileTooBig(ref.file_name)
        data = bytes(await file.download_as_bytearray())
        return Attachment(ref.kind, data, ref.file_name, ref.mime_type)

    async def _keep_typing(self, conversation: Conversation, done: asyncio.Event) -> None:
        """Telegram shows "typing" for ~5 s per call; renew it until `done` is set."""
        while not done.is_set():
            try:
                await self._application.bot.send_chat_action(
                    int(conversation.chat_id),
                    ChatAction.TYPING,
                    message_thread_id=_thread_id(conversation),
                )
            except TelegramError as exc:
                log.debug("sendChatAction failed: %s", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), self._typing_interval)


# How getChatMember answers for someone who never was in the chat.
_NEVER_MET = re.compile(r"user not found|participant_id_invalid|member not found", re.I)


def _is_in(member: ChatMember) -> bool:
    """Whether a chat member's status means they are in the chat: an owner, an
    administrator, a member, or restricted but still a member (not left or kicked)."""
    if isinstance(member, ChatMemberRestricted):
        return member.is_member
    return member.status in {ChatMember.OWNER, ChatMember.ADMINISTRATOR, ChatMember.MEMBER}


def _thread_id(conversation: Conversation) -> int | None:
    return int(conversation.thread_id) if conversation.thread_id else None
