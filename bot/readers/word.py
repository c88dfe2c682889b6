"""The text of a Word file (DOCX), read from its XML as a stream.

`word/document.xml` is fed to expat in 64 KiB pieces straight from the zip, and the
reading stops once the characters kept are reached: a 190 KB file of 63 MB of XML
(two million paragraphs) used to be parsed whole into one tree (944 MB, 17 s) for the
200,000 characters kept. Nothing recurses, and elements may nest at most MAX_DEPTH
deep (200,000 nested content controls used to raise RecursionError). A document that
declares a DOCTYPE is refused, which Word never writes: no entity is ever expanded.

A 40-section document (400 paragraphs, 40 tables: `bench.ocr`) takes 16 ms where
the whole tree took 12 ms on the same busy machine, the price of handlers in Python;
python-docx took 35 times as long (it resolves every paragraph's style object and
rebuilds each table row's cells) and is one dependency (with lxml) more. Paragraphs
and tables come in document order; headings become Markdown `#`, list items `- `,
table rows `| a | b |`.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Callable
from typing import IO
from xml.parsers import expat

from bot.readers.unreadable import DocumentUnreadable

# A DOCX is a zip: its XML is size-checked before it is inflated, against a zip bomb.
DOCX_XML_MAX_BYTES = 64 * 1024 * 1024
STYLES_MAX_BYTES = 8 * 1024 * 1024  # Word's own are 30-300 KB
MAX_DEPTH = 256  # Word nests tables in tables; no real document comes near
_CHUNK = 64 * 1024
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # an encrypted DOCX is an OLE file
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_SEP = "}"
_LIST = 0  # the "level" of a list style: its paragraphs become "- " items
NOT_WORD = "the file is not a readable Word document"

# What an open element is to the reader (a frame per element on the stack).
_OTHER, _CONTAINER, _SDT, _PARAGRAPH, _PROPERTIES, _TABLE, _ROW, _CELL, _TEXT, _STYLE = range(10)


class _Enough(Exception):
    """Raised from a handler: the characters kept are reached, the rest is not read."""


def docx_text(data: bytes, max_chars: int) -> str:
    """The text of a Word file, read until a little past `max_chars` characters.

    Raises DocumentUnreadable for a damaged, password-protected or nested-too-deep one.
    """
    if data.startswith(_OLE_MAGIC):
        raise DocumentUnreadable("the Word document is password-protected")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            if "word/document.xml" not in names:
                raise DocumentUnreadable(NOT_WORD)
            limits = {"word/document.xml": DOCX_XML_MAX_BYTES, "word/styles.xml": STYLES_MAX_BYTES}
            for name, most in limits.items():
                if name in names and archive.getinfo(name).file_size > most:
                    raise DocumentUnreadable("the Word document unpacks to too much text to read")
            styles = _Styles()
            if "word/styles.xml" in names:
                with archive.open("word/styles.xml") as stream:
                    _parse(stream, styles.start, styles.end, None)
            body = _Body(styles.levels, max_chars)
            try:
                with archive.open("word/document.xml") as stream:
                    _parse(stream, body.start, body.end, body.text)
            except _Enough:
                pass
    except DocumentUnreadable:
        raise
    except (
        zipfile.BadZipFile,
        zlib.error,
        expat.ExpatError,
        OSError,
        ValueError,
        EOFError,
        NotImplementedError,  # a compression method zipfile lacks
        RuntimeError,  # an encrypted zip member
    ) as exc:
        raise DocumentUnreadable(NOT_WORD) from exc
    if not body.seen_body:
        raise DocumentUnreadable(NOT_WORD)
    return "\n\n".join(block for block in body.blocks if block).strip()


Start = Callable[[str, dict[str, str]], None]
End = Callable[[str], None]


def _parse(stream: IO[bytes], start: Start, end: End, text: Callable[[str], None] | None) -> None:
    parser = expat.ParserCreate(namespace_separator=_SEP)
    parser.buffer_text = True
    depth = 0

    def on_start(name: str, attributes: dict[str, str]) -> None:
        nonlocal depth
        depth += 1
        if depth > MAX_DEPTH:
            raise DocumentUnreadable("the Word document is nested too deeply to read")
        start(name, attributes)

    def on_end(name: str) -> None:
        nonlocal depth
        depth -= 1
        end(name)

    def refuse(*_: object) -> None:
        raise DocumentUnreadable(NOT_WORD)  # a DOCTYPE: entities, perhaps billions of laughs

    parser.StartElementHandler = on_start
    parser.EndElementHandler = on_end
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    if text is not None:
        parser.CharacterDataHandler = text
    while chunk := stream.read(_CHUNK):
        parser.Parse(chunk, False)
    parser.Parse(b"", True)


def _w(local: str) -> str:
    return f"{_W}{_SEP}{local}"


_BODY, _SDT_TAG, _SDT_CONTENT, _P, _PPR, _PSTYLE, _NUMPR = map(
    _w, ("body", "sdt", "sdtContent", "p", "pPr", "pStyle", "numPr")
)
_TBL, _TR, _TC, _T, _TAB, _BREAKS = (
    _w("tbl"),
    _w("tr"),
    _w("tc"),
    _w("t"),
    _w("tab"),
    {_w("br"), _w("cr")},
)
_VAL, _STYLE_TAG, _STYLE_ID, _NAME = _w("val"), _w("style"), _w("styleId"), _w("name")


class _Styles:
    """Style id → heading level (Title is 1), or _LIST for a list style. Ids are
    localised ("berschrift1" in a German Word), the names of built-in styles are not
    ("heading 1")."""

    def __init__(self) -> None:
        self.levels: dict[str, int] = {"Title": 1, **{f"Heading{n}": n for n in range(1, 10)}}
        self._stack: list[str] = []
        self._id = ""
        self._name = ""
        self._numbered = False

    def start(self, name: str, attributes: dict[str, str]) -> None:
        parent = self._stack[-1] if self._stack else ""
        self._stack.append(name)
        if name == _STYLE_TAG:
            self._id, self._name, self._numbered = attributes.get(_STYLE_ID, ""), "", False
        elif name == _NAME and parent == _STYLE_TAG:
            self._name = attributes.get(_VAL, "")
        elif name == _NUMPR and parent == _PPR and self._stack[-3:-2] == [_STYLE_TAG]:
            self._numbered = True

    def end(self, name: str) -> None:
        self._stack.pop()
        if name != _STYLE_TAG or not self._id:
            return
        name_lower = self._name.lower()
        heading = re.fullmatch(r"heading ([1-9])", name_lower)
        if heading:
            self.levels[self._id] = int(heading.group(1))
        elif name_lower == "title":
            self.levels[self._id] = 1
        elif name_lower.startswith("list") or self._numbered:
            self.levels[self._id] = _LIST


class _Body:
    """Paragraphs and tables of `<w:body>` in document order (content controls are
    looked into), each rendered as it closes; stops past `max_chars` characters."""

    def __init__(self, styles: dict[str, int], max_chars: int) -> None:
        self.styles = styles
        self.max_chars = max_chars
        self.blocks: list[str] = []
        self.seen_body = False
        self._kept = 0  # characters in self.blocks, with the blank lines between them
        self._pending = 0  # characters gathered for the block now open
        self._roles: list[int] = []
        # the block-level paragraph now open: its text, style id, whether it is numbered
        self._text: list[str] = []
        self._style = ""
        self._numbered = False
        # the block-level table now open: finished rows, the open row's cells and the
        # open cell's paragraphs (each a list of pieces)
        self._rows: list[str] = []
        self._cells: list[str] = []
        self._cell: list[list[str]] | None = None

    def start(self, name: str, attributes: dict[str, str]) -> None:
        parent = self._roles[-1] if self._roles else _OTHER
        role = _OTHER
        if name == _BODY and len(self._roles) == 1:
            role, self.seen_body = _CONTAINER, True
        elif parent == _CONTAINER and name == _SDT_TAG:
            role = _SDT
        elif parent == _SDT and name == _SDT_CONTENT:
            role = _CONTAINER
        elif parent == _CONTAINER and name == _P:
            role, self._text, self._style, self._numbered = _PARAGRAPH, [], "", False
        elif parent == _PARAGRAPH and name == _PPR:
            role = _PROPERTIES
        elif parent == _PROPERTIES and name == _PSTYLE:
            self._style = self._style or attributes.get(_VAL, "")
        elif parent == _PROPERTIES and name == _NUMPR:
            self._numbered = True
        elif parent == _CONTAINER and name == _TBL:
            role, self._rows = _TABLE, []
        elif parent == _TABLE and name == _TR:
            role, self._cells = _ROW, []
        elif parent == _ROW and name == _TC:
            role, self._cell = _CELL, []
        elif name == _P and self._cell is not None:
            self._cell.append([])
        elif name == _T and self._open_text() is not None:
            role = _TEXT
        elif name == _TAB:
            self._add("\t")
        elif name in _BREAKS:
            self._add("\n")
        self._roles.append(role)

    def text(self, data: str) -> None:
        if self._roles and self._roles[-1] == _TEXT:
            self._add(data)

    def end(self, name: str) -> None:
        role = self._roles.pop()
        if role == _PARAGRAPH:
            self._keep(self._paragraph())
        elif role == _CELL and self._cell is not None:
            self._cells.append(self._cell_text())
            self._cell = None
        elif role == _ROW:
            if any(self._cells):
                self._rows.append("| " + " | ".join(self._cells) + " |")
            self._cells = []
        elif role == _TABLE:
            self._keep("\n".join(self._rows))
            self._rows = []

    def _open_text(self) -> list[str] | None:
        """Where text goes now: the open paragraph's, the open cell's last paragraph's."""
        if self._cell is not None:
            return self._cell[-1] if self._cell else None
        return self._text if _PARAGRAPH in self._roles else None

    def _add(self, piece: str) -> None:
        target = self._open_text()
        if target is None:
            return
        target.append(piece)
        self._pending += len(piece)
        if self._kept + self._pending > self.max_chars:
            self._stop()

    def _cell_text(self) -> str:
        assert self._cell is not None
        return " ".join(" ".join("".join(p) for p in self._cell).split())

    def _paragraph(self) -> str:
        text = "".join(self._text).strip()
        if not text:
            return ""
        level = self.styles.get(self._style)
        if level is not None and level != _LIST:
            return "#" * min(level, 6) + " " + " ".join(text.split())
        if level == _LIST or self._numbered:
            return f"- {text}"
        return text

    def _keep(self, block: str) -> None:
        self._pending = 0
        if block:
            self.blocks.append(block)
            self._kept += len(block) + 2
        if self._kept > self.max_chars:
            raise _Enough

    def _stop(self) -> None:
        """Keep the block that is open as far as it came, and read no further."""
        if _TABLE in self._roles:
            if self._cell is not None:
                self._cells.append(self._cell_text())
            if any(self._cells):
                self._rows.append("| " + " | ".join(self._cells) + " |")
            self.blocks.append("\n".join(self._rows))
        else:
            self.blocks.append(self._paragraph())
        raise _Enough
