"""The fake HTTP service a vault's tools call, with its token in the environment."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.bot.custom_tools.support import TOKEN
from tests.fakes.tool_server import ToolServer


@pytest.fixture
async def server(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[ToolServer]:
    monkeypatch.setenv("BRAINBOT_SECRET_WEATHER_TOKEN", TOKEN)
    service = ToolServer()
    await service.start()
    yield service
    await service.stop()
