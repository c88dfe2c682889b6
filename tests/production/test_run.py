"""`brainbot run` in a real process against the fake Slack, Telegram and OpenAI
servers: health, readiness and metrics answer, and a capture from each platform
lands in the vault."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import psycopg
import pytest
from sqlalchemy.engine import make_url

from tests.bot.helpers import notes_by_vault
from tests.fakes.slack_api import BOT_TOKEN
from tests.fakes.slack_payloads import SIGNING_SECRET, dm_event, event_body, post_signed
from tests.fakes.telegram_updates import Updates
from tests.production.conftest import Fakes
from tests.production.process import Brainbot, free_port

pytestmark = pytest.mark.slow  # starts brainbot processes


def metric(page: str, name: str) -> float:
    """The value of one sample line of a Prometheus text page (0 when absent)."""
    for line in page.splitlines():
        if line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def test_health_readiness_metrics_and_a_capture_from_each_platform(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, BRAINBOT_LOG_LEVEL="DEBUG")
    bot = await Brainbot(tmp_path, env).start()
    try:
        await bot.wait_ready()
        assert (await bot.get_json("/healthz"))[0] == 200
        status, ready = await bot.get_json("/readyz")
        assert (status, ready["ready"]) == (200, True)
        assert ready["checks"] == ["adapters", "database", "vault"]

        async with aiohttp.ClientSession() as session:
            status, _ = await post_signed(
                session,
                f"{bot.url}/slack/events",
                event_body(dm_event("Remember the tea shop on Elm Street")),
            )
        assert status == 200
        posted = await fakes.slack.wait_for("chat.postMessage", within=20)
        assert "ideas/remember-the-tea-shop-on-elm-street.md" in posted[0].args["text"]

        fakes.telegram.queue_update(Updates().message("Buy a kite for the beach"))
        sent = await fakes.telegram.wait_for("sendMessage", within=20)
        assert "ideas/buy-a-kite-for-the-beach.md" in sent[0]["text"]

        # Two people (a Slack and a Telegram account, not linked): a vault each.
        filed = notes_by_vault(tmp_path / "data")
        assert sorted(filed.values()) == [
            ["ideas/buy-a-kite-for-the-beach.md"],
            ["ideas/remember-the-tea-shop-on-elm-street.md"],
        ]

        status, page = await bot.get("/metrics")
        assert status == 200
        assert metric(page, 'brainbot_captures_total{category="ideas"}') == 2
        assert metric(page, 'brainbot_tool_calls_total{outcome="ok",tool="capture"}') == 2
        assert metric(page, "brainbot_llm_call_seconds_count") >= 2
        assert metric(page, "brainbot_llm_call_failures_total") == 0
        for platform in ("slack", "telegram"):
            received = f'brainbot_messages_received_total{{kind="message",platform="{platform}"}}'
            assert metric(page, received) == 1
        assert metric(page, "brainbot_ready") == 1
        assert metric(page, "process_resident_memory_bytes") > 0
    finally:
        code = await bot.stop()
    assert code == 0, bot.log()
    assert "Traceback" not in bot.log()
    # Each message's log lines carry its event id.
    assert '"event_id": "telegram:' in bot.log() and '"event_id": "slack:' in bot.log()
    # Even at DEBUG, where the SDKs log their requests, no secret is written.
    for secret in (BOT_TOKEN, SIGNING_SECRET, fakes.telegram.token, env["OPENAI_API_KEY"]):
        assert secret not in bot.log()


async def test_readiness_reports_a_database_that_went_away(
    tmp_path: Path, database_url: str, pg_server: str, fakes: Fakes
) -> None:
    name = make_url(database_url).database or ""
    bot = await Brainbot(tmp_path, fakes.env(tmp_path, database_url, slack=None)).start()
    try:
        await bot.wait_ready()
        await set_connections(pg_server, name, allowed=False)
        status, body = await bot.get_json("/readyz")
        assert status == 503
        assert list(body["problems"]) == ["database"]
        assert (await bot.get_json("/healthz"))[0] == 200  # alive all the same

        await set_connections(pg_server, name, allowed=True)
        await bot.wait_ready(within=10)
    finally:
        assert await bot.stop() == 0, bot.log()


async def set_connections(admin_url: str, database: str, *, allowed: bool) -> None:
    """Let connections to `database` in, or shut it and end the ones it has."""
    connection = await psycopg.AsyncConnection.connect(admin_url, autocommit=True)
    async with connection:
        await connection.execute(
            f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS {str(allowed).lower()}'
        )
        if not allowed:
            await connection.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (database,),
            )


async def test_a_refused_token_stops_the_start_with_the_reason(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, slack="socket", SLACK_BOT_TOKEN="xoxb-0-refused")
    bot = await Brainbot(tmp_path, env).start()
    assert await bot.wait() == 1
    errors = [line for line in bot.log().splitlines() if '"level": "error"' in line]
    assert len(errors) == 1 and "could not start: Slack auth.test failed: invalid_auth" in errors[0]
    assert "brainbot doctor" in errors[0]


async def test_socket_mode_and_the_telegram_webhook_on_the_same_server(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    port = free_port()
    env = fakes.env(
        tmp_path,
        database_url,
        slack="socket",
        BRAINBOT_HTTP_PORT=str(port),
        TELEGRAM_WEBHOOK_URL=f"https://bot.example.org/telegram/webhook?port={port}",
        TELEGRAM_WEBHOOK_SECRET="webhook-secret",
    )
    bot = await Brainbot(tmp_path, env).start()
    try:
        await bot.wait_ready()
        assert fakes.telegram.webhook["url"] == env["TELEGRAM_WEBHOOK_URL"]
        update = {"update_id": 77, **Updates().message("Water the ferns on Sunday")}
        async with aiohttp.ClientSession() as session:
            headers = {"X-Telegram-Bot-Api-Secret-Token": "webhook-secret"}
            url = f"{bot.url}/telegram/webhook"
            async with session.post(url, json=update, headers=headers) as response:
                assert response.status == 200
        await fakes.telegram.wait_for("sendMessage", within=20)

        await fakes.slack.push("events_api", dm_event("Renew the passport in March"))
        await fakes.slack.wait_for("chat.postMessage", within=20)
    finally:
        assert await bot.stop() == 0, bot.log()
    filed = notes_by_vault(tmp_path / "data")
    assert sorted(filed.values()) == [
        ["ideas/renew-the-passport-in-march.md"],
        ["ideas/water-the-ferns-on-sunday.md"],
    ]
