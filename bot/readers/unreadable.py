"""Why a file or page could not be read, said in words for the person who shared it."""

from __future__ import annotations


class Unreadable(Exception):
    """A file or page this reader will not or cannot read; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class DocumentUnreadable(Unreadable):
    """A document of a kind the readers know (a PDF, a Word file) that cannot be read."""
