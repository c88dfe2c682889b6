"""The one function that decides what a capture is, whatever the door.

A door hands a CaptureRequest (bot.events): the person's words, links, an optional
category, title and tags; the files are the message's attachments. Here, once:
- the length limit counts the person's own words (no door's wrapping);
- a category is validated: an unknown one is refused with the list, nothing kept; an
  explicit one is honoured (never sent to the inbox for want of confidence);
- nothing to keep (no words, link or file) is refused;
- a link saved before is not filed twice (bot.enrich: the saved-link rule, which reads
  it again when it was never read);
- a capture of files alone is titled after its first file and holds its text once
  read; otherwise the words give the category (when none was named) and the title;
- the tags are tags, never glued to the words;
- the reply fits the door: where no button can be pressed (the API, MCP, mail) an
  inbox note says how to file it instead of "Pick a category:";
- what follows a capture (reading, timelines, related notes) follows it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from bot.capture.follow_ups import AfterCapture
from bot.commands import capture_arguments
from bot.enrich import Arrivals, find_urls
from bot.events import CaptureRequest, Reply
from bot.tools import (
    Outcome,
    ToolContext,
    ToolError,
    ToolResult,
    ToolRunner,
    category_named,
    title_from,
)
from storage.vault import INBOX, PEOPLE

# Where nothing can be pressed: a reply there names what to do instead of buttons.
NO_BUTTONS = frozenset({"api", "mcp", "email"})
MOVE = {"mcp": "file it with move_entry", "": "`/move NOTE CATEGORY` in a chat"}
TOO_LONG = (
    "That is {length:,} characters; I take at most {limit:,}. Nothing was saved. "
    "Split it, or put it in a file."
)
NOTHING = "Nothing to keep: send words, a link or a file."
_COMMAND = re.compile(r"^/capture(?:@\w+)?(?:\s+|$)", re.IGNORECASE)
_SPACES = re.compile(r"\s+")


def capture_words(text: str) -> str | None:
    """The words of a `/capture` command (`/capture@thisbot` in a group), or None when
    `text` is not one."""
    match = _COMMAND.match(text.strip())
    return text.strip()[match.end() :].strip() if match else None


@dataclass(frozen=True)
class Captured:
    """What a capture did: what to say, the capture tool's outcome when it ran (None
    when a link saved before took the words, or the request was refused), the note
    that holds it (path, title), and whether it was refused (nothing was kept)."""

    replies: list[Reply]
    outcome: Outcome | None = None
    note: tuple[str, str] | None = None
    refused: bool = False

    @property
    def said(self) -> str:
        """The replies' words as one line, for a door that answers in one."""
        return " ".join(reply.text for reply in self.replies)

    @property
    def saved_before(self) -> dict[str, str] | None:
        """`{path, title}` of the note a link saved before took the words into; None
        when the capture was filed or refused."""
        if self.refused or (self.outcome is not None and self.outcome.result is not None):
            return None
        path, title = self.note or ("", "")
        return {"path": path, "title": title}


class Capturing:
    """Files capture requests (see the module doc)."""

    def __init__(self, runner: ToolRunner, arrivals: Arrivals, after: AfterCapture) -> None:
        self.runner = runner
        self.arrivals = arrivals
        self.after = after

    async def capture(self, ctx: ToolContext, request: CaptureRequest) -> Captured:
        """File `request` in `ctx`'s vault (with the files `ctx` holds), or refuse it
        with a reason; then what follows a capture follows it."""
        return await self._capture(ctx, request, from_tool=False)

    async def for_tool(self, ctx: ToolContext, request: CaptureRequest) -> ToolResult:
        """The `capture` tool's call in a model's turn (or its small routes'), decided
        by the same rules: refused (ToolError, which the model hears), added to the note
        of a link saved before, or filed. The turn follows it up with the person's own
        words (bot.engine), so nothing follows here."""
        captured = await self._capture(ctx, request, from_tool=True)
        if captured.refused:
            raise ToolError(captured.said)
        saved = captured.saved_before
        if saved is not None or captured.outcome is None or captured.outcome.result is None:
            buttons = tuple(b for reply in captured.replies for b in reply.buttons)
            data = {"saved_before": saved, "said": captured.said}
            path = saved["path"] if saved else ""
            return ToolResult(data, captured.said, buttons, entry_path=path or None)
        reply = captured.replies[0]
        return replace(captured.outcome.result, text=reply.text, buttons=reply.buttons)

    async def _capture(
        self, ctx: ToolContext, request: CaptureRequest, *, from_tool: bool
    ) -> Captured:
        settings = ctx.settings
        words = request.words.strip()
        if len(words) > settings.max_message_chars:
            limit = settings.max_message_chars
            return _refused(TOO_LONG.format(length=len(words), limit=limit))
        category = ""
        if request.category.strip():
            named = category_named(request.category, settings.categories)
            if named is None:
                names = ", ".join(settings.categories)
                return _refused(
                    f"{request.category.strip()!r} is not a category; use one of {names}. "
                    "Nothing was saved."
                )
            category = named
        given = [link.strip() for link in request.links if link.strip()]
        links = tuple(dict.fromkeys([*find_urls(words), *given]))
        files = ctx.files
        if not words and not links and not (files is not None and files.waiting):
            return _refused(NOTHING)
        text = " ".join([words, *(link for link in links if link not in words)]).strip()
        # A model's call files into its turn's list (the turn follows it up); a door's
        # capture is its event's one.
        ctx = replace(ctx, links=links, filed=ctx.filed if from_tool else [], said="")
        if links and not (files is not None and files.readable()):
            again = await self.arrivals.saved_again(ctx, text)
            if again is not None:
                return Captured(self._fit(ctx, again.replies), note=(again.path, again.title))
        arguments = await self._arguments(ctx, request, text, category)
        outcome = await self._file(replace(ctx, capturing=None), arguments, from_tool=from_tool)
        if not from_tool:
            await self.after.follow(ctx, words)
        if outcome.result is None:
            error = json.loads(outcome.content).get("error", "the capture failed")
            return Captured([Reply(f"I could not save that: {error}.")], outcome, refused=True)
        note = (ctx.filed[0].path, ctx.filed[0].title) if ctx.filed else None
        reply = Reply(outcome.result.text, outcome.result.buttons)
        if category == INBOX and request.confidence is None:
            # Asked for: not a doubt (a chat still offers the choice).
            pick = () if ctx.conversation.platform in NO_BUTTONS else reply.buttons
            reply = Reply(f"Saved to {outcome.result.entry_path} (inbox).", pick)
        return Captured(self._fit(ctx, [reply]), outcome, note)

    async def _file(
        self, ctx: ToolContext, arguments: dict[str, Any], *, from_tool: bool
    ) -> Outcome:
        """The `capture` call that files it. A door's runs through the runner (validated,
        logged); a model's already does, so it is filed by the tool's own function, and
        a failure reaches the model as that call's error."""
        if not from_tool:
            return await self.runner.call(ctx, "capture", arguments)
        spec = self.runner.tools["capture"]
        result = await spec.run(ctx, spec.arguments.model_validate(arguments))
        return Outcome(spec.name, json.dumps(result.data, default=str), ok=True, result=result)

    async def words(self, ctx: ToolContext, words: str) -> list[Reply]:
        """A chat's `/capture WORDS` (a Slack shortcut's, Telegram's /save): what to say."""
        return (await self.capture(ctx, CaptureRequest(words))).replies

    async def _arguments(
        self, ctx: ToolContext, request: CaptureRequest, text: str, category: str
    ) -> dict[str, Any]:
        """The `capture` call: the words' own category, title and fields (bot.commands),
        the category and title asked for, the tags given."""
        if text:
            arguments = await capture_arguments(ctx, text)
        else:  # files alone: titled after the first, its text read into the note
            waiting = ctx.files.waiting if ctx.files is not None else []
            name = waiting[0].file_name if waiting else "File"
            arguments = await capture_arguments(ctx, name)
            arguments.update(title=title_from(name, as_written=True), body="")
        if category:
            if arguments["category"] == PEOPLE != category and text:
                # The words would start someone's page; asked elsewhere, they are a note.
                arguments.update(title=title_from(text), body=text)
            sure = 1.0 if request.confidence is None else request.confidence
            arguments.update(category=category, confidence=sure)
        if request.title.strip():
            arguments["title"] = request.title.strip()
        given = [{"name": name, "value": value} for name, value in request.fields]
        arguments["fields"] = [*arguments["fields"], *given]
        # Obsidian's tags hold no spaces and are written without their `#`.
        tags = [_SPACES.sub("-", tag.strip().lstrip("#").strip()) for tag in request.tags]
        arguments["tags"] = list(dict.fromkeys([*arguments["tags"], *(t for t in tags if t)]))
        return arguments

    @staticmethod
    def _fit(ctx: ToolContext, replies: list[Reply]) -> list[Reply]:
        """The replies as the door can show them: where nothing can be pressed, a choice
        of category becomes the command that makes it."""
        if ctx.conversation.platform not in NO_BUTTONS:
            return replies
        fitted = []
        for reply in replies:
            choices = [b.label for b in reply.buttons if b.action == "file"]
            text = reply.text
            if choices:
                how = MOVE.get(ctx.conversation.platform, MOVE[""])
                text = text.removesuffix(" Pick a category:").rstrip()
                text += f" It waits in the inbox until you choose: {', '.join(choices)} ({how})."
            fitted.append(replace(reply, text=text, buttons=()))
        return fitted


def _refused(text: str) -> Captured:
    return Captured([Reply(text)], refused=True)
