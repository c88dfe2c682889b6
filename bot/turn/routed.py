"""Small-model mode (`routed`: bot.turn.mode): one short, constrained question per
message instead of the whole tool list.

Tried with Gemma 3 270M on llama.cpp: given the ten tools (~2,300 prompt tokens) it
answered in words and called nothing, and llama-server's `tool_choice: required` did
not constrain it. A JSON schema in `response_format` does: llama.cpp, vLLM, Ollama,
LM Studio and OpenAI all turn it into a grammar or strict mode, so the answer always
parses. So a message is routed first, and each route asks for a few fields:

- the rules of `bot.commands.intent` route a question, a change request or small talk; only a
  message they take for a thought asks the model to choose (save / ask / change);
- save: category, title, confidence and tags; the note keeps the person's words;
- ask: the words to search for; the results are the answer;
- change: move / delete / append / undo, which note, and where to; the change then
  runs as any other: a small one at once with Undo, the rest after Approve.

Every answer becomes an ordinary tool call, run and mended like any other.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from bot.commands import Kind, asks_for_digest, classify, search_words
from bot.llm import LLM, ModelToolCall
from bot.tools import ToolContext, notes_named, title_from
from bot.turn.mending import loads_lenient
from storage import StorageError

PICK_PROMPT = """Classify the user's message.
save: a thought, note, idea, task or fact to remember
ask: a question about their notes, or a request to find or show notes
Answer in JSON."""
SAVE_PROMPT = """File the user's message as a note. Answer in JSON.
category: people (someone and what to follow up), projects (multi-step work), ideas, \
admin (errands, bills, appointments), or inbox when unsure.
The title is short and uses the message's own words."""
ASK_PROMPT = """The user asks about their notes. Answer in JSON with the few words to \
search for."""
CHANGE_PROMPT = """The user wants to change a note. Answer in JSON.
action: move, delete, append (add text) or undo (the last change).
note: the note's title or path. category: where to move it, or null. text: for append."""

# The action of a change request, when its words say it (the model then only names
# the note and the folder).
_ACTIONS = (
    ("undo", re.compile(r"\b(?:undo|revert|rückgängig)\b|취소|되돌", re.I)),
    ("delete", re.compile(r"\b(?:delete|remove|lösch\w*|entfern\w*)\b|삭제|지워", re.I)),
    ("move", re.compile(r"\b(?:move|refile|verschieb\w*)\b|옮겨|이동", re.I)),
    ("append", re.compile(r"\b(?:append|add)\b", re.I)),
)
_WORD = re.compile(r"\w+")
_NOTE_WORDS = frozenset({"note", "notes", "entry", "notiz", "eintrag", "메모"})
_KIND_TO_ROUTE = {"thought": "save", "question": "ask", "change": "change", "small_talk": "chat"}
_STRING = {"type": "string"}


@dataclass(frozen=True, slots=True)
class Planned:
    """What the small-model pass decided: a route, and the call to make (if any)."""

    route: str
    call: ModelToolCall | None
    prompt_tokens: int
    by_model: bool  # the model chose the route (the rules saw a thought)


def _schema(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "json_schema",
        "json_schema": {
            "name": "answer",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
                "additionalProperties": False,
            },
        },
    }


async def _ask(
    llm: LLM, prompt: str, text: str, properties: dict[str, Any], max_tokens: int
) -> tuple[dict[str, Any], int]:
    completion = await llm.complete(
        [{"role": "system", "content": prompt}, {"role": "user", "content": text}],
        (),
        max_tokens=max_tokens,
        response_format=_schema(properties),
    )
    answer = loads_lenient(completion.text or "")
    return (answer if isinstance(answer, dict) else {}), completion.prompt_tokens


async def plan(
    llm: LLM, text: str, kind: Kind, categories: Sequence[str], *, dated: bool = False
) -> Planned:
    """Route `text` (of `kind`, decided once by the engine) and ask the model for the
    one call that route needs. `dated`: the words name a deadline, an appointment or a
    repeat ("Pay the electricity bill by the 30th"), which makes a thought a task to
    file, never a search."""
    route, tokens, by_model = _KIND_TO_ROUTE[kind], 0, False
    if route == "save" and not dated:
        # Only save or ask: a thought the model takes for a question is searched and
        # still kept; one it took for a change would wait for Approve on another note.
        picked, tokens = await _ask(
            llm, PICK_PROMPT, text, {"route": {"enum": ["save", "ask"]}}, 12
        )
        route, by_model = ("ask" if picked.get("route") == "ask" else "save"), True
    if route == "chat":
        return Planned(route, None, tokens, by_model)
    if route == "save":
        properties = {
            "category": {"enum": list(categories)},
            "title": {**_STRING, "maxLength": 60},
            "confidence": {"type": "number"},
            "tags": {"type": "array", "items": {**_STRING, "maxLength": 24}, "maxItems": 3},
        }
        answer, used = await _ask(llm, SAVE_PROMPT, text, properties, 80)
        arguments = _save_arguments(text, answer, categories)
        return Planned(route, _call("capture", arguments), tokens + used, by_model)
    if route == "ask" and asks_for_digest(text):
        digest = "weekly" if "week" in text.lower() else "daily"
        return Planned(route, _call("generate_digest", {"kind": digest}), tokens, by_model)
    if route == "ask":
        answer, used = await _ask(
            llm, ASK_PROMPT, text, {"query": {**_STRING, "maxLength": 80}}, 40
        )
        return Planned(
            route, _call("search_entries", _query(text, answer)), tokens + used, by_model
        )
    properties = {
        "action": {"enum": ["move", "delete", "append", "undo"]},
        "note": {**_STRING, "maxLength": 80},
        "category": {"anyOf": [{"enum": list(categories)}, {"type": "null"}]},
        "text": {"anyOf": [{**_STRING, "maxLength": 200}, {"type": "null"}]},
    }
    answer, used = await _ask(llm, CHANGE_PROMPT, text, properties, 80)
    said = next((action for action, words in _ACTIONS if words.search(text)), None)
    if said is not None:
        answer["action"] = said
    if not _name_words(str(answer.get("note") or ""), categories) & _name_words(text, categories):
        # A note name from nowhere, or only the verb or the folder ("move", seen with
        # a 270M model): the message's own words, without those, find it instead.
        skip = set(categories) | _NOTE_WORDS
        words = search_words(text).split()
        answer["note"] = " ".join(w for w in words if w.lower() not in skip and not _is_action(w))
    return Planned(route, _change_call(answer), tokens + used, by_model)


def _is_action(word: str) -> bool:
    return any(pattern.fullmatch(word) for _, pattern in _ACTIONS)


def _name_words(text: str, categories: Sequence[str]) -> set[str]:
    """The words of `text` that may name a note: not the action, not a folder."""
    return {w for w in _content_words(text) if w not in categories and not _is_action(w)}


def _content_words(text: str) -> set[str]:
    return (
        {w.lower() for w in _WORD.findall(text) if len(w) > 2} - {"the", "and", "for"} - _NOTE_WORDS
    )


def _save_arguments(text: str, answer: dict[str, Any], categories: Sequence[str]) -> dict[str, Any]:
    """The capture a small model asked for, checked against the message: a folder the
    person named ("idea: ...") wins; a folder the keywords do not back is only a
    suggestion (the note waits in the inbox with buttons); a title that shares no word
    with the message (the prompt repeated, or made up) is replaced by its first words."""
    arguments: dict[str, Any] = {**answer, "body": text, "fields": []}
    guess = classify(text, tuple(categories))
    if guess.confidence == 1.0:
        arguments.update(category=guess.category, confidence=1.0)
    elif answer.get("category") != guess.category:
        confidence = answer.get("confidence")
        arguments["confidence"] = min(
            float(confidence) if isinstance(confidence, (int, float)) else 0.0, 0.5
        )
    if not _content_words(str(answer.get("title") or "")) & _content_words(text):
        arguments["title"] = title_from(guess.text)
    return arguments


def _query(text: str, answer: dict[str, Any]) -> dict[str, Any]:
    """The model's search words when they come from the message; else the message's
    own words (a small model's query may be about something else entirely)."""
    query = str(answer.get("query") or "")
    words = set(search_words(text).lower().split())
    if not words & set(query.lower().split()):
        query = search_words(text)
    return {"query": query, "limit": 5}


def _change_call(answer: dict[str, Any]) -> ModelToolCall | None:
    action, note = answer.get("action"), str(answer.get("note") or "")
    if action == "undo":
        return _call("undo", {"change": None})
    if not note:
        return None
    if action == "move" and answer.get("category"):
        return _call("move_entry", {"path": note, "category": answer["category"]})
    if action == "delete":
        return _call("delete_entry", {"path": note})
    if action == "append" and answer.get("text"):
        return _call("update_entry", {"path": note, "append": answer["text"]})
    return None


def _call(name: str, arguments: dict[str, Any]) -> ModelToolCall:
    return ModelToolCall(f"routed_{name}", name, json.dumps(arguments))


async def pin_note(ctx: ToolContext, call: ModelToolCall) -> ModelToolCall:
    """A small model names a note loosely ("the plant bot note"): the one note whose
    title contains the name, else the best search hit. The approval card shows which.
    Only a call on a note has one to pin (a move, a delete, an append: its `path`)."""
    arguments = json.loads(call.arguments)
    name = str(arguments.get("path") or "")
    if not name:
        return call
    try:
        if len(await notes_named(ctx.store, name, exact=True)) == 1:
            return call
        found = await notes_named(ctx.store, name)
        if len(found) != 1:
            words = [w for w in search_words(name).split() if w.lower() not in _NOTE_WORDS]
            hits = (await ctx.store.search(" ".join(words) or name, limit=1)).hits
            found = [await ctx.store.read(hits[0].path)] if hits else []
    except StorageError:
        return call
    if not found:
        return call
    return replace(call, arguments=json.dumps({**arguments, "path": found[0].path}))
