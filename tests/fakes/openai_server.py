"""A fake OpenAI-compatible API on 127.0.0.1: chat completions that follow a
script, embeddings (float or base64), and audio transcriptions.

The real `openai` client talks to it through `base_url`, so the engine is tested
over the wire. Every request is recorded for assertions.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import itertools
import json
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

# The one tool bot.turn.mode's probe offers (its tests fail if the two part).
PROBE_TOOL = "save_note"


@dataclass
class ToolCall:
    name: str
    arguments: dict[str, Any] | str  # a str is sent as is (to test malformed JSON)


@dataclass
class Step:
    """One scripted completion: text, tool calls, or an HTTP error status."""

    text: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    status: int = 200
    delay: float = 0.0  # before the answer starts (the prompt's processing)
    chunk_delay: float = 0.0  # between streamed pieces (generation speed)
    # Streamed as they are among the pieces: shapes an endpoint that is not OpenAI sends.
    odd_chunks: list[Any] = field(default_factory=list)


def say(text: str) -> Step:
    return Step(text=text)


def call(name: str, **arguments: Any) -> Step:
    return Step(tool_calls=[ToolCall(name, arguments)])


def calls(*tool_calls: ToolCall) -> Step:
    return Step(tool_calls=list(tool_calls))


def fail(status: int = 500) -> Step:
    return Step(status=status)


Responder = Callable[[dict[str, Any]], Step]


class FakeOpenAI:
    """Serve `/v1/chat/completions`, `/v1/embeddings`, `/v1/audio/transcriptions`.

    Chat answers come from `script` (a queue of Steps) or, when it is empty, from
    `responder(request)`; with neither, the request fails with 500 so a test that
    forgot a step fails loudly.

    brainbot's question about the endpoint (bot.turn.mode's probe, recorded as
    "probe") is answered the way the server is set: with the tool call when
    `honours_tools`, else in words, as llama.cpp without a tool template answers (and
    every other request is then answered as if it offered no tools).
    `context`, when set, is served as llama.cpp's `/props` says its `n_ctx`; `models`,
    when set, is the `/v1/models` list (vLLM's entries carry `max_model_len`).
    """

    def __init__(self) -> None:
        self.script: list[Step] = []
        self.responder: Responder | None = None
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.transcript = "transcribed speech"
        self.down = False
        self.honours_tools = True
        self.probe_status = 200  # another status: the probe is refused with it
        self.context: int | None = None
        # `/v1/models` entries, as the server lists them (None: no such route, 404)
        self.models: list[dict[str, Any]] | None = None
        self.embedding_dimensions = 32
        self.embedding_delay = 0.0  # seconds each embeddings request takes
        self._ids = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def chat_requests(self) -> list[dict[str, Any]]:
        return [body for path, body in self.requests if path == "chat"]

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/embeddings", self._embeddings)
        app.router.add_post("/v1/audio/transcriptions", self._transcribe)
        app.router.add_get("/props", self._props)
        app.router.add_get("/v1/models", self._models)
        # A request a killed client left waiting (a slow embedding) ends with the test.
        self._runner = web.AppRunner(app, shutdown_timeout=0.1, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def _next_step(self, body: dict[str, Any]) -> Step:
        if _is_probe(body) or body.get("probe"):
            if self.probe_status != 200:
                return Step(status=self.probe_status)
            if self.honours_tools:
                return call(PROBE_TOOL, text="buy oat milk")
            return say("Sure, I will remember to buy oat milk.")
        if self.script:
            return self.script.pop(0)
        if self.responder is not None:
            return self.responder(body)
        return Step(status=500)

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(("probe" if _is_probe(body) else "chat", body))
        if self.down:
            return _error(503, "service unavailable")
        step = self._next_step(body if self.honours_tools else _without_tools(body))
        if step.delay:
            await asyncio.sleep(step.delay)
        if step.status != 200:
            return _error(step.status, "scripted failure")
        tool_calls = [
            {
                "id": f"call_{next(self._ids)}",
                "type": "function",
                "function": {
                    "name": tc.name,
                    "arguments": tc.arguments
                    if isinstance(tc.arguments, str)
                    else json.dumps(tc.arguments),
                },
            }
            for tc in step.tool_calls
        ]
        prompt_chars = len(json.dumps(body.get("messages", [])))
        if body.get("stream"):
            return await self._stream(request, body, step, tool_calls, prompt_chars // 4)
        message: dict[str, Any] = {"role": "assistant", "content": step.text}
        if tool_calls:
            message["tool_calls"] = tool_calls
        return web.json_response(
            {
                "id": f"chatcmpl-{next(self._ids)}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "fake"),
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": "tool_calls" if step.tool_calls else "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_chars // 4,
                    "completion_tokens": 10,
                    "total_tokens": prompt_chars // 4 + 10,
                },
            }
        )

    async def _stream(
        self,
        request: web.Request,
        body: dict[str, Any],
        step: Step,
        tool_calls: list[dict[str, Any]],
        prompt_tokens: int,
    ) -> web.StreamResponse:
        """Server-sent events as OpenAI streams them: text and argument pieces, then
        the finish reason, then (when asked) the usage."""
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        base = {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": body.get("model", "fake"),
        }

        async def send(delta: dict[str, Any], finish: str | None = None) -> None:
            chunk = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
            if step.chunk_delay:
                await asyncio.sleep(step.chunk_delay)

        await send({"role": "assistant", "content": ""})
        for odd in step.odd_chunks:
            await response.write(f"data: {json.dumps(odd)}\n\n".encode())
        text = step.text or ""
        for start in range(0, len(text), 8):
            await send({"content": text[start : start + 8]})
        for index, tc in enumerate(tool_calls):
            head = {
                "index": index,
                "id": tc["id"],
                "type": "function",
                "function": {"name": tc["function"]["name"], "arguments": ""},
            }
            await send({"tool_calls": [head]})
            arguments = tc["function"]["arguments"]
            for start in range(0, len(arguments), 16):
                piece = {"index": index, "function": {"arguments": arguments[start : start + 16]}}
                await send({"tool_calls": [piece]})
        await send({}, "tool_calls" if tool_calls else "stop")
        if (body.get("stream_options") or {}).get("include_usage"):
            usage = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": 10,
                "total_tokens": prompt_tokens + 10,
            }
            chunk = {**base, "choices": [], "usage": usage}
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    async def _models(self, request: web.Request) -> web.Response:
        if self.models is None:
            return _error(404, "not found")
        return web.json_response({"object": "list", "data": self.models})

    async def _props(self, request: web.Request) -> web.Response:
        if self.context is None:
            return _error(404, "not found")
        return web.json_response({"default_generation_settings": {"n_ctx": self.context}})

    async def _embeddings(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append(("embeddings", body))
        if self.embedding_delay:
            await asyncio.sleep(self.embedding_delay)
        if self.down:
            return _error(503, "service unavailable")
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        dims = int(body.get("dimensions") or self.embedding_dimensions)
        data = []
        for i, text in enumerate(inputs):
            vector = _vector_for(str(text), dims)
            if body.get("encoding_format") == "base64":
                packed = struct.pack(f"<{dims}f", *vector)
                embedding: Any = base64.b64encode(packed).decode()
            else:
                embedding = vector
            data.append({"object": "embedding", "index": i, "embedding": embedding})
        return web.json_response(
            {
                "object": "list",
                "data": data,
                "model": body.get("model", "fake"),
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            }
        )

    async def _transcribe(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form.get("file")
        size = len(upload.file.read()) if isinstance(upload, web.FileField) else 0
        self.requests.append(("transcribe", {"model": form.get("model"), "bytes": size}))
        if self.down:
            return _error(503, "service unavailable")
        return web.json_response({"text": self.transcript})


def _without_tools(body: dict[str, Any]) -> dict[str, Any]:
    """The request as a server that drops `tools` sees it (marked when it was the probe)."""
    dropped = ("tools", "tool_choice", "parallel_tool_calls")
    return {**{k: v for k, v in body.items() if k not in dropped}, "probe": _is_probe(body)}


def _is_probe(body: dict[str, Any]) -> bool:
    names = [t.get("function", {}).get("name") for t in body.get("tools") or ()]
    return names == [PROBE_TOOL]


def _vector_for(text: str, dims: int) -> list[float]:
    """A deterministic unit vector from the words of `text` (similar texts, similar vectors)."""
    vector = [0.0] * dims
    for word in text.lower().split():
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        slot = int.from_bytes(digest[:4], "little") % dims
        vector[slot] += 1.0 if digest[4] % 2 else -1.0
    norm = sum(v * v for v in vector) ** 0.5 or 1.0
    return [v / norm for v in vector]


def _error(status: int, message: str) -> web.Response:
    return web.json_response(
        {"error": {"message": message, "type": "server_error", "code": None}}, status=status
    )
