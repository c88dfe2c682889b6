"""Probes of the remote services brainbot depends on, for `brainbot doctor`: does
each configured token work (Slack auth.test and apps.connections.open, Telegram
getMe and getWebhookInfo), and does the model endpoint answer (its models list,
or a one-token completion, and the embeddings endpoint). Plain HTTP through
aiohttp and the openai client: no platform SDK is needed to ask."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import aiohttp
import openai

from bot.config import Settings

TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class Finding:
    """One line of the report: `level` is ok, note, warning or problem."""

    level: str
    topic: str
    detail: str
    fix: str = ""


async def _call(method: str, url: str, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    timeout = aiohttp.ClientTimeout(total=TIMEOUT)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.request(method, url, **kwargs) as response,
    ):
        try:
            body = await response.json(content_type=None)
        except ValueError:
            body = {}
        return response.status, body if isinstance(body, dict) else {}


async def slack(s: Settings) -> list[Finding]:
    if not s.slack_bot_token:
        return []
    api = s.slack_api_url.rstrip("/") + "/"
    found: list[Finding] = []
    try:
        _, auth = await _call("POST", api + "auth.test", headers=_bearer(s.slack_bot_token))
        if auth.get("ok"):
            found.append(
                Finding("ok", "slack", f"signed in as {auth.get('user')} in {auth.get('team')}")
            )
        else:
            found.append(
                Finding(
                    "problem",
                    "slack",
                    f"SLACK_BOT_TOKEN was refused ({auth.get('error')})",
                    "copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions",
                )
            )
        if s.slack_app_token:
            _, socket = await _call(
                "POST", api + "apps.connections.open", headers=_bearer(s.slack_app_token)
            )
            if socket.get("ok"):
                found.append(Finding("ok", "slack", "Socket Mode is allowed for SLACK_APP_TOKEN"))
            else:
                found.append(
                    Finding(
                        "problem",
                        "slack",
                        f"SLACK_APP_TOKEN was refused ({socket.get('error')})",
                        "turn on Socket Mode; add an app token (xapp-…) with connections:write",
                    )
                )
    except (aiohttp.ClientError, TimeoutError) as exc:
        found.append(
            Finding(
                "problem",
                "slack",
                f"cannot reach {s.slack_api_url}: {exc!r}",
                "check the network or SLACK_API_URL",
            )
        )
    return found


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def telegram(s: Settings) -> list[Finding]:
    if not s.telegram_bot_token:
        return []
    base = f"{s.telegram_api_url.rstrip('/')}/bot{s.telegram_bot_token}/"
    try:
        status, me = await _call("GET", base + "getMe")
        if not me.get("ok"):
            return [
                Finding(
                    "problem",
                    "telegram",
                    f"TELEGRAM_BOT_TOKEN was refused ({status} {me.get('description', '')})",
                    "ask @BotFather for the token (/token) and set TELEGRAM_BOT_TOKEN",
                )
            ]
        found = [Finding("ok", "telegram", f"signed in as @{me['result'].get('username')}")]
        if s.telegram_webhook_url:
            _, info = await _call("GET", base + "getWebhookInfo")
            hook = info.get("result") or {}
            if hook.get("last_error_message"):
                found.append(
                    Finding(
                        "warning",
                        "telegram",
                        f"Telegram's last webhook delivery failed: {hook['last_error_message']}",
                        "TELEGRAM_WEBHOOK_URL must reach /telegram/webhook here, over HTTPS",
                    )
                )
    except (aiohttp.ClientError, TimeoutError) as exc:
        return [
            Finding(
                "problem",
                "telegram",
                f"cannot reach {s.telegram_api_url}: {exc!r}",
                "check the network or TELEGRAM_API_URL",
            )
        ]
    return found


async def model(s: Settings) -> list[Finding]:
    if not s.llm_enabled:
        return [
            Finding(
                "note", "model", "no OPENAI_API_KEY or OPENAI_BASE_URL: the command router answers"
            )
        ]
    client = openai.AsyncOpenAI(
        api_key=s.openai_api_key or "not-needed",
        base_url=s.openai_base_url,
        timeout=TIMEOUT,
        max_retries=0,
    )
    where = s.openai_base_url or "OpenAI"
    found: list[Finding] = []
    try:
        try:
            listed = [m.id async for m in client.models.list()]
            note = "" if s.llm_model in listed else f" (it does not list {s.llm_model})"
            found.append(
                Finding(
                    "ok" if not note else "warning",
                    "model",
                    f"{where} answers{note}",
                    "" if not note else "check BRAINBOT_LLM_MODEL",
                )
            )
        except openai.NotFoundError:  # some OpenAI-compatible servers have no /models
            await client.chat.completions.create(
                model=s.llm_model, messages=[{"role": "user", "content": "ping"}], max_tokens=1
            )
            found.append(Finding("ok", "model", f"{where} answers with {s.llm_model}"))
        if s.embeddings == "openai":
            await client.embeddings.create(model=s.embedding_model, input=["ping"])
            found.append(Finding("ok", "embeddings", f"{s.embedding_model} answers"))
    except openai.AuthenticationError:
        found.append(
            Finding(
                "problem", "model", f"{where} refused OPENAI_API_KEY", "set a valid OPENAI_API_KEY"
            )
        )
    except openai.APIConnectionError as exc:
        found.append(
            Finding(
                "problem",
                "model",
                f"cannot reach {where}: {exc}",
                "check OPENAI_BASE_URL (it ends in /v1) and that the server runs",
            )
        )
    except openai.APIStatusError as exc:
        found.append(
            Finding(
                "problem",
                "model",
                f"{where} answered {exc.status_code}: {exc.message}",
                "check BRAINBOT_LLM_MODEL, BRAINBOT_EMBEDDING_MODEL and the server's logs",
            )
        )
    finally:
        await client.close()
    return found
