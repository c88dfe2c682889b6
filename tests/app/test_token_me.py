"""`brainbot token me` on a fresh install: the token is the owner's, and the owner's
vault (the configured one) is claimed for them at once, so a stranger writing first on
an open install does not take it; a closed install is claimed in a chat first."""

from __future__ import annotations

import argparse
import io
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
import pytest

from app.api import CaptureApi
from app.commands.token import manage_tokens
from app.http import HttpServer
from bot.events import Conversation, InboundMessage, Sender
from tests.bot.helpers import notes, vault_of
from tests.fakes.brain import make_settings, running_brain

OPEN = {"BRAINBOT_ALLOWED_USERS": "telegram:*", "BRAINBOT_RATE_LIMIT": "0"}


async def token_me(tmp_path: Path, database_url: str, **settings: str) -> tuple[int, str]:
    args = argparse.Namespace(person="me", owner=False, label="phone", list=False, revoke=None)
    out = io.StringIO()
    code = await manage_tokens(
        args, make_settings(tmp_path, database_url, **settings), out, token_last=True
    )
    return code, out.getvalue()


async def test_the_token_claims_the_owners_vault_before_a_stranger_writes(
    tmp_path: Path, database_url: str
) -> None:
    code, said = await token_me(tmp_path, database_url, **OPEN)
    assert code == 0, said
    token = said.strip().splitlines()[-1]
    async with running_brain(tmp_path, database_url, **OPEN) as brain:
        stranger = InboundMessage(
            "1",
            Conversation("telegram", "99"),
            Sender("telegram", "99", "Mallory"),
            "idea: a stranger's plan",
            datetime.now(UTC),
        )
        await brain.engine.handle(stranger)
        owners = brain.settings.vault_dir
        theirs = await vault_of(brain, "telegram", "99")
        assert theirs != owners and notes(theirs) == ["ideas/a-stranger-s-plan.md"]
        api = CaptureApi()
        http = HttpServer("127.0.0.1", 0)
        api.mount(http.app)
        await http.start()
        api.start(brain)
        try:
            async with (
                aiohttp.ClientSession() as session,
                session.post(
                    f"http://127.0.0.1:{http.port}/api/v1/capture",
                    json={"text": "Ask the bakery about rye", "category": "admin"},
                    headers={"Authorization": f"Bearer {token}"},
                ) as response,
            ):
                body = await response.json()
                assert response.status == 201, body
        finally:
            api.stop()
            await http.stop()
        assert notes(owners) == [body["path"]]
        await brain.engine.enricher.wait_idle()


async def test_a_closed_install_is_claimed_in_a_chat_first(
    tmp_path: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    closed = {"BRAINBOT_ALLOWED_USERS": "", "TELEGRAM_BOT_TOKEN": "123:abc"}
    code, said = await token_me(tmp_path, database_url, **closed)
    err = capsys.readouterr().err
    assert code == 2 and said == ""
    assert "nobody has claimed this brainbot yet: send `/start " in err, err
