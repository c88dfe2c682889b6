"""A fake Slack Web API (and Socket Mode websocket) on 127.0.0.1.

Serves `{api_url}{method}` for the methods brainbot calls, a Socket Mode
websocket (its URL handed out by apps.connections.open) and response_url
endpoints. It records every request with its decoded arguments, can answer 429
with Retry-After or a chosen error for the next calls of a method, and enforces
the Block Kit limits that bite in production (50 blocks per message, 3,000
characters per section, unique action_ids, ...) by answering `invalid_blocks`
like Slack does, so a violation fails the test.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.fakes.slack_history import ChannelHistory

BOT_TOKEN = "xoxb-fake-bot-token"
APP_TOKEN = "xapp-fake-app-token"
BOT_USER_ID = "UBRAINBOT"
TEAM_ID = "T00000001"
TEAM_URL = "https://acme.slack.com/"

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_TEXT = 40_000


@dataclass
class Call:
    """One request the bot made: method (or "response_url"), decoded arguments, the
    HTTP status and JSON answer it got, and when it arrived (monotonic seconds)."""

    method: str
    args: dict[str, Any]
    status: int
    at: float
    response: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == 200 and bool(self.response.get("ok"))


@dataclass
class Posted:
    """A message the bot posted; `edits` keeps every chat.update in order."""

    channel: str
    ts: str
    thread_ts: str | None
    text: str
    blocks: list[dict[str, Any]]
    edits: list[dict[str, Any]] = field(default_factory=list)


def block_errors(blocks: list[dict[str, Any]]) -> list[str]:
    """What Slack would reject in these blocks (empty when they are valid)."""
    errors: list[str] = []
    if len(blocks) > MAX_BLOCKS:
        errors.append(f"{len(blocks)} blocks > {MAX_BLOCKS}")
    for number, block in enumerate(blocks):
        kind = block.get("type")
        if kind == "section":
            text = (block.get("text") or {}).get("text", "")
            if not text.strip() or len(text) > MAX_SECTION_TEXT:
                errors.append(f"block {number}: section text length {len(text)}")
        elif kind == "context":
            elements = block.get("elements") or []
            if not 0 < len(elements) <= 10 or any(
                not 0 < len(e.get("text", "")) <= MAX_SECTION_TEXT for e in elements
            ):
                errors.append(f"block {number}: bad context")
        elif kind == "actions":
            elements = block.get("elements") or []
            ids = [e.get("action_id") for e in elements]
            if not 0 < len(elements) <= 25 or len(set(ids)) != len(ids):
                errors.append(f"block {number}: bad actions (count or duplicate action_id)")
            for element in elements:
                label = (element.get("text") or {}).get("text", "")
                if not 0 < len(label) <= 75 or len(element.get("value", "")) > 2000:
                    errors.append(f"block {number}: bad button {label!r}")
                if len(element.get("action_id") or "") > 255:
                    errors.append(f"block {number}: action_id too long")
        else:
            errors.append(f"block {number}: unexpected type {kind!r}")
    return errors


class FakeSlack(ChannelHistory):
    """Start with `await fake.start()`; point the bot at `fake.api_url`."""

    def __init__(self, *, bot_token: str = BOT_TOKEN, app_token: str = APP_TOKEN) -> None:
        super().__init__()
        self.bot_token = bot_token
        self.app_token = app_token
        self.calls: list[Call] = []
        self.messages: dict[tuple[str, str], Posted] = {}
        self.users: dict[str, dict[str, Any]] = {}
        self.acks: dict[str, dict[str, Any]] = {}
        self.sockets: list[web.WebSocketResponse] = []
        self.files: dict[str, tuple[bytes, str]] = {}
        self.channels: dict[str, list[str]] = {}  # channel -> member user ids, in order
        self.members_page = 100  # the most conversations.members returns per page
        self._faults: dict[str, list[Callable[[], web.Response]]] = {}
        self._ts = itertools.count(1)
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.add_user("U0ALICE", "alice", display_name="Alice", tz="Europe/Berlin")
        self.add_user("U0BOB", "bob", display_name="Bob", tz="America/New_York")

    # -- lifecycle -----------------------------------------------------------

    async def start(self) -> None:
        """Listen on an ephemeral port of 127.0.0.1."""
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._api)
        app.router.add_get("/socket", self._socket)
        app.router.add_post("/respond/{name}", self._respond)
        app.router.add_get("/files/{name}", self._file)
        self._runner = web.AppRunner(
            app, handle_signals=False, shutdown_timeout=0.1, access_log=None
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def close(self) -> None:
        """Close websockets and stop listening."""
        for ws in list(self.sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/"

    def response_url(self, name: str = "r1") -> str:
        """A response_url the bot may POST to; its calls are recorded as "response_url"."""
        return f"http://127.0.0.1:{self.port}/respond/{name}"

    # -- test controls -------------------------------------------------------

    def add_user(
        self,
        user_id: str,
        name: str,
        *,
        display_name: str = "",
        tz: str = "UTC",
        team_id: str = TEAM_ID,
    ) -> None:
        """Make a user known to users.info (`team_id`: their own workspace)."""
        self.users[user_id] = {
            "id": user_id,
            "team_id": team_id,
            "name": name,
            "real_name": display_name or name,
            "tz": tz,
            "is_bot": False,
            "profile": {"display_name": display_name, "real_name": display_name or name},
        }

    def add_file(self, name: str, data: bytes, mime: str, *, subtype: str = "") -> dict[str, Any]:
        """Store a file; returns the `files[]` entry a message event carries for it."""
        self.files[name] = (data, mime)
        entry: dict[str, Any] = {
            "id": f"F{len(self.files):08d}",
            "name": name,
            "mimetype": mime,
            "size": len(data),
            "url_private": f"http://127.0.0.1:{self.port}/files/{name}",
            "url_private_download": f"http://127.0.0.1:{self.port}/files/{name}?download=1",
        }
        if subtype:
            entry["subtype"] = subtype
        return entry

    def set_members(self, channel: str, *user_ids: str) -> None:
        """Who is in `channel` (conversations.members lists them; the bot is in it)."""
        self.channels[channel] = [BOT_USER_ID, *user_ids]

    def rate_limit(self, method: str, times: int = 1, retry_after: str = "0") -> None:
        """Answer the next `times` calls of `method` with 429 and this Retry-After."""
        body = {"ok": False, "error": "ratelimited"}
        response = lambda: web.json_response(body, status=429, headers={"Retry-After": retry_after})  # noqa: E731
        self._faults.setdefault(method, []).extend([response] * times)

    def fail(self, method: str, error: str, times: int = 1) -> None:
        """Answer the next `times` calls of `method` with `{"ok": false, "error": error}`."""
        response = lambda: web.json_response({"ok": False, "error": error})  # noqa: E731
        self._faults.setdefault(method, []).extend([response] * times)

    def heal(self, method: str) -> None:
        """Answer `method` normally again (drop its queued errors)."""
        self._faults.pop(method, None)

    def calls_of(self, method: str) -> list[Call]:
        """Answered-or-not calls of one method, oldest first."""
        return [call for call in self.calls if call.method == method]

    def ok_calls(self, method: str) -> list[Call]:
        """Calls of one method that Slack accepted (HTTP 200 and ok)."""
        return [call for call in self.calls_of(method) if call.ok]

    async def wait_until(self, predicate: Callable[[], bool], within: float = 5.0) -> None:
        """Wait for recorded state to satisfy `predicate` (re-checked on every request)."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), within)

    async def wait_for(self, method: str, count: int = 1, within: float = 5.0) -> list[Call]:
        """Wait until `count` accepted calls of `method` arrived; return them."""
        await self.wait_until(lambda: len(self.ok_calls(method)) >= count, within)
        return self.ok_calls(method)

    # -- Socket Mode ---------------------------------------------------------

    async def push(
        self,
        kind: str,
        payload: dict[str, Any],
        *,
        retry_attempt: int = 0,
        retry_reason: str = "",
        envelope_id: str | None = None,
    ) -> str:
        """Send a Socket Mode envelope (events_api / interactive / slash_commands)."""
        await self.wait_until(lambda: any(not ws.closed for ws in self.sockets))
        envelope_id = envelope_id or str(uuid.uuid4())
        envelope = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": payload,
            "accepts_response_payload": kind != "events_api",
        }
        if kind == "events_api":
            envelope.update(retry_attempt=retry_attempt, retry_reason=retry_reason)
        ws = next(ws for ws in reversed(self.sockets) if not ws.closed)
        await ws.send_str(json.dumps(envelope))
        return envelope_id

    async def wait_for_ack(self, envelope_id: str, within: float = 5.0) -> dict[str, Any]:
        """Wait for the client's acknowledgement of one envelope."""
        await self.wait_until(lambda: envelope_id in self.acks, within)
        return self.acks[envelope_id]

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async with self._changed:
            self.sockets.append(ws)
            self._changed.notify_all()
        hello = {
            "type": "hello",
            "num_connections": len(self.sockets),
            "connection_info": {"app_id": "A1"},
        }
        await ws.send_str(json.dumps(hello))
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                continue
            data = json.loads(message.data)
            async with self._changed:
                if "envelope_id" in data:
                    self.acks[data["envelope_id"]] = data
                self._changed.notify_all()
        async with self._changed:
            self._changed.notify_all()
        return ws

    # -- Web API -------------------------------------------------------------

    async def _file(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        authorised = request.headers.get("Authorization") == f"Bearer {self.bot_token}"
        await self._record(Call("file", {"name": name}, 200, time.monotonic(), {"ok": authorised}))
        if not authorised or name not in self.files:
            # Slack's answer to a request without a valid token: its sign-in page.
            return web.Response(text="<html>sign in</html>", content_type="text/html")
        data, mime = self.files[name]
        return web.Response(body=data, content_type=mime)

    async def _respond(self, request: web.Request) -> web.Response:
        body = await request.json()
        errors = block_errors(body.get("blocks") or [])
        status = 400 if errors else 200
        answer = {"ok": not errors, "errors": errors}
        await self._record(Call("response_url", body, status, time.monotonic(), answer))
        return web.Response(status=status, text="invalid_blocks" if errors else "ok")

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        args: dict[str, Any] = dict(request.query)
        if request.can_read_body:
            if request.content_type == "application/json":
                args.update(await request.json())
            else:
                args.update(await request.post())
        headers = {"authorization": request.headers.get("Authorization", "")}
        faults = self._faults.get(method)
        if faults:
            response = faults.pop(0)()
            answer = json.loads(response.text or "{}")
            await self._record(
                Call(method, args, response.status, time.monotonic(), answer, headers)
            )
            return response
        answer = self._answer(method, args, headers["authorization"].removeprefix("Bearer "))
        await self._record(Call(method, args, 200, time.monotonic(), answer, headers))
        return web.json_response(answer)

    async def _record(self, call: Call) -> None:
        async with self._changed:
            self.calls.append(call)
            self._changed.notify_all()

    def _answer(self, method: str, args: dict[str, Any], token: str) -> dict[str, Any]:
        if method == "apps.connections.open":
            if token != self.app_token:
                return {"ok": False, "error": "invalid_auth"}
            return {"ok": True, "url": f"ws://127.0.0.1:{self.port}/socket"}
        if token != self.bot_token:
            return {"ok": False, "error": "invalid_auth"}
        handler = getattr(self, "_" + method.replace(".", "_"), None)
        if handler is None:
            return {"ok": False, "error": "unknown_method"}
        result: dict[str, Any] = handler(args)
        return result

    def _auth_test(self, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "ok": True,
            "url": TEAM_URL,
            "team": "Acme",
            "user": "brainbot",
            "team_id": TEAM_ID,
            "user_id": BOT_USER_ID,
            "bot_id": "B0BRAINBOT",
        }

    def _users_info(self, args: dict[str, Any]) -> dict[str, Any]:
        user = self.users.get(str(args.get("user")))
        return {"ok": True, "user": user} if user else {"ok": False, "error": "user_not_found"}

    def _message_errors(self, args: dict[str, Any]) -> dict[str, Any] | None:
        blocks = args.get("blocks")
        if isinstance(blocks, str):
            blocks = json.loads(blocks)
        if not args.get("text") and not blocks:
            return {"ok": False, "error": "no_text"}
        if len(args.get("text") or "") > MAX_TEXT:
            return {"ok": False, "error": "msg_too_long"}
        errors = block_errors(blocks or [])
        if errors:
            return {"ok": False, "error": "invalid_blocks", "errors": errors}
        args["blocks"] = blocks or []
        return None

    def _chat_postMessage(self, args: dict[str, Any]) -> dict[str, Any]:
        error = self._message_errors(args)
        if error:
            return error
        channel = str(args.get("channel") or "")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        ts = f"1763683200.{next(self._ts):06d}"
        thread = args.get("thread_ts")
        self.messages[(channel, ts)] = Posted(channel, ts, thread, args["text"], args["blocks"])
        return {
            "ok": True,
            "channel": channel,
            "ts": ts,
            "message": {"text": args["text"], "ts": ts},
        }

    def _chat_update(self, args: dict[str, Any]) -> dict[str, Any]:
        error = self._message_errors(args)
        if error:
            return error
        posted = self.messages.get((str(args.get("channel")), str(args.get("ts"))))
        if posted is None:
            return {"ok": False, "error": "message_not_found"}
        posted.text, posted.blocks = args.get("text") or "", args["blocks"]
        posted.edits.append({"text": posted.text, "blocks": posted.blocks})
        return {"ok": True, "channel": posted.channel, "ts": posted.ts, "text": posted.text}

    def _conversations_members(self, args: dict[str, Any]) -> dict[str, Any]:
        """A page of the channel's members and the cursor of the next (empty at the end),
        as Slack pages: at most `limit` (1..1000), and maybe fewer."""
        members = self.channels.get(str(args.get("channel") or ""))
        if members is None:
            return {"ok": False, "error": "channel_not_found"}
        try:
            limit = int(args.get("limit") or 100)
        except ValueError:
            return {"ok": False, "error": "invalid_limit"}
        if not 1 <= limit <= 1000:
            return {"ok": False, "error": "invalid_limit"}
        cursor = str(args.get("cursor") or "")
        start = 0
        if cursor:
            try:
                start = members.index(base64.b64decode(cursor).decode().removeprefix("user:"))
            except ValueError:
                return {"ok": False, "error": "invalid_cursor"}
        end = start + min(limit, self.members_page)
        following = f"user:{members[end]}" if end < len(members) else ""
        return {
            "ok": True,
            "members": members[start:end],
            "response_metadata": {
                "next_cursor": base64.b64encode(following.encode()).decode() if following else ""
            },
        }

    def _chat_getPermalink(self, args: dict[str, Any]) -> dict[str, Any]:
        channel, ts = str(args.get("channel")), str(args.get("message_ts"))
        link = f"{TEAM_URL}archives/{channel}/p{ts.replace('.', '')}"
        return {"ok": True, "channel": channel, "permalink": link}
