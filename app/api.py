"""The HTTP capture API: what a phone's share sheet, a bookmarklet or `curl` sends.

`POST /api/v1/capture` files a note on the one capture path every door shares
(bot.capture): the request is translated into a typed CaptureRequest, recorded first,
once per `Idempotency-Key`, rate-limited per person, its links and files read after
the answer (bot.enrich). It answers `201 {"path", "title", "reply"}`; `category`
"inbox" files an inbox note; an unknown category is refused (422) with the list.
`GET /api/v1/search?q=` answers the person's search as JSON.
`POST /api/v1/sync` syncs the person's vault with its git remote now (the target of
a Gitea or Forgejo push webhook; its body is not read) and answers what the round
did. `GET /api/v1/openapi.json` describes them. A request carries `Authorization: Bearer
<token>`, a token of the one store MCP uses too (`brainbot token PERSON`).

Every answer is JSON; an error is `{"error": "..."}` a Shortcut can show as it is:
401 (no or a dead token), 403 (the token's person is gone), 409 (the same key is still
being filed), 413 (too large, or a form of more than MAX_FILES files or MAX_PARTS
parts: refused before anything is recorded), 415 (a body that is not JSON, text or a
form), 429 (faster than BRAINBOT_RATE_LIMIT), 500 (a failure of ours), 503 (not ready
yet). A capture's files are kept with its note, in the note's one commit.
"""

from __future__ import annotations

import asyncio
import email.policy
import json
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from email.message import Message
from email.parser import BytesParser
from typing import Any

from aiohttp import web

from app.api_spec import OPENAPI
from app.backups import Backups
from app.cors import Cors, Handler
from app.runtime import Runtime
from bot.events import (
    MAX_FILES,
    Attachment,
    CaptureRequest,
    Conversation,
    EventHandler,
    InboundMessage,
    Sender,
    attachment_kind,
    keyed_event_id,
    storable,
)
from storage import EntryNotFound, UnsafePath
from storage.db import McpTokens, Person

log = logging.getLogger(__name__)

PLATFORM = "api"
PREFIX = "/api/v1"
FILED_WITHIN = 10.0  # seconds a replayed key waits for its first request's note
# A form's parts: the four fields (text, url, category, tags) and the files, with room
# for a client that sends a field twice. Counted before the form is parsed, so a body
# of thousands of empty parts costs one scan of its bytes.
MAX_PARTS = MAX_FILES + 10
FAILED = "something went wrong on brainbot's side; try again in a moment"
UNAUTHORISED = "needs `Authorization: Bearer <token>` with a live token: `brainbot token PERSON`"


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Capture:
    """What one request asks to keep."""

    text: str = ""
    url: str = ""
    category: str = ""
    tags: list[str] = field(default_factory=list)
    files: list[Attachment] = field(default_factory=list)

    def request(self) -> CaptureRequest:
        """The typed capture every door hands the engine (a question sent to be kept is
        kept, not answered): the words as sent, the link, the category and the tags."""
        words = " ".join(self.text.split()) if "\n" not in self.text else self.text.strip()
        links = (self.url,) if self.url else ()
        return CaptureRequest(words, links, self.category, tags=tuple(self.tags))

    def empty(self) -> bool:
        return not self.text.strip() and not self.url and not self.files


class CaptureApi:
    """The `/api/v1` routes: mounted before the server starts, serving once `start`
    has the runtime (503 until then)."""

    def __init__(self, cors_origins: Iterable[str] = ()) -> None:
        self.cors = Cors(cors_origins)
        self._runtime: Runtime | None = None
        self._tokens: McpTokens | None = None
        self._known: set[int] = set()  # people whose `api` identity exists
        self._handle: EventHandler | None = None
        self._backups: Backups | None = None

    def mount(self, app: web.Application) -> None:
        for path, method, handler in (
            (f"{PREFIX}/capture", "POST", self._capture),
            (f"{PREFIX}/capture", "GET", self._captured),
            (f"{PREFIX}/search", "GET", self._search),
            (f"{PREFIX}/sync", "POST", self._sync),
        ):
            app.router.add_route(method, path, _answering(handler, self.cors))
        for path, methods in (
            (f"{PREFIX}/capture", "GET, POST"),
            (f"{PREFIX}/search", "GET"),
            (f"{PREFIX}/sync", "POST"),
        ):
            app.router.add_route("OPTIONS", path, self.cors.preflight(methods))
        app.router.add_get(f"{PREFIX}/openapi.json", self._openapi)

    def start(
        self, runtime: Runtime, handle: EventHandler | None = None, backups: Backups | None = None
    ) -> None:
        """Serve from now on; events go to `handle` (the engine's, through the gate
        that holds them while a restart re-processes what a crash cut short); syncs
        with the git remotes go through `backups` (None: no remote is set)."""
        self._runtime = runtime
        self._backups = backups
        self._tokens = runtime.records.mcp_tokens
        self._handle = handle or runtime.engine.handle

    def stop(self) -> None:
        self._runtime = None

    async def _openapi(self, request: web.Request) -> web.Response:
        return web.json_response(OPENAPI)

    async def _capture(self, request: web.Request) -> web.Response:
        runtime, person = await self._person(request)
        capture = await _read_capture(request, runtime)
        if capture.empty():
            raise ApiError(400, "nothing to keep: send `text`, `url` or a file")
        return await self._file(request, runtime, person, capture)

    async def _file(
        self, request: web.Request, runtime: Runtime, person: Person, capture: Capture
    ) -> web.Response:
        given = request.headers.get("Idempotency-Key", "").strip()
        event_id = keyed_event_id(person.id, given)
        engine = runtime.engine
        sender = Sender(PLATFORM, str(person.id), person.name)
        wanted = capture.request()
        event = InboundMessage(
            event_id,
            Conversation(PLATFORM, str(person.id)),
            sender,
            wanted.words,
            engine.clock(),
            attachments=tuple(capture.files),
            source={"client": request.headers.get("User-Agent", "")[:80]},
            capture=wanted,
        )
        replies = await engine.handle(event)
        if replies and replies[0].not_kept:
            raise ApiError(429, replies[0].text)
        found = await self._filed(runtime, person, f"{PLATFORM}:{event_id}", wait=not replies)
        if found is None:
            if not replies:
                raise ApiError(409, "a capture with this Idempotency-Key is still being filed")
            raise ApiError(422, " ".join(r.text for r in replies) or "nothing was filed")
        path, title = found
        # A notice ("the audio is kept untranscribed…") is said too, as a chat shows it.
        said = " ".join(part for r in replies for part in (r.notice, r.text) if part)
        headers = {} if replies else {"Idempotent-Replayed": "true"}
        return web.json_response(
            {"path": path, "title": title, "reply": said or "kept already"},
            status=201,
            headers=headers,
        )

    async def _filed(
        self, runtime: Runtime, person: Person, event_key: str, *, wait: bool
    ) -> tuple[str, str] | None:
        """(path, title) of the note the event filed; a replayed key waits for it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (FILED_WITHIN if wait else 0)
        looked = loop.time()
        while True:
            # This process filed it (cheap to ask often), or another one did (the index,
            # asked once a second: the first request may be on another process).
            filed = runtime.engine.filed_by(event_key)
            if filed is not None:
                return filed
            if loop.time() - looked >= 1.0 or loop.time() >= deadline:
                looked = loop.time()
                found = await _in_index(runtime, person, event_key)
                if found is not None or loop.time() >= deadline:
                    return found
            await asyncio.sleep(0.02)

    async def _captured(self, request: web.Request) -> web.Response:
        """`GET /api/v1/capture?path=PATH` (or `?key=IDEMPOTENCY-KEY`): the note, and how
        reading what it shares went (nobody is told over the API: bot.enrich)."""
        runtime, person = await self._person(request)
        path = request.query.get("path", "").strip()
        key = request.query.get("key", "").strip()
        if not path and key:
            found = await _in_index(runtime, person, f"{PLATFORM}:{keyed_event_id(person.id, key)}")
            path = found[0] if found is not None else ""
            if not path:
                raise ApiError(404, "no capture was filed with this Idempotency-Key")
        if not path:
            raise ApiError(400, "name the note as `path` (or its Idempotency-Key as `key`)")
        vault = await runtime.vaults.of_person(person.id, person.name, runtime.engine.clock())
        store = await runtime.vaults.store(vault)
        try:
            entry = await store.read(path)
        except (EntryNotFound, UnsafePath):
            raise ApiError(404, f"no note at {path!r}") from None
        last = await runtime.records.enrichments.last_read(
            store.vault_id, str(entry.fields.get("id", "")), entry.path
        )
        reading = None if last is None else {"status": last[0], "detail": last[1]}
        return web.json_response({"path": entry.path, "title": entry.title, "reading": reading})

    async def _search(self, request: web.Request) -> web.Response:
        runtime, person = await self._person(request)
        query = storable(request.query.get("q", "")).strip()
        if not query:
            raise ApiError(400, "give the words to look for as `q`")
        try:
            limit = max(1, min(int(request.query.get("limit", "10")), 50))
        except ValueError:
            raise ApiError(400, "`limit` is a number from 1 to 50") from None
        vault = await runtime.vaults.of_person(person.id, person.name, runtime.engine.clock())
        results = await (await runtime.vaults.store(vault)).search(query, limit=limit)
        hits = [
            {"path": h.path, "title": h.title, "category": h.category, "snippet": h.snippet}
            for h in results.hits
        ]
        return web.json_response({"query": query, "hits": hits})

    async def _sync(self, request: web.Request) -> web.Response:
        runtime, person = await self._person(request)
        vault = await runtime.vaults.of_person(person.id, person.name, runtime.engine.clock())
        remote = None if self._backups is None else self._backups.remote(vault)
        if self._backups is None or remote is None:
            raise ApiError(409, "this vault has no git remote: set BRAINBOT_GIT_REMOTE")
        store = await runtime.vaults.store(vault)
        # A webhook that gives up waiting does not cut the round short.
        done = await asyncio.shield(self._backups.round(vault, store, remote))
        if done is None:
            raise ApiError(500, FAILED)
        conflicts = [{"path": c.path, "copy": c.copy} for c in done.conflicts]
        answer = {
            "outcome": done.outcome,
            "head": done.after,
            "conflicts": conflicts,
            "problem": done.problem,
        }
        return web.json_response(answer, status=502 if done.outcome == "failed" else 200)

    async def _person(self, request: web.Request) -> tuple[Runtime, Person]:
        runtime, tokens = self._runtime, self._tokens
        if runtime is None or tokens is None:
            raise ApiError(503, "brainbot is starting; try again in a moment")
        info = await tokens.bearer(request.headers.get("Authorization", ""), runtime.engine.clock())
        if info is None:
            raise ApiError(401, UNAUTHORISED)
        person = await runtime.records.people.get(info.user_id)
        if person is None:
            raise ApiError(403, "the person this token belongs to no longer exists")
        if person.id not in self._known:
            # The token vouches for the person: its `api` identity leads to them.
            await runtime.records.people.add_identity(
                person.id, PLATFORM, str(person.id), person.name, runtime.engine.clock()
            )
            runtime.engine.access.vouch(Sender(PLATFORM, str(person.id), person.name))
            self._known.add(person.id)
        return runtime, person


async def _in_index(runtime: Runtime, person: Person, event_key: str) -> tuple[str, str] | None:
    vault = await runtime.vaults.of_person(person.id, person.name, runtime.engine.clock())
    store = await runtime.vaults.store(vault)
    for path, title, value in await store.index.field_values("source_event", event_key):
        if value == event_key:
            return path, title
    return None


async def _read_capture(request: web.Request, runtime: Runtime) -> Capture:
    """The request's body as a Capture (JSON, plain text, or a form with files)."""
    settings = runtime.settings
    kind = request.content_type
    size = request.content_length
    if kind == "multipart/form-data":
        limit = settings.max_attachment_bytes + 1_000_000
        if size is not None and size > limit:
            raise ApiError(413, f"at most {limit:,} bytes, files included")
        return await _read_form(request, settings.max_attachment_bytes)
    limit = settings.max_message_chars * 4
    if size is not None and size > limit:
        raise ApiError(413, f"the text is longer than {settings.max_message_chars:,} characters")
    raw = await request.read()
    if len(raw) > limit:
        raise ApiError(413, f"the text is longer than {settings.max_message_chars:,} characters")
    text = raw.decode("utf-8", errors="replace")
    if kind in ("text/plain", "text/markdown"):
        return Capture(text=text)
    if kind != "application/json":
        raise ApiError(415, "send application/json, text/plain or multipart/form-data")
    try:
        body = json.loads(text)
    except ValueError as exc:
        raise ApiError(400, f"the JSON could not be read: {exc}") from None
    if not isinstance(body, dict):
        raise ApiError(400, 'send a JSON object: {"text": "...", "url": "..."}')
    return _capture_of(body)


def _capture_of(values: dict[str, Any]) -> Capture:
    tags = values.get("tags") or []
    if isinstance(tags, str):
        tags = re.split(r"[,\s]+", tags)
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ApiError(400, "`tags` is a list of words")
    fields = {name: values.get(name) or "" for name in ("text", "url", "category")}
    if not all(isinstance(v, str) for v in fields.values()):
        raise ApiError(400, "`text`, `url` and `category` are strings")
    return Capture(fields["text"], fields["url"].strip(), fields["category"].strip(), tags)


async def _read_form(request: web.Request, max_file: int) -> Capture:
    """A multipart form, from the body the server has read already: its fields and its
    files (at most MAX_FILES, each at most `max_file` bytes)."""
    content_type = request.headers.get("Content-Type", "")
    body = await request.read()
    _check_parts(content_type, body)
    head = f"Content-Type: {content_type}\r\n\r\n".encode()
    form = BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    if not form.is_multipart():
        raise ApiError(400, "the form could not be read")
    values: dict[str, Any] = {}
    files: list[Attachment] = []
    for part in form.iter_parts():
        name = part.get_param("name", header="content-disposition")
        data = part.get_payload(decode=True)
        if not isinstance(data, bytes):
            continue
        filename = part.get_filename()
        if filename:
            if len(data) > max_file:
                raise ApiError(413, f"{filename} is larger than {max_file:,} bytes")
            mime = part.get_content_type()
            files.append(Attachment(attachment_kind(mime), data, filename, mime))
        elif isinstance(name, str):
            values[name] = data[:100_000].decode(part.get_content_charset() or "utf-8", "replace")
    if len(files) > MAX_FILES:
        raise ApiError(413, f"at most {MAX_FILES} files in one capture; send the others apart")
    capture = _capture_of(values)
    capture.files = files
    return capture


def _check_parts(content_type: str, body: bytes) -> None:
    """Refuse a form of more than MAX_PARTS parts before it is parsed."""
    header = Message()
    header["Content-Type"] = content_type
    boundary = header.get_param("boundary")
    if not isinstance(boundary, str) or not boundary:
        raise ApiError(400, "the form names no boundary")
    # Each part begins with the delimiter, and one more ends the form.
    if body.count(b"--" + boundary.encode("utf-8", "replace")) - 1 > MAX_PARTS:
        raise ApiError(
            413,
            f"at most {MAX_PARTS} parts in one form (the fields text, url, category, tags "
            f"and at most {MAX_FILES} files)",
        )


def _answering(handler: Handler, cors: Cors) -> Handler:
    """`handler`, its refusals and its failures answered as JSON `{"error": ...}`,
    readable by the page of an origin `cors` lists."""

    async def answer(request: web.Request) -> web.Response:
        try:
            response = await handler(request)
        except ApiError as exc:
            response = _error(exc.status, str(exc))
        except web.HTTPException:
            raise
        except Exception:  # still an answer a Shortcut can show, never a bare 500
            log.exception("%s %s failed", request.method, request.path)
            response = _error(500, FAILED)
        cors.mark(request, response)
        return response

    return answer


def _error(status: int, message: str) -> web.Response:
    headers = {"WWW-Authenticate": 'Bearer realm="brainbot"'} if status == 401 else {}
    return web.json_response({"error": message}, status=status, headers=headers)
