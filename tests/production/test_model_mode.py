"""`brainbot run` asks its model endpoint how to use it beside the start, and says the
mode and why in its log and in /readyz; `brainbot doctor` says the same. Against the
fake server answering as llama.cpp without a tool-capable template does (in words, its
`n_ctx` on /props)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAI, say
from tests.production.process import Brainbot, command, console_env

pytestmark = pytest.mark.slow  # starts brainbot processes

ROUTED = (
    "routed: the endpoint answered a request that offered a tool in words ('Sure, I will "
    "remember to buy oat milk.'): its server drops `tools` (llama.cpp without a "
    "tool-capable chat template does) or its model does not call them; its context: 8,192 "
    "tokens"
)


async def test_run_and_doctor_say_the_mode_the_endpoint_asks_for(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.honours_tools = False
    openai_fake.context = 8192
    openai_fake.responder = lambda body: say("pong")  # doctor's one-token completion
    env = console_env(
        tmp_path,
        database_url,
        OPENAI_BASE_URL=openai_fake.base_url,
        OPENAI_API_KEY="test-key",
        BRAINBOT_EMBEDDINGS="none",
    )
    bot = await Brainbot(tmp_path, env).start()
    try:
        await bot.wait_ready()
        await bot.wait_for_log(f"model mode {ROUTED}")
        status, ready = await bot.get_json("/readyz")
        bot.signal(signal.SIGTERM)
        assert await bot.wait() == 0
    finally:
        await bot.stop()
    assert status == 200
    assert ready["notes"]["model"] == ROUTED
    code, out = await command(env, tmp_path, "doctor", with_log=False)
    assert f"model mode: {ROUTED}" in out, out
    assert code == 0, out
