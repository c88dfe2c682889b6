"""Whether a mail's From line can be believed: the receiving server's
`Authentication-Results` (RFC 8601) must say DKIM, SPF or DMARC passed for the
From address's domain.

Anyone can write `From: ada@example.org`, and anyone can add an
`Authentication-Results` header of their own before sending. The receiving server
adds its own on top of what arrived, so only the topmost counts; with
BRAINBOT_IMAP_AUTHSERV_ID the topmost one that names that server (its authserv-id,
the first word of the header) counts, for a setup where something else adds
headers after it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_COMMENT = re.compile(r"\([^()]*\)")


@dataclass(frozen=True, slots=True)
class Verdict:
    trusted: bool
    why: str


def authenticated(
    results: Sequence[str], address: str, *, authserv_id: str | None = None
) -> Verdict:
    """Whether `results` (the mail's Authentication-Results headers, top first) show a
    pass of DKIM (header.d), SPF (smtp.mailfrom) or DMARC (header.from) for the
    domain of `address`."""
    domain = address.rpartition("@")[2].lower()
    header = _the_receivers(results, authserv_id)
    if header is None:
        where = f" from {authserv_id}" if authserv_id else ""
        return Verdict(False, f"it has no Authentication-Results header{where}")
    passed = [
        method
        for method, result, props in _results(header)
        if result == "pass" and _aligned(_domain_of(method, props), domain)
    ]
    if passed:
        return Verdict(True, f"{passed[0]}=pass for {domain}")
    return Verdict(False, f"its Authentication-Results show no DKIM or SPF pass for {domain}")


def _the_receivers(results: Sequence[str], authserv_id: str | None) -> str | None:
    for header in results:
        first = _COMMENT.sub(" ", header).split(";", 1)[0].split()
        if authserv_id is None or (first and first[0].lower() == authserv_id.lower()):
            return header
    return None


def _results(header: str) -> list[tuple[str, str, dict[str, str]]]:
    """(method, result, properties) of each result in one header."""
    found = []
    clauses = _COMMENT.sub(" ", header).split(";")
    first = clauses[0].split()
    # The authserv-id comes first; Microsoft 365 leaves it out and starts with a result.
    start = 0 if first and "=" in first[0] else 1
    for clause in clauses[start:]:
        words = clause.split()
        if not words or "=" not in words[0]:
            continue
        method, _, result = words[0].partition("=")
        props = {}
        for word in words[1:]:
            key, eq, value = word.partition("=")
            if eq:
                props[key.lower()] = value.strip('"').lower()
        found.append((method.lower(), result.lower(), props))
    return found


def _domain_of(method: str, props: dict[str, str]) -> str:
    if method == "dkim":
        return props.get("header.d") or props.get("header.i", "").rpartition("@")[2]
    if method == "spf":
        return (props.get("smtp.mailfrom") or props.get("smtp.helo", "")).rpartition("@")[2]
    if method == "dmarc":
        return props.get("header.from", "").rpartition("@")[2]
    return ""


def _aligned(signed: str, domain: str) -> bool:
    """The domain that passed is the sender's, or one it belongs to (`mail.example.org`
    signs for `example.org` and the other way round, as DMARC's relaxed rule has it)."""
    if not signed or not domain:
        return False
    return signed == domain or domain.endswith("." + signed) or signed.endswith("." + domain)
