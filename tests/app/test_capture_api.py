"""The capture API as a Shortcut or `curl` meets it: a real aiohttp server in front of a
real runtime (vault, Postgres), requests over HTTP, the note in the vault."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import frontmatter
import pytest
from sqlalchemy import text

from app.api import CaptureApi
from app.http import HttpServer
from app.runtime import Runtime
from storage.db.mcp_tokens import McpTokens
from tests.bot.enrich.pages_server import page_server
from tests.bot.enrich.test_shared_files import photo_of
from tests.bot.helpers import git_log, notes
from tests.fakes.brain import running_brain
from tests.fakes.text_pictures import needs_ocr
from tests.scheduler.outbox import add_ada


@dataclass
class Api:
    brain: Runtime
    url: str
    token: str
    session: aiohttp.ClientSession
    vault: Path

    async def post(self, body: Any = None, **options: Any) -> tuple[int, dict[str, Any], Any]:
        headers = {"Authorization": f"Bearer {self.token}", **options.pop("headers", {})}
        if body is not None:
            options["json"] = body
        async with self.session.post(
            f"{self.url}/api/v1/capture", headers=headers, **options
        ) as response:
            return response.status, await response.json(), response.headers


async def serve(brain: Runtime) -> AsyncIterator[Api]:
    """The API on the server `brainbot run` uses (its body rules included)."""
    api = CaptureApi(brain.settings.api_cors_origins)
    settings = brain.settings
    http = HttpServer("127.0.0.1", 0, max_body=settings.max_attachment_bytes + 1_000_000)
    api.mount(http.app)
    await http.start()
    api.start(brain)
    ada = await add_ada(brain, platform="telegram", user_id="42")
    _, token = await McpTokens(brain.database.engine).create(ada.id, "phone", brain.engine.clock())
    vault = Path(brain.vaults.root(await brain.vaults.of_person(ada.id, ada.name)))
    try:
        async with aiohttp.ClientSession() as session:
            yield Api(brain, f"http://127.0.0.1:{http.port}", token, session, vault)
    finally:
        api.stop()
        await http.stop()


@pytest.fixture
async def api(tmp_path: Path, database_url: str) -> AsyncIterator[Api]:
    settings = {"BRAINBOT_FETCH_ALLOW_PRIVATE": "true", "BRAINBOT_RATE_LIMIT": "0"}
    async with running_brain(tmp_path, database_url, **settings) as brain:
        async for served in serve(brain):
            yield served


async def test_a_shared_page_is_kept_and_read_like_a_chat_message(api: Api) -> None:
    async with page_server() as site:
        status, body, _ = await api.post(
            {"text": "for the balcony", "url": f"{site}/compost", "tags": ["garden"]}
        )
        assert status == 201, body
        assert body["path"] in notes(api.vault) and body["title"] == "For the balcony"
        await api.brain.engine.enricher.wait_idle()
    note = frontmatter.load(api.vault / body["path"])
    assert note["tags"] == ["garden"] and note["url"] == f"{site}/compost"
    assert note["source_platform"] == "api"
    assert "## From the page: Composting in small gardens" in note.content


@needs_ocr
async def test_plain_text_and_a_file_from_a_form(api: Api) -> None:
    headers = {"Content-Type": "text/plain"}
    status, body, _ = await api.post(data="Call the plumber about the boiler", headers=headers)
    assert status == 201 and "plumber" in (api.vault / body["path"]).read_text()
    form = aiohttp.FormData()
    form.add_field("text", "whiteboard")
    form.add_field("category", "projects")
    form.add_field(
        "file",
        photo_of(["ROADMAP", "ship search"]),
        filename="board.jpg",
        content_type="image/jpeg",
    )
    status, body, _ = await api.post(data=form)
    assert status == 201 and body["path"].startswith("projects/")
    await api.brain.engine.enricher.wait_idle()
    text = (api.vault / body["path"]).read_text()
    assert "![[attachments/board.jpg]]" in text and "## Text in the image" in text


async def test_a_repeated_idempotency_key_files_once_even_at_once(api: Api) -> None:
    async def send(n: int) -> tuple[int, dict[str, Any], Any]:
        key = f"share-{n % 5}"
        return await api.post({"text": f"thought {n % 5}"}, headers={"Idempotency-Key": key})

    answers = await asyncio.gather(*(send(n) for n in range(30)))
    assert {status for status, _, _ in answers} == {201}
    assert len(notes(api.vault)) == 5
    by_key: dict[str, set[str]] = {}
    for n, (_, body, _) in enumerate(answers):
        by_key.setdefault(f"share-{n % 5}", set()).add(body["path"])
    assert all(len(paths) == 1 for paths in by_key.values())
    assert sum(h.get("Idempotent-Replayed") == "true" for _, _, h in answers) == 25


async def test_refusals_are_json_a_shortcut_can_show(api: Api, tmp_path: Path) -> None:
    url = f"{api.url}/api/v1/capture"
    async with api.session.post(url, json={"text": "x"}) as response:
        assert response.status == 401 and "Bearer" in (await response.json())["error"]
    async with api.session.post(
        url, json={"text": "x"}, headers={"Authorization": "Bearer nope"}
    ) as response:
        assert response.status == 401
    status, body, _ = await api.post(data="<x/>", headers={"Content-Type": "application/xml"})
    assert status == 415 and "application/json" in body["error"]
    too_long = "word " * api.brain.settings.max_message_chars
    status, body, _ = await api.post(data=too_long, headers={"Content-Type": "text/plain"})
    assert status == 413
    status, body, _ = await api.post({"text": ""})
    assert status == 400 and "nothing to keep" in body["error"]
    status, body, _ = await api.post({"tags": 3, "text": "x"})
    assert status == 400
    form = aiohttp.FormData()
    form.add_field(
        "file",
        b"x" * (api.brain.settings.max_attachment_bytes + 2_000_000),
        filename="huge.pdf",
        content_type="application/pdf",
    )
    status, body, _ = await api.post(data=form)
    limit = api.brain.settings.max_attachment_bytes + 1_000_000
    assert status == 413 and f"larger than {limit:,} bytes" in body["error"], body
    assert notes(api.vault) == []


async def test_a_nul_or_a_lone_surrogate_is_kept_replaced_never_a_500(api: Api) -> None:
    """JSON may carry what no database text holds (`\\u0000`, a lone `\\ud800`): the
    note is filed with U+FFFD in its place."""
    raw = '{"text": "tea\\u0000time with \\ud800 Sam"}'
    headers = {"Content-Type": "application/json"}
    status, body, _ = await api.post(data=raw, headers=headers)
    assert status == 201, body
    assert "tea\ufffdtime with \ufffd Sam" in (api.vault / body["path"]).read_text()
    form = aiohttp.FormData(default_to_multipart=True)
    form.add_field("text", "form\x00field")
    status, body, _ = await api.post(data=form)
    assert status == 201, body
    assert "form\ufffdfield" in (api.vault / body["path"]).read_text()
    headers = {"Authorization": f"Bearer {api.token}"}
    async with api.session.get(
        f"{api.url}/api/v1/search", params={"q": "tea\x00time"}, headers=headers
    ) as response:
        assert response.status == 200, await response.text()
        assert (await response.json())["query"] == "tea\ufffdtime"


def _changed_by_last_commit(vault: Path) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(vault), "show", "--name-only", "--format=", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted(out.stdout.split())


async def _recorded_events(api: Api) -> int:
    async with api.brain.database.engine.connect() as conn:
        found = await conn.scalar(text("SELECT count(*) FROM inbound_events"))
    return int(found or 0)


async def test_a_capture_and_its_files_are_one_commit(api: Api) -> None:
    before = git_log(api.vault)
    form = aiohttp.FormData()
    form.add_field("text", "receipts from the trip")
    for n in range(3):
        form.add_field("file", f"receipt {n}".encode(), filename="receipt.txt")
    status, body, _ = await api.post(data=form)
    assert status == 201, body
    kept = ["attachments/receipt-2.txt", "attachments/receipt-3.txt", "attachments/receipt.txt"]
    assert _changed_by_last_commit(api.vault) == sorted([body["path"], *kept])
    assert len(git_log(api.vault)) == len(before) + 1
    text_of_note = (api.vault / body["path"]).read_text()
    assert all(f"![[{path}]]" in text_of_note for path in kept)


async def test_more_files_or_parts_than_a_capture_takes_are_refused_unwritten(
    api: Api,
) -> None:
    """At most 10 files (what is read of one note) and a few fields: a form of 11 files,
    or of thousands of empty parts, is refused before anything is recorded or written."""
    before = git_log(api.vault)
    form = aiohttp.FormData()
    form.add_field("text", "too many")
    for n in range(11):
        form.add_field("file", b"x", filename=f"f{n}.txt")
    status, body, _ = await api.post(data=form)
    assert status == 413 and "at most 10 files" in body["error"], body
    boundary = "b0undary"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="text"\r\n\r\nhello\r\n']
    parts += [f'--{boundary}\r\nContent-Disposition: form-data; name="x"\r\n\r\n\r\n'] * 5000
    raw = ("".join(parts) + f"--{boundary}--\r\n").encode()
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    status, body, _ = await api.post(data=raw, headers=headers)
    assert status == 413 and "parts" in body["error"], body
    assert git_log(api.vault) == before and not (api.vault / "attachments").exists()
    assert notes(api.vault) == [] and await _recorded_events(api) == 0


async def test_faster_than_the_rate_limit_is_429(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url, BRAINBOT_RATE_LIMIT="2") as brain:
        async for api in serve(brain):
            statuses = [(await api.post({"text": f"idea {n}"}))[0] for n in range(3)]
            assert statuses == [201, 201, 429]
            assert len(notes(api.vault)) == 2


async def test_search_and_the_openapi_description(api: Api) -> None:
    await api.post({"text": "The heron logo won the vote"})
    headers = {"Authorization": f"Bearer {api.token}"}
    async with api.session.get(
        f"{api.url}/api/v1/search", params={"q": "heron"}, headers=headers
    ) as response:
        found = await response.json()
    assert response.status == 200 and [h["title"] for h in found["hits"]] == [
        "The heron logo won the vote"
    ]
    async with api.session.get(f"{api.url}/api/v1/openapi.json") as response:
        spec = await response.json()
    assert set(spec["paths"]) == {"/api/v1/capture", "/api/v1/search", "/api/v1/sync"}
    assert "429" in spec["paths"]["/api/v1/capture"]["post"]["responses"]


async def test_a_browser_page_may_call_only_from_a_listed_origin(
    tmp_path: Path, database_url: str
) -> None:
    """The bookmarklet: its browser asks first (a preflight); a listed origin is told
    exactly what the API takes, any other gets no Access-Control header, so its browser
    sends nothing. There is never a wildcard."""
    wiki = "https://wiki.example.org"
    settings = {"BRAINBOT_API_CORS_ORIGINS": wiki, "BRAINBOT_RATE_LIMIT": "0"}
    async with running_brain(tmp_path, database_url, **settings) as brain:
        async for api in serve(brain):
            url = f"{api.url}/api/v1/capture"
            asked = {
                "Origin": wiki,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,content-type",
            }
            async with api.session.options(url, headers=asked) as response:
                assert response.status == 204
                assert response.headers["Access-Control-Allow-Origin"] == wiki
                assert response.headers["Access-Control-Allow-Methods"] == "GET, POST"
                allowed = response.headers["Access-Control-Allow-Headers"].lower()
                assert {"authorization", "content-type"} <= set(allowed.split(", "))
                assert response.headers["Vary"] == "Origin"
                assert "Access-Control-Allow-Credentials" not in response.headers
            other = {**asked, "Origin": "https://evil.example"}
            async with api.session.options(url, headers=other) as response:
                assert response.status == 403
                assert not any(h.startswith("Access-Control") for h in response.headers)
            delete = {**asked, "Access-Control-Request-Method": "DELETE"}
            async with api.session.options(url, headers=delete) as response:
                assert response.status == 403
            status, body, headers = await api.post(
                {"text": "from the wiki"}, headers={"Origin": wiki}
            )
            assert status == 201 and headers["Access-Control-Allow-Origin"] == wiki, body
            _, _, headers = await api.post({"text": "x"}, headers={"Origin": "null"})
            assert "Access-Control-Allow-Origin" not in headers and headers["Vary"] == "Origin"
            search = {**asked, "Access-Control-Request-Method": "GET"}
            async with api.session.options(f"{api.url}/api/v1/search", headers=search) as response:
                assert response.status == 204
                assert response.headers["Access-Control-Allow-Methods"] == "GET"


async def test_a_capture_is_found_again_by_a_long_idempotency_key(api: Api) -> None:
    # A shortcut may send a long key (a URL, a hash with a prefix): the event keeps the
    # first 120 characters, and looking the capture up by the whole key must find it.
    key = "shortcut/" + "k" * 200
    status, body, _ = await api.post({"text": "the long key"}, headers={"Idempotency-Key": key})
    assert status == 201, body
    headers = {"Authorization": f"Bearer {api.token}"}
    async with api.session.get(
        f"{api.url}/api/v1/capture", params={"key": key}, headers=headers
    ) as response:
        shown = await response.json()
    assert response.status == 200 and shown["path"] == body["path"], shown
