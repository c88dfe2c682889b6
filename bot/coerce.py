"""Arguments a weak model sent, fitted to the types of the tool's arguments where the
meaning is plain: "0.9" or "90%" for a number, "a, b" for a list of tags, fields as an
object or as "key: value" strings. Each fit is named in `fixes` ("argument_type")."""

from __future__ import annotations

import re
import types
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

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
