"""Mending the arguments weak tool callers send, where the mend cannot change the meaning:
names the model invented for them ("text" for `body`), values fitted to their types
("0.9" or "90%" for a number, "a, b" for a list of tags, fields as an object or as
"key: value" strings), left-out optional ones, and a capture that lacks a category,
a title, a body or a confidence. Each mend is named in `fixes`."""

from __future__ import annotations

import json
import re
import types
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

from bot.tools import REGISTRY, UNSURE, ToolContext, ToolSpec, category_named, title_from
from storage import StorageError
from storage.text import wikilinks
from storage.text.dates import When
from storage.text.person_names import possessive_title
from storage.vault import ADMIN, INBOX, PEOPLE

_REMINDER_FIELDS = frozenset({"remind", "repeat"})

MISSING = object()  # no value fits: the tool's validation will say what is wrong


def empty_value(annotation: Any) -> Any:
    """What a left-out argument means: null when it may be null, [] for a list."""
    options = get_args(annotation) if _is_union(annotation) else (annotation,)
    if type(None) in options:
        return None
    if any(get_origin(o) is list for o in options):
        return []
    return MISSING


def _is_union(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType)


def coerce(value: Any, annotation: Any, fixes: list[str]) -> Any:
    """`value` as it is when it fits `annotation`, else converted to the first type of
    the annotation it converts to, else as it is."""
    options = list(get_args(annotation) if _is_union(annotation) else (annotation,))
    if value is None or any(_fits(value, o) for o in options):
        return value
    for option in options:
        mended = _convert(value, option)
        if mended is not MISSING:
            fixes.append("argument_type")
            return mended
    return value


def _fits(value: Any, annotation: Any) -> bool:
    if annotation is type(None):
        return value is None
    origin = get_origin(annotation)
    if origin is list:
        (inner,) = get_args(annotation) or (Any,)
        return isinstance(value, list) and all(_fits(v, inner) for v in value)
    if annotation is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation is str:
        return isinstance(value, str)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return isinstance(value, dict) and set(value) <= set(annotation.model_fields)
    return True


def _convert(value: Any, annotation: Any) -> Any:
    origin = get_origin(annotation)
    if annotation is float and isinstance(value, str):
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(%?)\s*", value)
        if match:
            number = float(match.group(1))
            return number / 100 if match.group(2) or number > 1 else number
    if annotation is int and isinstance(value, (str, float)):
        try:
            return int(float(value))
        except ValueError:
            return MISSING
    if annotation is str and isinstance(value, (int, float, bool)):
        return str(value)
    if annotation is str and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(value)
    if origin is list:
        (inner,) = get_args(annotation) or (Any,)
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            return _field_list(value)
        if isinstance(value, str):
            return [part.strip().lstrip("#") for part in re.split(r"[,;]", value) if part.strip()]
    return MISSING


def _field_list(value: Any) -> Any:
    """Frontmatter fields as [{"name", "value"}], from an object, "key: value" strings,
    or items with other key names."""
    if isinstance(value, dict):
        return [{"name": str(k), "value": None if v is None else str(v)} for k, v in value.items()]
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return MISSING
    items: list[dict[str, Any]] = []
    for item in value:
        if isinstance(item, str) and ":" in item:
            key, _, text = item.partition(":")
            items.append({"name": key.strip(), "value": text.strip()})
        elif isinstance(item, dict) and "name" in item:
            raw = item.get("value")
            items.append({"name": str(item["name"]), "value": None if raw is None else str(raw)})
        elif isinstance(item, dict) and len(item) == 1:
            ((key, raw),) = item.items()
            items.append({"name": str(key), "value": None if raw is None else str(raw)})
    return items


def mended(
    name: str, raw: str, loaded: Any, categories: tuple[str, ...], said: str
) -> tuple[dict[str, Any] | None, list[str]]:
    """The arguments `raw` (read as `loaded` by bot.turn.mending.loads_lenient) mended
    to the tool's schema, or None when they are not JSON."""
    fixes: list[str] = []
    value = loaded if raw.strip() else {}
    if value is None or not isinstance(value, dict):
        return None, fixes
    try:
        json.loads(raw or "{}")
    except ValueError:
        fixes.append("cut_json")
    if set(value) == {"arguments"} and isinstance(value["arguments"], dict):
        value = value["arguments"]
    spec = REGISTRY[name]
    model = spec.arguments
    args = _rename(spec, value, fixes)
    if spec.captures and not isinstance(args.get("title"), str):
        args.pop("title", None)  # a number or a list is no title: one is made from the body
    for key, info in model.model_fields.items():
        if key not in args:
            empty = empty_value(info.annotation)
            if empty is not MISSING:
                args[key] = empty
                fixes.append("missing_optional")
        else:
            args[key] = coerce(args[key], info.annotation, fixes)
    if spec.captures:
        _capture(args, categories, said, fixes)
    return args, list(dict.fromkeys(fixes))


def _rename(spec: ToolSpec, value: dict[str, Any], fixes: list[str]) -> dict[str, Any]:
    """The arguments under our names: those small models use ("text" for `body`) as
    the tool declares them; others are dropped."""
    model, aliases = spec.arguments, spec.argument_aliases
    args: dict[str, Any] = {}
    for key, item in value.items():
        target = key if key in model.model_fields else aliases.get(key.lower())
        if target is None or target not in model.model_fields:
            fixes.append("unknown_argument_dropped")
            continue
        if target != key:
            fixes.append("argument_name")
        args.setdefault(target, item)
    return args


def _capture(
    args: dict[str, Any], categories: tuple[str, ...], said: str, fixes: list[str]
) -> None:
    """A capture that lacks a category, a title, a body or a confidence still files
    the thought: in the inbox, under the person's own words."""
    category = args.get("category")
    if isinstance(category, str) and category.lower() not in categories:
        known = category_named(category, categories)
        args["category"] = known or INBOX
        args["confidence"] = args.get("confidence") if known else 0.0
        fixes.append("category")
    elif isinstance(category, str):
        args["category"] = category.lower()
    if not isinstance(args.get("category"), str):
        args["category"], args["confidence"] = INBOX, 0.0
        fixes.append("category")
    if not isinstance(args.get("body"), str) or not args["body"].strip():
        args["body"] = said
        fixes.append("body")
    if not isinstance(args.get("title"), str) or not args["title"].strip():
        args["title"] = title_from(args["body"])
        fixes.append("title")
    if not isinstance(args.get("confidence"), (int, float)) or isinstance(args["confidence"], bool):
        # Unsure how sure: below any sensible threshold, so the person picks.
        args["confidence"] = UNSURE
        fixes.append("confidence")
    args["confidence"] = min(1.0, max(0.0, float(args["confidence"])))


async def mended_call(
    ctx: ToolContext,
    name: str,
    raw: str,
    loaded: Any,
    said: str,
    when: When,
    *,
    alone: bool,
    repairs: list[str],
) -> dict[str, Any] | None:
    """A model's call of the registered tool `name` mended in one go: its arguments
    `raw` (read as `loaded`) fitted to the tool's schema (`mended`), and a capture's
    held to the person's words (`mended_capture`); None when they are not JSON. Each
    mend is added to `repairs`."""
    arguments, fixes = mended(name, raw, loaded, ctx.settings.categories, said)
    repairs += fixes
    if arguments is not None and REGISTRY[name].captures:
        await mended_capture(ctx, arguments, said, when, alone=alone, repairs=repairs)
    return arguments


async def mended_capture(
    ctx: ToolContext,
    arguments: dict[str, Any],
    said: str,
    when: When,
    *,
    alone: bool,
    repairs: list[str],
) -> None:
    """A capture call's arguments held to the person's words (`said`, whose dates read
    as `when`), each mend at once: their own words when it is the reply's one capture
    (`alone`), no reminder the words do not plan, no person page for something of
    someone's."""
    if alone:
        _keep_own_words(arguments, said, repairs)
    _without_unasked_reminder(arguments, when.plans, repairs)
    await _not_a_person(ctx, arguments, when.found, repairs)


def _keep_own_words(arguments: dict[str, Any], said: str, repairs: list[str]) -> None:
    """One thought, one note: the note keeps the person's words, not a paraphrase."""
    said = said.strip()
    if said and said not in str(arguments.get("body", "")):
        arguments["body"] = said
        repairs.append("own_words")


def _without_unasked_reminder(arguments: dict[str, Any], plans: bool, repairs: list[str]) -> None:
    """A `remind` or `repeat` a model set for words that neither ask to be reminded nor
    name an appointment, a deadline or a repeat (`plans`, read by storage.text.dates) is dropped:
    "Tom suggested we try pair programming on Fridays" is a thought, not a reminder."""
    fields = arguments.get("fields")
    if plans or not isinstance(fields, list):
        return
    kept = [f for f in fields if not (isinstance(f, dict) and f.get("name") in _REMINDER_FIELDS)]
    if len(kept) != len(fields):
        arguments["fields"] = kept
        repairs.append("unasked_reminder")


async def _not_a_person(
    ctx: ToolContext, arguments: dict[str, Any], dated: bool, repairs: list[str]
) -> None:
    """A people capture titled "Sarah's Birthday" is a note about Sarah, not a person of
    that name: it is filed as an ordinary note (an errand when its words carry a date,
    else in the inbox for the person to place) that links to Sarah's page when exactly
    one person's page starts with that name."""
    if arguments.get("category") != PEOPLE:
        return
    # "Sarah's Birthday", "Tom's new job": about something of a person's, not a person.
    whose = possessive_title(str(arguments.get("title") or ""))
    if whose is None:
        return
    if dated and ADMIN in ctx.settings.categories:
        arguments["category"] = ADMIN
    else:
        arguments.update(category=INBOX, confidence=0.0)
    repairs.append("not_a_person")
    name = whose.lower()
    try:
        found = await ctx.store.find(name)
    except StorageError:
        return
    pages = [
        e for e in found if e.category == PEOPLE and (e.title.lower() + " ").startswith(name + " ")
    ]
    if len(pages) == 1:
        link = wikilinks.link_to(pages[0].path)
        arguments["body"] = f"{arguments.get('body') or ''}\n\n{link}".strip()
