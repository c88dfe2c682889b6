"""Whether a mail's From line can be believed: the receiving server's
`Authentication-Results` (RFC 8601) must say DKIM, SPF or DMARC passed for the
From address's domain.

Anyone can write `From: ada@example.org`, and anyone can add an
`Authentication-Results` header of their own before sending. So only the header of
the receiving server counts: the topmost one that names it (its authserv-id, the
header's first word, BRAINBOT_IMAP_AUTHSERV_ID); the server adds its own on top of
what arrived and removes any that claim its name (RFC 8601, section 5). Microsoft 365
names itself in none: TOPMOST makes the topmost header count, whoever wrote it.

A header is read as RFC 8601 writes it: comments (nested) are left out, and a quoted
string is one value, whatever it holds (`smtp.mailfrom="a smtp.mailfrom=@example.org
b"@attacker.example` is the attacker's domain).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

TOPMOST = "topmost"  # the setting's word for "the topmost header, whoever wrote it"
_PUNCTUATION = ";="


@dataclass(frozen=True, slots=True)
class Verdict:
    trusted: bool
    why: str


class _Unclosed(Exception):
    """A quoted string or a comment that does not end."""


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    punctuation: bool = False


def authenticated(results: Sequence[str], address: str, *, authserv_id: str) -> Verdict:
    """Whether `results` (the mail's Authentication-Results headers, top first) show a
    pass of DKIM (header.d), SPF (smtp.mailfrom) or DMARC (header.from) for the
    domain of `address`, in the header of the server `authserv_id` names."""
    domain = _domain(address.rpartition("@")[2])
    header = _the_receivers(results, authserv_id)
    if header is None:
        where = "" if authserv_id.lower() == TOPMOST else f" from {authserv_id}"
        return Verdict(False, f"it has no Authentication-Results header{where}")
    passed = [
        method
        for method, result, props in results_of(header)
        if result == "pass" and _aligned(_domain_of(method, props), domain)
    ]
    if passed:
        return Verdict(True, f"{passed[0]}=pass for {domain}")
    return Verdict(False, f"its Authentication-Results show no DKIM or SPF pass for {domain}")


def authserv_id_of(header: str) -> str | None:
    """The server a header names (its first word), None when it names none."""
    clauses = _clauses(header)
    first = clauses[0] if clauses else []
    if not first or first[0].punctuation or (len(first) > 1 and first[1].text == "="):
        return None  # Microsoft 365 starts with the first result
    return first[0].text


def results_of(header: str) -> list[tuple[str, str, dict[str, str]]]:
    """(method, result, properties) of each result in one header, lower case."""
    clauses = _clauses(header)
    start = 0 if clauses and authserv_id_of(header) is None else 1
    found = []
    for clause in clauses[start:]:
        pairs = list(_pairs(clause))
        if not pairs:
            continue  # "none", or a clause that is not a result
        (method, result), *props = pairs
        # `dkim/1=pass`: the method's version is no part of its name.
        name = method.partition("/")[0].strip().lower()
        found.append((name, result.lower(), {k.lower(): v.lower() for k, v in props}))
    return found


def _the_receivers(results: Sequence[str], authserv_id: str) -> str | None:
    wanted = _domain(authserv_id)
    for header in results:
        if wanted == TOPMOST or _domain(authserv_id_of(header) or "") == wanted:
            return header
    return None


def _clauses(header: str) -> list[list[_Token]]:
    """The header's tokens, split at each `;` outside quotes and comments; none for a
    header with an unclosed quote or comment (no server writes one)."""
    clauses: list[list[_Token]] = [[]]
    try:
        tokens = list(_tokens(header))
    except _Unclosed:
        return []
    for token in tokens:
        if token.punctuation and token.text == ";":
            clauses.append([])
        else:
            clauses[-1].append(token)
    return clauses


def _pairs(clause: list[_Token]) -> Iterator[tuple[str, str]]:
    """Each `key=value` of a clause, in order."""
    i = 0
    while i + 2 < len(clause):
        key, equals, value = clause[i : i + 3]
        if equals.punctuation and equals.text == "=" and not (key.punctuation or value.punctuation):
            yield key.text, value.text
            i += 3
        else:
            i += 1


def _tokens(header: str) -> Iterator[_Token]:
    """Words (a quoted string glued to what touches it is part of the word: a quoted
    local part and its `@domain`), `;` and `=`; whitespace and comments separate."""
    word: list[str] = []
    i, end = 0, len(header)
    while i < end:
        char = header[i]
        if char == '"':
            quoted, i = _quoted(header, i)
            word.append(quoted)
            continue
        if char.isspace() or char == "(" or char in _PUNCTUATION:
            if word:
                yield _Token("".join(word))
                word = []
            if char == "(":
                i = _after_comment(header, i)
                continue
            if char in _PUNCTUATION:
                yield _Token(char, punctuation=True)
        else:
            word.append(char)
        i += 1
    if word:
        yield _Token("".join(word))


def _quoted(header: str, start: int) -> tuple[str, int]:
    """The text of the quoted string at `start`, and where it ends; `\\` quotes the
    next character."""
    text: list[str] = []
    i = start + 1
    while i < len(header):
        char = header[i]
        if char == "\\" and i + 1 < len(header):
            text.append(header[i + 1])
            i += 2
            continue
        if char == '"':
            return "".join(text), i + 1
        text.append(char)
        i += 1
    raise _Unclosed


def _after_comment(header: str, start: int) -> int:
    """Where the comment at `start` ends (comments nest; `\\` quotes)."""
    depth, i = 0, start
    while i < len(header):
        char = header[i]
        if char == "\\":
            i += 2
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise _Unclosed


def _domain_of(method: str, props: dict[str, str]) -> str:
    if method == "dkim":
        signed = props.get("header.d") or props.get("header.i", "").rpartition("@")[2]
    elif method == "spf":
        signed = (props.get("smtp.mailfrom") or props.get("smtp.helo", "")).rpartition("@")[2]
    elif method == "dmarc":
        signed = props.get("header.from", "").rpartition("@")[2]
    else:
        signed = ""
    return _domain(signed)


def _domain(name: str) -> str:
    return name.strip().rstrip(".").lower()


def _aligned(signed: str, domain: str) -> bool:
    """The domain that passed is the sender's, or one it belongs to (`mail.example.org`
    signs for `example.org` and the other way round, as DMARC's relaxed rule has it)."""
    if not signed or not domain:
        return False
    return signed == domain or domain.endswith("." + signed) or signed.endswith("." + domain)
