"""The one tokenizer the index and the queries share.

Unicode words, case-folded, with accents on Latin letters folded away (`café` and
`cafe` meet) and no stemming, so notes in any language tokenize alike. Runs of
Chinese, Japanese or Korean characters have no spaces between words; they become
overlapping character pairs, the usual trick for indexing them without a dictionary.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

MAX_TOKEN_CHARS = 64  # longer "words" are base64 blobs or hashes, useless to search
_WORD = re.compile(r"\w+")
_LATIN_MARKS = re.compile(r"(?<=[a-z])[\u0300-\u036f]+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def fold(text: str) -> str:
    """Lower-case `text` and drop accents on Latin letters; other scripts keep their marks."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return unicodedata.normalize("NFC", _LATIN_MARKS.sub("", decomposed))


def _split_cjk(word: str) -> list[str]:
    if len(word) < 2:
        return [word]
    return [word[i : i + 2] for i in range(len(word) - 1)]


def tokenize(text: str) -> list[str]:
    """The searchable terms of `text`, in order, duplicates kept."""
    return folded_terms(text)[1]


def folded_terms(text: str) -> tuple[str, list[str]]:
    """`text` folded (`fold`) and its searchable terms (`tokenize`), for a caller that
    needs both."""
    folded = fold(text)
    words = _WORD.findall(folded)
    if folded.isascii():
        return folded, [w for w in words if len(w) <= MAX_TOKEN_CHARS]
    out: list[str] = []
    for word in words:
        if len(word) > MAX_TOKEN_CHARS:
            continue
        if _CJK.search(word):
            out.extend(_split_cjk(word))
        else:
            out.append(word)
    return folded, out


def note_terms(searchable: str, shown: str) -> tuple[Counter[str], int, str]:
    """What the index keeps of a note's words, in one go: the term counts of its
    `searchable` text and its length in terms (the BM25 document length), and its
    `shown` text folded (`fold`, for the `simple` tsvector)."""
    terms = tokenize(searchable)
    return Counter(terms), len(terms), fold(shown)


def like_prefix(word: str) -> str:
    """A LIKE pattern matching the terms that start with `word`."""
    escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"
