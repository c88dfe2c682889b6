"""Small-model mode (`BRAINBOT_LLM_TOOLS=routed`): fewer tools per request.

A first pass chooses among save / ask / change / chat; the second request then
carries only the tools for that, a fraction of the ~2,300 tokens all of them cost,
and a message to save gets `tool_choice: required`, which servers with grammars
(llama.cpp) turn into a well-formed `capture` call even from a very small model.

The first pass is the rules of `bot.intent` when they see a question, a change
request or small talk (a "?", a question word, "move that..."); only a message they
take for a thought goes to the model as one short request for one word, since a
thought in another phrasing or language may still be a question. An answer that is
not one of the four words means "save".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.intent import kind_of
from bot.llm import LLM

ROUTE_PROMPT = """Classify the user's message with one word:
save - a thought, note, idea, task or fact to remember
ask - a question about their notes, or a request to list, find or show notes
change - edit, move, delete or undo a note
chat - a greeting or thanks
Answer with the one word only."""

ROUTES = {
    "save": ("capture",),
    "ask": ("search_entries", "list_entries", "get_entry", "list_backlinks", "generate_digest"),
    "change": ("search_entries", "update_entry", "move_entry", "delete_entry", "undo"),
    "chat": (),
}
_FROM_KIND = {"thought": "save", "question": "ask", "change": "change", "small_talk": "chat"}
_WORD = re.compile(r"\b(save|ask|change|chat)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Route:
    name: str
    tools: tuple[str, ...]
    by_model: bool  # False: the model's word was unusable and the rules chose
    prompt_tokens: int

    @property
    def tool_choice(self) -> str:
        return "required" if self.name == "save" else "auto"


async def choose(llm: LLM, text: str) -> Route:
    kind = kind_of(text)
    if kind != "thought":
        name = _FROM_KIND[kind]
        return Route(name, ROUTES[name], False, 0)
    completion = await llm.complete(
        [{"role": "system", "content": ROUTE_PROMPT}, {"role": "user", "content": text}],
        (),
        max_tokens=4,
    )
    match = _WORD.search(completion.text or "")
    # "chat" is not trusted here: the rules found no small talk in the message.
    if match and match.group(1).lower() != "chat":
        name = match.group(1).lower()
        return Route(name, ROUTES[name], True, completion.prompt_tokens)
    return Route("save", ROUTES["save"], False, completion.prompt_tokens)
