"""Unified diffs for approval previews, in the `a/` `b/` form git prints."""

from __future__ import annotations

import difflib


def unified_diff(old_path: str | None, old: str, new_path: str | None, new: str) -> str:
    """A unified diff from `old` to `new`; a None path is a file that does not exist
    on that side (`/dev/null`). The header is there even when only the path changes."""
    old_name = f"a/{old_path}" if old_path is not None else "/dev/null"
    new_name = f"b/{new_path}" if new_path is not None else "/dev/null"
    lines = difflib.unified_diff(
        _lines(old), _lines(new), fromfile=old_name, tofile=new_name, lineterm="\n"
    )
    text = "".join(lines)
    return text or f"--- {old_name}\n+++ {new_name}\n"


def _lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def bytes_diff(old_path: str | None, old: bytes, new_path: str | None, new: bytes) -> str:
    """`unified_diff` of file contents that may not be valid UTF-8."""
    return unified_diff(
        old_path, old.decode("utf-8", "replace"), new_path, new.decode("utf-8", "replace")
    )
