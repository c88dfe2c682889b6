"""The chat model and the transcription model, through any OpenAI-compatible API.

Answers are streamed: a slow local model is judged by how long its first token takes
(the prompt) and by a separate limit on the whole answer, not by one timeout that a
CPU model can never meet. Retries happen only where they can help: a refused
connection, 429 and 502/503/504. A timeout is not retried (the same model on the
same prompt would be just as slow), and neither is a 4xx or a 500 that the server
gives for the request itself. A server that cannot be reached at all is not tried
again for `recheck_after` seconds, so an outage costs the retries once, not on every
message.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot import metrics

if TYPE_CHECKING:
    from openai import AsyncOpenAI

# The OpenAI SDK (about half a second of imports) is imported when an LLM is made,
# and only then: a process with no model configured (the console without one, the
# CLI's commands) never loads it. Methods import it again, which is only a lookup.

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 502, 503, 504})


class LLMUnavailable(Exception):
    """The model could not be reached or did not answer in time; `status` is the HTTP
    status the server answered with (None: no answer at all)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


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
    finish_reason: str | None = None


@dataclass(frozen=True, slots=True)
class LLMLimits:
    """How long to wait and how much to ask for (BRAINBOT_LLM_FIRST_TOKEN_TIMEOUT,
    _TIMEOUT, _RETRIES, _MAX_TOKENS, _STREAM: the settings are their one home, so these
    have no defaults here); docs/local-model.md says which
    values suit a model on a CPU."""

    first_token_timeout: float
    total_timeout: float
    retries: int
    max_tokens: int
    stream: bool
    # After the server could not be reached at all (nothing listening), messages in
    # the next seconds do not wait through the retries again: they are answered
    # without the model at once.
    recheck_after: float = 30.0


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(values: Iterable[object]) -> list[dict[str, Any]]:
    return [value for value in values if isinstance(value, dict)]


@dataclass
class _Partial:
    """A streamed answer as its chunks arrive, each read as the JSON it is (a chunk of
    OpenAI's `chat.completion.chunk`): the SDK's models of a chunk cost about 0.1 ms
    each to build, and an answer comes in dozens of chunks."""

    text: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    prompt_tokens: int = 0
    finish_reason: str | None = None

    def add(self, chunk: object) -> None:
        if not isinstance(chunk, dict):
            return
        # An endpoint's own shapes (not OpenAI's) are passed over, never fatal.
        tokens = _dict(chunk.get("usage")).get("prompt_tokens")
        if isinstance(tokens, int):
            self.prompt_tokens = tokens
        choices = chunk.get("choices")
        for choice in _dicts(choices[:1] if isinstance(choices, list) else ()):
            delta = _dict(choice.get("delta"))
            if isinstance(delta.get("content"), str):
                self.text.append(delta["content"])
            calls = delta.get("tool_calls")
            for tc in _dicts(calls if isinstance(calls, list) else ()):
                index = tc.get("index")
                slot = self.calls.setdefault(
                    index if isinstance(index, int) else 0, {"id": "", "name": "", "arguments": ""}
                )
                if isinstance(tc.get("id"), str) and tc["id"]:
                    slot["id"] = tc["id"]
                function = _dict(tc.get("function"))
                slot["name"] += _text(function.get("name"))
                slot["arguments"] += _text(function.get("arguments"))
            if isinstance(choice.get("finish_reason"), str):
                self.finish_reason = choice["finish_reason"]

    def completion(self) -> Completion:
        calls = tuple(
            ModelToolCall(c["id"] or f"call_{i}", c["name"], c["arguments"])
            for i, c in sorted(self.calls.items())
            if c["name"]
        )
        text = "".join(self.text) or None
        return Completion(text, calls, self.prompt_tokens, self.finish_reason)


class LLM:
    """One AsyncOpenAI client; `complete` streams, times and retries each request."""

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str | None,
        model: str,
        transcribe_model: str,
        limits: LLMLimits,
    ) -> None:
        self.model = model
        self.transcribe_model = transcribe_model
        self.limits = limits
        self._unreachable_until = 0.0  # time.monotonic(): not tried again before then
        # How often the server could not be reached or said it is unavailable (502, 503,
        # 504, 429 after the retries): a rise tells bot.turn.mode that the endpoint went
        # away, so what answers when it is back is probed again.
        self.outages = 0
        import openai

        # httpx's read timeout is the longest silence between two pieces of the
        # answer: before the first token that is the whole prompt's processing.
        self.client: AsyncOpenAI = openai.AsyncOpenAI(
            api_key=api_key or "not-needed",
            base_url=base_url,
            timeout=openai.Timeout(self.limits.first_token_timeout, connect=10.0),
            max_retries=0,
        )

    @metrics.timed_llm_call
    async def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        *,
        max_tokens: int | None = None,
        tool_choice: str = "auto",
        response_format: dict[str, Any] | None = None,
        model: str | None = None,
    ) -> Completion:
        body: dict[str, Any] = {
            "model": model or self.model,
            "messages": list(messages),
            "max_tokens": max_tokens or self.limits.max_tokens,
        }
        if tools:  # OpenAI refuses `parallel_tool_calls` without tools
            # Some servers (llama-cpp-python's) ignore `tools` unless `tool_choice` is sent.
            body.update(tools=list(tools), tool_choice=tool_choice, parallel_tool_calls=True)
        if response_format is not None:
            body["response_format"] = response_format
        if self.limits.stream:
            body.update(stream=True, stream_options={"include_usage": True})
        if time.monotonic() < self._unreachable_until:
            raise LLMUnavailable("the model could not be reached moments ago")
        import openai

        deadline = time.monotonic() + self.limits.total_timeout
        for attempt in range(self.limits.retries + 1):
            try:
                async with asyncio.timeout_at(_loop_time(deadline)):
                    return await self._request(body)
            except TimeoutError as exc:
                raise LLMUnavailable(
                    f"no complete answer within {self.limits.total_timeout:g} s"
                ) from exc
            except openai.APITimeoutError as exc:
                raise LLMUnavailable(
                    f"no answer within {self.limits.first_token_timeout:g} s"
                ) from exc
            except (openai.APIConnectionError, openai.APIStatusError) as exc:
                status = getattr(exc, "status_code", None)
                retryable = status is None or status in RETRY_STATUSES
                wait = min(2.0**attempt + random.random(), deadline - time.monotonic())
                if not retryable or attempt == self.limits.retries or wait <= 0:
                    if retryable:
                        self._unreachable(gate=status is None)
                    reason = f"the model answered {status}" if status else type(exc).__name__
                    raise LLMUnavailable(f"{reason}: {_message(exc)}", status) from exc
                log.info("model call failed (%s); retrying in %.1f s", status or exc, wait)
                await asyncio.sleep(wait)
            except openai.APIError as exc:  # an error event inside the stream
                raise LLMUnavailable(f"the model failed: {_message(exc)}") from exc
        raise AssertionError("unreachable")

    async def once(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        *,
        max_tokens: int,
        seconds: float,
    ) -> Completion:
        """One request as `complete` sends it (streamed when answers are), but with no
        retry and at most `seconds`: a question about the endpoint itself
        (bot.turn.mode), which a slow answer must not hold up."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": list(messages),
            "max_tokens": max_tokens,
        }
        if tools:
            body.update(tools=list(tools), tool_choice="auto")
        if self.limits.stream:
            body.update(stream=True, stream_options={"include_usage": True})
        if time.monotonic() < self._unreachable_until:
            raise LLMUnavailable("the model could not be reached moments ago")
        import openai

        try:
            async with asyncio.timeout(seconds):
                return await self._request(body)
        except (TimeoutError, openai.APITimeoutError) as exc:
            raise LLMUnavailable(f"no answer within {seconds:g} s") from exc
        except openai.APIConnectionError as exc:
            self._unreachable(gate=True)
            raise LLMUnavailable(f"{type(exc).__name__}: {_message(exc)}") from exc
        except openai.APIStatusError as exc:
            raise LLMUnavailable(
                f"the model answered {exc.status_code}: {_message(exc)}", exc.status_code
            ) from exc
        except openai.APIError as exc:
            raise LLMUnavailable(f"the model failed: {_message(exc)}") from exc

    def _unreachable(self, *, gate: bool) -> None:
        """The endpoint went away (nothing listens, or it says it is unavailable);
        `gate`: nothing listens, so it is not tried again for a while."""
        if gate:
            self._unreachable_until = time.monotonic() + self.limits.recheck_after
        self.outages += 1

    async def _request(self, body: dict[str, Any]) -> Completion:
        from openai import AsyncStream
        from openai.types.chat import ChatCompletion

        if not body.get("stream"):
            # The body is plain JSON already; `chat.completions.create` would walk it
            # recursively to transform it, which costs more than the local round trip.
            response = await self.client.post(
                "/chat/completions", cast_to=ChatCompletion, body=body
            )
            if not response.choices:
                raise LLMUnavailable("the model returned no choices")
            choice = response.choices[0]
            calls = tuple(
                ModelToolCall(tc.id, tc.function.name, tc.function.arguments or "")
                for tc in choice.message.tool_calls or ()
                if tc.type == "function"
            )
            usage = response.usage
            return Completion(
                choice.message.content,
                calls,
                usage.prompt_tokens if usage else 0,
                choice.finish_reason,
            )
        stream = await self.client.post(
            "/chat/completions",
            cast_to=ChatCompletion,
            body=body,
            stream=True,
            stream_cls=AsyncStream[object],  # each chunk as its JSON (see _Partial)
        )
        partial = _Partial()
        try:
            async for chunk in stream:
                partial.add(chunk)
        finally:
            await stream.close()
        return partial.completion()

    async def transcribe(self, data: bytes, file_name: str) -> str:
        import openai

        try:
            async with asyncio.timeout(self.limits.total_timeout):
                result = await self.client.audio.transcriptions.create(
                    model=self.transcribe_model, file=(file_name, data)
                )
        except (TimeoutError, openai.APIConnectionError, openai.APIStatusError) as exc:
            raise LLMUnavailable(f"transcription failed: {exc}") from exc
        return result.text

    async def close(self) -> None:
        await self.client.close()


def _loop_time(deadline: float) -> float:
    """`deadline` (time.monotonic) on the running loop's clock."""
    loop = asyncio.get_running_loop()
    return loop.time() + (deadline - time.monotonic())


def _message(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= 300 else text[:300] + "…"
