"""A fake Telegram Bot API server on 127.0.0.1.

Serves `{root}/bot{token}/{method}` and `{root}/file/bot{token}/{file_path}` the
way api.telegram.org does, so the real python-telegram-bot runs against it. It
records every request with decoded parameters, holds `getUpdates` long polls,
and enforces the limits that bite in production (4,096-character messages,
64-byte callback_data, well-formed HTML, the 20 MB download cap), answering with
Telegram's own error descriptions so a violation fails the test.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.telegram_html import CantParseEntities, utf16_len, visible_text

MAX_TEXT = 4096
MAX_CALLBACK_DATA = 64
MAX_DOWNLOAD = 20 * 1024 * 1024
# Values PTB sends as plain strings; everything else arrives JSON-encoded.
_STRING_PARAMS = frozenset(
    {"text", "caption", "url", "secret_token", "file_id", "callback_query_id", "action"}
    | {"parse_mode", "ip_address"}
)


class ApiError(Exception):
    """An error answer: HTTP status, Telegram's description, optional parameters."""

    def __init__(self, status: int, description: str, parameters: dict[str, Any] | None = None):
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters


def bad_request(reason: str) -> ApiError:
    return ApiError(400, f"Bad Request: {reason}")


@dataclass
class Request:
    """One call the bot made: method name, decoded parameters, arrival time."""

    method: str
    params: dict[str, Any]
    at: float


@dataclass
class StoredFile:
    data: bytes
    file_path: str
    file_size: int


@dataclass
class SentMessage:
    chat_id: int
    message_id: int
    text: str
    reply_markup: dict[str, Any] | None = None
    edits: list[str] = field(default_factory=list)


class FakeTelegram:
    """The Bot API for one bot token. Start with `await fake.start()` (or `async with`)."""

    def __init__(self, token: str = "123456:TEST-token", username: str = "brainbot_test_bot"):
        self.token = token
        self.bot_id = int(token.split(":", 1)[0])
        self.username = username
        self.requests: list[Request] = []
        self.updates: list[dict[str, Any]] = []
        self.delivered_at: dict[int, float] = {}  # update_id -> when getUpdates returned it
        self.files: dict[str, StoredFile] = {}
        self.messages: dict[tuple[int, int], SentMessage] = {}
        self.webhook: dict[str, Any] = {}
        self.commands: list[dict[str, Any]] = []
        # (chat, user) -> status: creator, administrator, member, restricted (still a
        # member), restricted-left (restricted, not a member), left or kicked.
        self.chat_members: dict[tuple[int, int], str] = {}
        self.known_users: set[int] = set()  # users getChatMember knows beyond chat_members
        self._throttle: dict[str, tuple[int, float]] = {}
        self._update_ids = itertools.count(1000)
        self._message_ids = itertools.count(5000)
        self._waiters: set[asyncio.Future[None]] = set()
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- lifecycle ---------------------------------------------------------------

    @property
    def root(self) -> str:
        """What `TelegramAdapter(api_url=...)` takes."""
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> FakeTelegram:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._api)
        app.router.add_get("/file/bot{token}/{path:.+}", self._download)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- what tests set up -------------------------------------------------------

    def queue_update(self, update: dict[str, Any]) -> int:
        """Make `update` available to getUpdates (an `update_id` is assigned if absent)."""
        update = dict(update)
        update.setdefault("update_id", next(self._update_ids))
        self.updates.append(update)
        self._notify()
        return int(update["update_id"])

    def add_file(self, file_id: str, data: bytes, *, file_size: int | None = None) -> None:
        """Register a downloadable file; `file_size` can claim more bytes than `data` holds."""
        self.files[file_id] = StoredFile(data, f"files/{file_id}", file_size or len(data))

    def set_member(self, chat_id: int, user_id: int, status: str = "member") -> None:
        """Put `user_id` in group `chat_id` with `status` (see `chat_members`)."""
        self.chat_members[chat_id, user_id] = status
        self.known_users.add(user_id)

    def throttle(self, method: str, times: int, retry_after: float = 1) -> None:
        """Answer the next `times` calls of `method` with 429 and `retry_after`."""
        self._throttle[method] = (times, retry_after)

    # -- what tests inspect ------------------------------------------------------

    def calls(self, method: str) -> list[dict[str, Any]]:
        return [r.params for r in self.requests if r.method == method]

    async def wait_for(
        self,
        method: str,
        count: int = 1,
        *,
        where: Callable[[dict[str, Any]], bool] | None = None,
        within: float = 5.0,
    ) -> list[dict[str, Any]]:
        """Wait until `count` calls of `method` (matching `where`) arrived; return them."""
        deadline = time.monotonic() + within
        while True:
            found = [p for p in self.calls(method) if where is None or where(p)]
            if len(found) >= count:
                return found
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                seen = [r.method for r in self.requests]
                raise AssertionError(f"{count} x {method} not received in {within}s; saw {seen}")
            await self._next_change(remaining)

    async def _next_change(self, within: float) -> None:
        """Wait until a request or update arrives (or `within` passes).

        Each waiter has its own future, registered before the caller's check is
        stale, so a change can never slip between checking and waiting (a shared
        Event cleared by one waiter would lose another waiter's wake-up).
        """
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.add(waiter)
        try:
            await asyncio.wait({waiter}, timeout=max(within, 0))
        finally:
            self._waiters.discard(waiter)

    def _notify(self) -> None:
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)

    # -- the wire ----------------------------------------------------------------

    async def _api(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return _error(ApiError(401, "Unauthorized"))
        method = request.match_info["method"]
        params = await _decode(request)
        self.requests.append(Request(method, params, time.perf_counter()))
        self._notify()
        handler = getattr(self, f"_m_{method}", None)
        if handler is None:
            return _error(ApiError(404, "Not Found"))
        try:
            self._check_throttle(method)
            result = await handler(params)
        except ApiError as exc:
            return _error(exc)
        return web.json_response({"ok": True, "result": result})

    async def _download(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return _error(ApiError(401, "Unauthorized"))
        for stored in self.files.values():
            if stored.file_path == request.match_info["path"]:
                return web.Response(body=stored.data)
        return _error(ApiError(404, "Not Found"))

    def _check_throttle(self, method: str) -> None:
        times, retry_after = self._throttle.get(method, (0, 0))
        if times > 0:
            self._throttle[method] = (times - 1, retry_after)
            raise ApiError(
                429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
            )

    # -- methods -----------------------------------------------------------------

    async def _m_getMe(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": "Brainbot",
            "username": self.username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }

    async def _m_deleteWebhook(self, params: dict[str, Any]) -> bool:
        self.webhook = {}
        if params.get("drop_pending_updates"):
            self.updates.clear()
        return True

    async def _m_setWebhook(self, params: dict[str, Any]) -> bool:
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
            raise bad_request("secret token contains unallowed characters")
        self.webhook = params
        return True

    async def _m_setMyCommands(self, params: dict[str, Any]) -> bool:
        self.commands = list(params["commands"])
        return True

    async def _m_getUpdates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        if self.webhook:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = int(params.get("offset") or 0)
        # An offset confirms every update before it, as on the real server.
        self.updates = [u for u in self.updates if u["update_id"] >= offset]
        deadline = time.monotonic() + float(params.get("timeout") or 0)
        while not self.updates and time.monotonic() < deadline:
            await self._next_change(deadline - time.monotonic())
        batch = self.updates[: int(params.get("limit") or 100)]
        now = time.perf_counter()
        for update in batch:
            self.delivered_at.setdefault(update["update_id"], now)
        return batch

    async def _m_sendMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id = int(params["chat_id"])
        text = self._check_text(params)
        markup = self._check_markup(params)
        message_id = next(self._message_ids)
        self.messages[chat_id, message_id] = SentMessage(chat_id, message_id, text, markup)
        return self._message_json(chat_id, message_id, text, markup)

    async def _m_editMessageText(self, params: dict[str, Any]) -> dict[str, Any]:
        message = self._find(params)
        text = self._check_text(params)
        markup = self._check_markup(params)
        if text == message.text and markup == message.reply_markup:
            raise bad_request(
                "message is not modified: specified new message content and reply markup "
                "are exactly the same as a current content and reply markup of the message"
            )
        message.text, message.reply_markup = text, markup
        message.edits.append(text)
        return self._message_json(message.chat_id, message.message_id, text, markup)

    async def _m_editMessageReplyMarkup(self, params: dict[str, Any]) -> dict[str, Any]:
        message = self._find(params)
        markup = self._check_markup(params)
        if markup == message.reply_markup:
            raise bad_request("message is not modified")
        message.reply_markup = markup
        return self._message_json(message.chat_id, message.message_id, message.text, markup)

    async def _m_answerCallbackQuery(self, params: dict[str, Any]) -> bool:
        if not params.get("callback_query_id"):
            raise bad_request(
                "query is too old and response timeout expired or query ID is invalid"
            )
        return True

    async def _m_sendChatAction(self, params: dict[str, Any]) -> bool:
        if params.get("action") not in {"typing", "upload_photo", "upload_document"}:
            raise bad_request("wrong parameter action in request")
        return True

    async def _m_getChatMember(self, params: dict[str, Any]) -> dict[str, Any]:
        """A ChatMember as the Bot API describes it; a user the chat never had is
        "left" when Telegram knows them, else `user not found`."""
        chat_id, user_id = int(params["chat_id"]), int(params["user_id"])
        if not any(chat == chat_id for chat, _ in self.chat_members):
            raise bad_request("chat not found")
        status = self.chat_members.get((chat_id, user_id))
        if status is None and user_id not in self.known_users:
            raise bad_request("user not found")
        user = {"id": user_id, "is_bot": False, "first_name": f"User {user_id}"}
        return _chat_member(status or "left", user)

    async def _m_getFile(self, params: dict[str, Any]) -> dict[str, Any]:
        stored = self.files.get(str(params.get("file_id")))
        if stored is None:
            raise bad_request("invalid file_id")
        if stored.file_size > MAX_DOWNLOAD:
            raise bad_request("file is too big")
        return {
            "file_id": params["file_id"],
            "file_unique_id": f"u{params['file_id']}",
            "file_size": stored.file_size,
            "file_path": stored.file_path,
        }

    # -- checks ------------------------------------------------------------------

    def _check_text(self, params: dict[str, Any]) -> str:
        text = str(params.get("text", ""))
        try:
            shown = visible_text(text) if params.get("parse_mode") == "HTML" else text
        except CantParseEntities as exc:
            raise bad_request(str(exc)) from exc
        if not shown.strip():
            raise bad_request("message text is empty")
        if utf16_len(shown) > MAX_TEXT:
            raise bad_request("message is too long")
        return text

    def _check_markup(self, params: dict[str, Any]) -> dict[str, Any] | None:
        markup = params.get("reply_markup")
        if markup is None:
            return None
        for row in markup.get("inline_keyboard", []):
            for button in row:
                data = button.get("callback_data")
                if data is not None and not 1 <= len(data.encode()) <= MAX_CALLBACK_DATA:
                    raise bad_request("BUTTON_DATA_INVALID")
        return dict(markup)

    def _find(self, params: dict[str, Any]) -> SentMessage:
        key = (int(params["chat_id"]), int(params["message_id"]))
        message = self.messages.get(key)
        if message is None:
            raise bad_request("message to edit not found")
        return message

    def _message_json(
        self, chat_id: int, message_id: int, text: str, markup: dict[str, Any] | None
    ) -> dict[str, Any]:
        message: dict[str, Any] = {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "supergroup"},
            "from": {"id": self.bot_id, "is_bot": True, "first_name": "Brainbot"},
            "text": visible_text(text),
        }
        if markup:
            message["reply_markup"] = markup
        return message


async def _decode(request: web.Request) -> dict[str, Any]:
    """Form fields (PTB's encoding: non-string values as JSON), JSON bodies or a query."""
    if request.content_type == "application/json":
        body = await request.json()
        return dict(body) if body else {}
    raw: dict[str, Any] = dict(request.query)
    if request.can_read_body:
        raw.update(await request.post())
    params: dict[str, Any] = {}
    for key, value in raw.items():
        if not isinstance(value, str) or key in _STRING_PARAMS:
            params[key] = value
            continue
        try:
            params[key] = json.loads(value)
        except ValueError:
            params[key] = value
    return params


_RIGHTS = ("can_change_info", "can_invite_users", "can_pin_messages", "can_manage_topics")
_SENDING = (
    "can_send_messages",
    "can_send_audios",
    "can_send_documents",
    "can_send_photos",
    "can_send_videos",
    "can_send_video_notes",
    "can_send_voice_notes",
    "can_send_polls",
    "can_send_other_messages",
    "can_add_web_page_previews",
)
_ADMIN = (
    "can_manage_chat",
    "can_delete_messages",
    "can_manage_video_chats",
    "can_restrict_members",
    "can_promote_members",
    "can_change_info",
    "can_invite_users",
    "can_post_stories",
    "can_edit_stories",
    "can_delete_stories",
)


def _chat_member(status: str, user: dict[str, Any]) -> dict[str, Any]:
    """The ChatMember* object of `status`, with the fields the Bot API always sends."""
    if status == "creator":
        return {"status": "creator", "user": user, "is_anonymous": False}
    if status == "administrator":
        admin = {"status": status, "user": user, "can_be_edited": False, "is_anonymous": False}
        return admin | dict.fromkeys(_ADMIN, True)
    if status in {"restricted", "restricted-left"}:
        rights = dict.fromkeys(
            (*_RIGHTS, *_SENDING, "can_edit_tag", "can_react_to_messages"), False
        )
        member = {"status": "restricted", "user": user, "is_member": status == "restricted"}
        return member | rights | {"until_date": 0}
    if status == "kicked":
        return {"status": "kicked", "user": user, "until_date": 0}
    return {"status": status, "user": user}  # member, left


def _error(exc: ApiError) -> web.Response:
    body: dict[str, Any] = {"ok": False, "error_code": exc.status, "description": exc.description}
    if exc.parameters:
        body["parameters"] = exc.parameters
    return web.json_response(body, status=exc.status)
