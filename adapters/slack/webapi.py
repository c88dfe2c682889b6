"""The Slack Web API calls the adapter makes, with rate limits waited out and
errors logged once with the method name and Slack's error code."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import AsyncConnectionErrorRetryHandler
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.events import Sender

from .render import SlackMessage
from .settings import PLATFORM
from .translate import sender_from_profile

log = logging.getLogger(__name__)

T = TypeVar("T")
MAX_RETRY_AFTER = 60.0  # seconds; longer waits are reported as errors instead
MAX_FILE_BYTES = 20 * 1024 * 1024
MEMBERS_PAGE = 1000  # conversations.members' largest page
REPLIES_PAGE = 200  # conversations.replies' largest useful page
MEMBERS_FRESH = 60.0  # seconds a channel's member list is reused


class SlackCallError(Exception):
    """A Web API call failed: which method, and Slack's error code (e.g. `channel_not_found`)."""

    def __init__(self, method: str, error: str):
        super().__init__(f"Slack {method} failed: {error}")
        self.method = method
        self.error = error


class RetryAfterHandler(AsyncRetryHandler):
    """Retries a 429 after exactly the `Retry-After` Slack asked for.

    slack_sdk's AsyncRateLimitErrorRetryHandler always adds up to a second of
    jitter and has no ceiling; a chat bot wants the documented wait and a cap.
    """

    def __init__(self, max_retry_count: int = 3, max_wait: float = MAX_RETRY_AFTER):
        super().__init__(max_retry_count=max_retry_count)
        self.max_wait = max_wait

    async def _can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        return (
            response is not None
            and response.status_code == 429
            and self._wait(response) <= self.max_wait
        )

    async def prepare_for_next_attempt_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> None:
        state.next_attempt_requested = True
        wait = self._wait(response) if response is not None else 1.0
        log.info("Slack rate limit on %s: retrying in %.1f s", request.url, wait)
        await asyncio.sleep(wait)
        state.increment_current_attempt()

    @staticmethod
    def _wait(response: HttpResponse) -> float:
        for name, values in response.headers.items():
            if name.lower() == "retry-after" and values:
                try:
                    return max(0.0, float(values[0]))
                except ValueError:
                    break
        return 1.0 + random.random()


@dataclass(frozen=True, slots=True)
class BotIdentity:
    """What auth.test says about our token."""

    user_id: str
    team_id: str
    team_url: str


class SlackWebAPI:
    """The Web API client of one bot token, sharing one HTTP connection pool."""

    def __init__(self, token: str, api_url: str):
        self._token = token
        self.client = AsyncWebClient(
            token=token,
            base_url=api_url if api_url.endswith("/") else api_url + "/",
            timeout=30,
            retry_handlers=[AsyncConnectionErrorRetryHandler(), RetryAfterHandler()],
        )
        self._session: aiohttp.ClientSession | None = None
        self._senders: dict[str, Sender] = {}
        self._members: dict[str, tuple[float, frozenset[str]]] = {}

    async def open(self) -> None:
        """Open the shared HTTP session (keep-alive matters on the reply path)."""
        self._session = aiohttp.ClientSession()
        self.client.session = self._session

    async def close(self) -> None:
        """Close the HTTP session."""
        if self._session is not None:
            await self._session.close()
            self._session = None
            self.client.session = None

    async def _call(self, method: str, call: Callable[[], Awaitable[T]]) -> T:
        try:
            return await call()
        except SlackApiError as exc:
            error = str(exc.response.get("error") or exc.response.status_code)
            log.warning("Slack %s failed: %s", method, error)
            raise SlackCallError(method, error) from exc
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning("Slack %s failed: %s", method, exc)
            raise SlackCallError(method, type(exc).__name__) from exc

    async def identify(self) -> BotIdentity:
        """auth.test: the bot's user id and the workspace URL (for permalinks)."""
        response = await self._call("auth.test", self.client.auth_test)
        return BotIdentity(
            user_id=str(response.get("user_id") or ""),
            team_id=str(response.get("team_id") or ""),
            team_url=str(response.get("url") or ""),
        )

    async def socket_url(self, app_token: str) -> str:
        """apps.connections.open: a fresh Socket Mode websocket URL."""
        response = await self._call(
            "apps.connections.open", lambda: self.client.apps_connections_open(app_token=app_token)
        )
        return str(response["url"])

    async def sender(self, user_id: str) -> Sender:
        """The user's display name and time zone from users.info, cached per user.

        A failed lookup still yields a Sender (with the id as name) and is not cached.
        """
        cached = self._senders.get(user_id)
        if cached is not None:
            return cached
        try:
            response = await self._call("users.info", lambda: self.client.users_info(user=user_id))
        except SlackCallError:
            return Sender(PLATFORM, user_id, user_id)
        sender = sender_from_profile(response["user"])
        self._senders[user_id] = sender
        return sender

    async def channel_members(self, channel: str) -> frozenset[str]:
        """conversations.members, every page: the user ids in the channel (reused for
        MEMBERS_FRESH seconds, so checking several people costs one listing)."""
        cached = self._members.get(channel)
        if cached is not None and time.monotonic() - cached[0] < MEMBERS_FRESH:
            return cached[1]
        members: set[str] = set()
        cursor = ""
        while True:
            page = await self._call(
                "conversations.members",
                partial(
                    self.client.conversations_members,
                    channel=channel,
                    limit=MEMBERS_PAGE,
                    cursor=cursor or None,
                ),
            )
            members.update(str(m) for m in page.get("members") or ())
            cursor = str((page.get("response_metadata") or {}).get("next_cursor") or "")
            if not cursor:
                break
        found = frozenset(members)
        self._members[channel] = (time.monotonic(), found)
        return found

    async def thread(self, channel: str, ts: str, *, limit: int) -> list[dict[str, Any]]:
        """conversations.replies, page by page: the message `ts` and, when it is a
        thread's root or one of its replies, the thread's other messages (the root
        first), at most `limit` of them. A message outside any thread comes alone."""
        messages: list[dict[str, Any]] = []
        cursor = ""
        while len(messages) < limit:
            page = await self._call(
                "conversations.replies",
                partial(
                    self.client.conversations_replies,
                    channel=channel,
                    ts=ts,
                    limit=min(REPLIES_PAGE, limit - len(messages)),
                    cursor=cursor or None,
                ),
            )
            messages.extend(page.get("messages") or ())
            cursor = str((page.get("response_metadata") or {}).get("next_cursor") or "")
            if not cursor:
                break
        return messages[:limit]

    async def download(self, url: str, *, limit: int = MAX_FILE_BYTES) -> bytes:
        """A file's bytes from its url_private(_download), authorised by the bot token."""
        if self._session is None:
            raise SlackCallError("files.download", "not_connected")
        headers = {"Authorization": f"Bearer {self._token}"}
        try:
            async with self._session.get(url, headers=headers) as response:
                # Without files:read Slack answers 200 with its sign-in page.
                if response.status != 200 or response.content_type == "text/html":
                    error = f"http_{response.status}" if response.status != 200 else "not_authed"
                    raise SlackCallError("files.download", error)
                if (response.content_length or 0) > limit:
                    raise SlackCallError("files.download", "file_too_large")
                data = await response.content.read(limit + 1)
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise SlackCallError("files.download", type(exc).__name__) from exc
        if len(data) > limit:
            raise SlackCallError("files.download", "file_too_large")
        return data

    async def post(self, channel: str, message: SlackMessage, thread_ts: str | None = None) -> str:
        """chat.postMessage; returns the new message's ts."""
        kwargs: dict[str, Any] = {"channel": channel, **message.payload()}
        if thread_ts:
            kwargs["thread_ts"] = thread_ts
        response = await self._call(
            "chat.postMessage", lambda: self.client.chat_postMessage(**kwargs)
        )
        return str(response["ts"])

    async def post_ephemeral(
        self, channel: str, user: str, message: SlackMessage, thread_ts: str | None = None
    ) -> None:
        """chat.postEphemeral: a message in `channel` that only `user` sees (and that
        Slack forgets when they reload)."""
        kwargs: dict[str, Any] = {"channel": channel, "user": user, **message.payload()}
        if thread_ts:
            kwargs["thread_ts"] = thread_ts
        await self._call("chat.postEphemeral", lambda: self.client.chat_postEphemeral(**kwargs))

    async def update(self, channel: str, ts: str, message: SlackMessage) -> None:
        """chat.update: replace a message's text and blocks (dropping its buttons)."""
        await self._call(
            "chat.update",
            lambda: self.client.chat_update(channel=channel, ts=ts, **message.payload()),
        )

    async def respond(
        self, response_url: str, message: SlackMessage, *, replace_original: bool = False
    ) -> None:
        """Answer through a response_url (slash commands, ephemeral messages)."""
        webhook = AsyncWebhookClient(response_url, session=self._session, timeout=30)
        try:
            response = await webhook.send(
                text=message.text,
                blocks=list(message.blocks),
                response_type="ephemeral",
                replace_original=replace_original,
            )
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning("Slack response_url failed: %s", exc)
            raise SlackCallError("response_url", type(exc).__name__) from exc
        if response.status_code != 200:
            log.warning("Slack response_url failed: %s %s", response.status_code, response.body)
            raise SlackCallError("response_url", response.body or str(response.status_code))
