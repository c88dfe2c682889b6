"""Mending the calls weak tool callers send, where the mend cannot change the meaning.

Small local models write tool calls as JSON or `<tool_call>` tags in their text,
invent tool names ("save_note"), repeat a call, stop halfway through the JSON, or
answer with their own instructions. Their arguments are mended in bot.turn.arguments.
Each mend is named, so the operator can see which ones fire (`Repaired.fixes`).
What cannot be mended safely is left to the tool's validation, whose error goes
back to the model to fix.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.llm import Completion, ModelToolCall
from bot.tools import REGISTRY

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCED = re.compile(r"```(?:json|tool_call|tool_code)?\s*(.*?)```", re.DOTALL)


@dataclass(frozen=True, slots=True)
class NamedCall:
    """One call of a model's answer, named once: our tool for the name it gave and the
    mend used (`tool_name`), and its arguments as `loads_lenient` reads them (None: not
    JSON), read once for telling repeats apart and for mending them."""

    call: ModelToolCall
    name: str | None
    fix: str | None
    arguments: Any


@dataclass
class Repaired:
    """A model answer after mending: its calls (each named once, repeats left out:
    `named_calls`), its own text, and what was mended."""

    text: str | None
    calls: list[NamedCall]
    fixes: list[str] = field(default_factory=list)


def calls_in_text(completion: Completion) -> Repaired:
    """A model's answer with its calls named (`named_calls`): those of its `tool_calls`
    field, or those it wrote into its text instead."""
    text = completion.text or ""
    if completion.tool_calls or not text.strip():
        return Repaired(completion.text, named_calls(completion.tool_calls))
    found: list[dict[str, Any]] = []
    rest = text
    for pattern in (_TAGGED, _FENCED):
        pieces = [m.group(1) for m in pattern.finditer(rest)]
        objects = [obj for piece in pieces for obj in _call_objects(piece)]
        if objects:
            found = objects
            rest = pattern.sub("", rest)
            break
    else:
        stripped = text.strip()
        if stripped[:1] in "{[":
            found = list(_call_objects(stripped))
            rest = "" if found else text
    if not found:
        return Repaired(completion.text, [])
    calls = [
        ModelToolCall(f"text_call_{i}", str(obj["name"]), json.dumps(obj["arguments"]))
        for i, obj in enumerate(found)
    ]
    return Repaired(rest.strip() or None, named_calls(calls), ["call_in_text"])


def _call_objects(piece: str) -> Iterable[dict[str, Any]]:
    value = loads_lenient(piece)
    for item in value if isinstance(value, list) else [value]:
        if not isinstance(item, dict):
            continue
        name = item.get("name") or item.get("tool") or item.get("function")
        if isinstance(name, dict):  # {"function": {"name": ..., "arguments": ...}}
            item, name = name, name.get("name")
        if not isinstance(name, str):
            continue
        arguments = item.get("arguments", item.get("parameters", item.get("args", {})))
        if isinstance(arguments, str):
            arguments = loads_lenient(arguments)
        yield {"name": name, "arguments": arguments if isinstance(arguments, dict) else {}}


def loads_lenient(text: str) -> Any:
    """JSON, or JSON cut off at the end (the model ran out of tokens): closes open
    strings, arrays and objects. None when it is not JSON at all."""
    text = text.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        return json.loads(text)
    except ValueError:
        pass
    closing: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            closing.append("}" if char == "{" else "]")
        elif char in "}]" and closing:
            closing.pop()
    if not closing and not in_string:
        return None
    mended = text + ('"' if in_string else "")
    mended = re.sub(r",\s*$", "", mended)
    mended = re.sub(r":\s*$", ": null", mended)
    try:
        return json.loads(mended + "".join(reversed(closing)))
    except ValueError:
        return None


def tool_name(name: str) -> tuple[str | None, str | None]:
    """Our tool for the name the model gave, and the mend used (None: as sent)."""
    if name in REGISTRY:
        return name, None
    plain = re.sub(r"[^a-z0-9]+", "_", name.lower().split(".")[-1]).strip("_")
    if plain in REGISTRY:
        return plain, "tool_name"
    # The names small models give the tools ("save_note"), as each tool declares them.
    aliased = [spec.name for spec in REGISTRY.values() if plain in spec.aliases]
    if aliased:
        return aliased[0], "tool_name"
    close = difflib.get_close_matches(plain, list(REGISTRY), n=1, cutoff=0.8)
    return (close[0], "tool_name") if close else (None, None)


def named_calls(calls: Sequence[ModelToolCall]) -> list[NamedCall]:
    """Each of one answer's calls with its tool and mend (`tool_name`), named once; a
    call asked for twice (small models loop) is kept once. Captures that differ here
    but mend to the same words are caught after mending."""
    seen: set[tuple[str, str]] = set()
    kept: list[NamedCall] = []
    for call in calls:
        name, fix = tool_name(call.name)
        arguments = loads_lenient(call.arguments)
        key = (name or call.name, json.dumps(arguments, sort_keys=True))
        if key not in seen:
            seen.add(key)
            kept.append(NamedCall(call, name, fix, arguments))
    return kept


def repeats_the_prompt(answer: str, messages: Sequence[dict[str, Any]]) -> bool:
    """A small model's answer that copies its instructions or an earlier answer (seen
    with a 270M model: the system prompt, the context line, its last reply) says
    nothing, and is not shown as if it did."""
    if _TEMPLATE_TAGS.search(answer):
        return True  # the chat template's own markup: a tool result or call echoed
    earlier = [
        str(m.get("content") or "")
        for m in messages
        if m.get("role") in ("system", "assistant", "tool") or m is messages[-1]
    ]
    return any(
        text[i : i + _ECHO] in answer
        for text in earlier
        for i in range(0, max(len(text) - _ECHO, 0) + 1, _ECHO // 2)
        if len(text) >= _ECHO
    )


_ECHO = 40
_TEMPLATE_TAGS = re.compile(
    r"</?tool_(?:response|call)>|<(?:start|end)_of_turn>|^\s*\{\s*\"error\""
)
