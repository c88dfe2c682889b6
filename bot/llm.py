"""The chat model and the transcription model, through any OpenAI-compatible API."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import openai
from openai import AsyncOpenAI
from openai.types.chat import ChatCompletion

from bot import metrics

log = logging.getLogger(__name__)


class LLMUnavailable(Exception):
    """The model could not be reached after retries (network, 429, 5xx, timeout)."""


@dataclass(frozen=True, slots=True)
class ModelToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text as the model sent it


@dataclass(frozen=True, slots=True)
class Completion:
    text: str | None
    tool_calls: tuple[ModelToolCall, ...]
    prompt_tokens: int


_TRANSIENT = (
    openai.APIConnectionError,
    openai.APITimeoutError,
    openai.RateLimitError,
    openai.InternalServerError,
)


class LLM:
    """One AsyncOpenAI client; the SDK retries 429/5xx with backoff `retries` times."""

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str | None,
        model: str,
        transcribe_model: str = "whisper-1",
        timeout: float = 30.0,
        retries: int = 2,
    ) -> None:
        self.model = model
        self.transcribe_model = transcribe_model
        self.client = AsyncOpenAI(
            api_key=api_key or "not-needed",
            base_url=base_url,
            timeout=timeout,
            max_retries=retries,
        )

    @metrics.timed_llm_call
    async def complete(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> Completion:
        body: dict[str, Any] = {"model": self.model, "messages": list(messages)}
        if tools:  # OpenAI refuses `parallel_tool_calls` without tools
            body.update(tools=list(tools), parallel_tool_calls=True)
        try:
            # The body is plain JSON already; `chat.completions.create` would walk it
            # recursively to transform it, which costs more than the local round trip.
            response = await self.client.post(
                "/chat/completions", cast_to=ChatCompletion, body=body
            )
        except _TRANSIENT as exc:
            raise LLMUnavailable(f"{type(exc).__name__}: {exc}") from exc
        except openai.APIStatusError as exc:
            raise LLMUnavailable(f"the model answered {exc.status_code}") from exc
        if not response.choices:
            raise LLMUnavailable("the model returned no choices")
        message = response.choices[0].message
        calls = tuple(
            ModelToolCall(tc.id, tc.function.name, tc.function.arguments or "")
            for tc in message.tool_calls or ()
            if tc.type == "function"
        )
        usage = response.usage
        return Completion(message.content, calls, usage.prompt_tokens if usage else 0)

    async def transcribe(self, data: bytes, file_name: str) -> str:
        try:
            result = await self.client.audio.transcriptions.create(
                model=self.transcribe_model, file=(file_name, data)
            )
        except (*_TRANSIENT, openai.APIStatusError) as exc:
            raise LLMUnavailable(f"transcription failed: {exc}") from exc
        return result.text

    async def close(self) -> None:
        await self.client.close()
