"""Which way the model is asked, chosen by asking the endpoint itself.

A local endpoint may drop `tools` without a word (llama.cpp without a tool-capable chat
template does): the full tool loop then gets answers in words and files every thought
in the inbox. So at start, and again when the endpoint is back after an outage, it is
asked once, cheaply, a question whose only sensible answer is a tool call:

- a tool call: it honours `tools`, and the full tool loop runs (`tools`), unless its
  context, where the server says how long it is, cannot hold the tool list and an
  answer;
- words: the server drops `tools` or the model does not call them (Gemma 3 270M with
  a tool template answered in words), and small-model mode runs (`routed`:
  bot.turn.routed, whose schema-constrained questions need no tools);
- a 400 (a server refusing `tools` for this model, as Ollama does): `routed`;
- another refusal (a wrong key or model name): no model, the command router (`none`);
- no answer (down, 5xx, too slow): not known yet; messages are kept as when the model
  is down, and the next one asks again.

`BRAINBOT_LLM_MODE` forces a mode and skips the question.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Literal

from bot.llm import LLM, LLMUnavailable

log = logging.getLogger(__name__)

Mode = Literal["tools", "routed", "none"]
Setting = Literal["auto", "tools", "routed", "none"]

PROBE_TOOL = "save_note"
PROBE_MESSAGES = (
    {
        "role": "system",
        "content": f"Save what the user asks you to remember by calling `{PROBE_TOOL}`.",
    },
    {"role": "user", "content": "Remember: buy oat milk."},
)
PROBE_TOOLS = (
    {
        "type": "function",
        "function": {
            "name": PROBE_TOOL,
            "description": "Save a note.",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
        },
    },
)
PROBE_MAX_TOKENS = 48  # a call with a few words of arguments, no more
# Room a full turn needs besides the tool list: the system prompt, the person's words,
# the context line, a tool result.
TURN_ROOM = 1_500
# Statuses that mean "not answering now", not "answering no".
_NOT_NOW = frozenset({408, 409, 425, 429})


@dataclass(frozen=True, slots=True)
class ModeChoice:
    """The mode the turns run in and why; `mode` None: not known yet (the endpoint has
    not answered). `context`: the endpoint's context length in tokens, where it says;
    `history_room`: the tokens of history it leaves beside the tool list, an answer and
    a turn (None: as many as the turn wants), worked out once when it is probed."""

    mode: Mode | None
    reason: str
    context: int | None = None
    history_room: int | None = None

    def line(self) -> str:
        """What the log, /readyz and doctor say: "routed: the endpoint answered … "."""
        told = f"; its context: {self.context:,} tokens" if self.context else ""
        return f"{self.mode or 'not known yet'}: {self.reason}{told}"


async def probe(llm: LLM, *, tools_tokens: int, answer_tokens: int) -> ModeChoice:
    """Ask the endpoint once whether it honours `tools`, and how long its context is;
    the mode that suits it. `tools_tokens`: what the full tool list costs."""
    try:
        # As long as a turn's first token may take (BRAINBOT_LLM_FIRST_TOKEN_TIMEOUT): a
        # CPU model on a busy machine was seen to read this short prompt in 10 s.
        completion = await llm.once(
            PROBE_MESSAGES,
            PROBE_TOOLS,
            max_tokens=PROBE_MAX_TOKENS,
            seconds=llm.limits.first_token_timeout,
        )
    except LLMUnavailable as exc:
        status = exc.status
        if status is None or status >= 500 or status in _NOT_NOW:
            return ModeChoice(None, f"the endpoint did not answer ({exc})")
        if status == 400:
            return ModeChoice(
                "routed", f"the endpoint refused a request that offered a tool ({exc})"
            )
        return ModeChoice(
            "none",
            f"the endpoint refused the probe ({exc}); check OPENAI_API_KEY and "
            "BRAINBOT_LLM_MODEL, then restart",
        )
    context = await context_length(llm)
    if not any(c.name == PROBE_TOOL for c in completion.tool_calls):
        said = " ".join((completion.text or "").split())[:60]
        return ModeChoice(
            "routed",
            f"the endpoint answered a request that offered a tool in words ({said!r}): its "
            "server drops `tools` (llama.cpp without a tool-capable chat template does) or its "
            "model does not call them",
            context,
        )
    needed = tools_tokens + answer_tokens + TURN_ROOM
    if context is not None and context < needed:
        return ModeChoice(
            "routed",
            f"the endpoint honours `tools`, but its context cannot hold the tool list "
            f"(~{tools_tokens:,} tokens) and an answer (~{needed:,} in all)",
            context,
        )
    room = None if context is None else context - needed
    return ModeChoice("tools", "the endpoint answered with a tool call", context, room)


async def context_length(llm: LLM) -> int | None:
    """The context length the server reports, in tokens, or None: vLLM's and LM
    Studio's `/v1/models` entries, then llama.cpp's `/props` (the running `n_ctx`)."""
    models = await _get_json(llm, "models")
    if isinstance(models, dict) and isinstance(models.get("data"), list):
        entries = [m for m in models["data"] if isinstance(m, dict)]
        mine = [m for m in entries if m.get("id") == llm.model] or entries[:1]
        for entry in mine:
            for key in ("max_model_len", "loaded_context_length", "context_length"):
                tokens = _tokens(entry.get(key))
                if tokens is not None:
                    return tokens
    root = str(llm.client.base_url).rstrip("/").removesuffix("/v1")
    props = await _get_json(llm, f"{root}/props")
    if isinstance(props, dict):
        settings = props.get("default_generation_settings")
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else props.get("n_ctx")
        return _tokens(n_ctx)
    return None


def _tokens(value: object) -> int | None:
    """A count of tokens as a server reports it, or None."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


async def _get_json(llm: LLM, path: str) -> Any:
    """A GET through the model's client (its key, its address), or None."""
    try:
        async with asyncio.timeout(5.0):
            return await llm.client.get(path, cast_to=object)
    except Exception as exc:  # a server without the route: nothing to learn there
        log.debug("no %s from the model endpoint: %r", path, exc)
        return None


class ModelMode:
    """The mode turns run in: forced by the setting, or probed at start, on the first
    turn if start did not, and again after the endpoint could not be reached."""

    def __init__(
        self, llm: LLM, setting: Setting, *, tools_tokens: int, answer_tokens: int
    ) -> None:
        self.llm = llm
        self.tools_tokens = tools_tokens
        self.answer_tokens = answer_tokens
        self.forced = setting != "auto"
        if setting != "auto":
            self.choice = ModeChoice(setting, f"BRAINBOT_LLM_MODE={setting}")
        else:
            self.choice = ModeChoice(None, "the endpoint has not been asked yet")
        self._outages = -1  # the LLM's outage count at the last answer (-1: none yet)
        self._lock = asyncio.Lock()

    async def settle(self) -> ModeChoice:
        """The mode for the next turn, asking the endpoint first when it has not
        answered yet or has been unreachable since (one question at a time)."""
        if self.forced or self._outages == self.llm.outages:
            return self.choice
        async with self._lock:
            if self._outages == self.llm.outages:
                return self.choice
            outages = self.llm.outages
            found = await probe(
                self.llm, tools_tokens=self.tools_tokens, answer_tokens=self.answer_tokens
            )
            if found.mode is None:
                if self.choice.mode is None:
                    self.choice = found
                    log.warning("model mode %s", found.line())
                return self.choice  # the last known mode holds while the endpoint is away
            self._outages = outages
            if found != self.choice:
                log.info("model mode %s", found.line())
            self.choice = found
            return found
