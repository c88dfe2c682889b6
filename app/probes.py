"""The model's probe, for `brainbot doctor`: does the model endpoint answer (its models
list, or a one-token completion, and the embeddings endpoint), through the openai
client, and which mode chat would run in, asked as `brainbot run` asks it
(bot.turn.mode). Each platform's probe is its contract's (adapters.platform)."""

from __future__ import annotations

from adapters.platform import PROBE_TIMEOUT, Finding
from app.engine_parts import model_mode
from app.runtime import llm_from_settings
from bot.config import Settings


async def model(s: Settings) -> list[Finding]:
    if not s.llm_enabled:
        return [
            Finding(
                "note", "model", "no OPENAI_API_KEY or OPENAI_BASE_URL: the command router answers"
            )
        ]
    import openai  # only when there is a model to ask (`brainbot doctor` starts faster)

    client = openai.AsyncOpenAI(
        api_key=s.openai_api_key or "not-needed",
        base_url=s.openai_base_url,
        timeout=PROBE_TIMEOUT,
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
    if not any(f.level == "problem" for f in found):
        found.append(await mode(s))
    return found


async def mode(s: Settings) -> Finding:
    """The mode chat runs in and why: forced, or what the endpoint answered the probe."""
    llm = llm_from_settings(s)
    if llm is None:
        return Finding("note", "model mode", "none: no model endpoint")
    try:
        choice = await model_mode(llm, s).settle()
    finally:
        await llm.close()
    if choice.mode is None:
        return Finding(
            "warning",
            "model mode",
            choice.line(),
            "start the model server; `brainbot run` asks again when it answers",
        )
    if choice.mode == "none" and s.llm_mode == "auto":
        return Finding("problem", "model mode", choice.line(), "check the model server's logs")
    return Finding("ok", "model mode", choice.line())
