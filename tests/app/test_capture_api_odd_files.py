"""A file sent through the capture API that holds what Postgres cannot store (NUL is
valid UTF-8) is kept as an attachment, never indexed as a note: the capture answers
201, and later captures and searches through the API go on."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from tests.app.test_capture_api import Api, serve
from tests.bot.helpers import notes
from tests.fakes.brain import running_brain


@pytest.fixture
async def api(tmp_path: Path, database_url: str) -> AsyncIterator[Api]:
    async with running_brain(tmp_path, database_url, BRAINBOT_RATE_LIMIT="0") as brain:
        async for served in serve(brain):
            yield served


async def test_a_markdown_file_holding_nul_is_kept_and_the_vault_goes_on(api: Api) -> None:
    form = aiohttp.FormData()
    form.add_field("text", "minutes of the board")
    form.add_field("file", b"hello\x00world", filename="evil.md", content_type="text/markdown")
    status, body, _ = await api.post(data=form)
    assert status == 201, body
    assert (api.vault / "attachments/evil.md").read_bytes() == b"hello\x00world"
    assert "![[attachments/evil.md]]" in (api.vault / body["path"]).read_text()

    status, later, _ = await api.post({"text": "water the ferns on Friday"})
    assert status == 201, later
    assert sorted(p for p in notes(api.vault) if not p.startswith("attachments/")) == sorted(
        [body["path"], later["path"]]
    )
    headers = {"Authorization": f"Bearer {api.token}"}
    async with api.session.get(
        f"{api.url}/api/v1/search", params={"q": "ferns"}, headers=headers
    ) as response:
        found = await response.json()
    assert response.status == 200, found
    assert [hit["path"] for hit in found["hits"]] == [later["path"]]
