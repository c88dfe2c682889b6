"""Which Authentication-Results make a From line believable: the receiving server's
own (the topmost one naming BRAINBOT_IMAP_AUTHSERV_ID), read as RFC 8601 writes it,
with a pass for the From address's domain."""

from __future__ import annotations

from bot.mail import TOPMOST, authenticated, authserv_id_of

ADA = "ada@example.org"
MX = "mx.example.net"


def test_a_pass_for_the_senders_domain_is_believed() -> None:
    for result in (
        "mx.example.net; dkim=pass header.d=example.org header.s=s1",
        "mx.example.net; spf=pass smtp.mailfrom=ada@example.org",
        "mx.example.net; dmarc=pass (p=reject) header.from=example.org",
        "mx.example.net 1; dkim=pass (2048-bit key) header.d=mail.example.org",
        "mx.example.net;\r\n\tdkim=fail header.d=example.org;\r\n\tspf=pass"
        " smtp.mailfrom=example.org",
        'mx.example.net; spf=pass smtp.mailfrom="ada lovelace"@example.org',
        "mx.example.net; dkim/1=pass header.i=@example.org",
        '"mx.example.net" (our (nested) gateway); dkim=pass header.d="example.org"',
    ):
        assert authenticated([result], ADA, authserv_id=MX).trusted, result


def test_anything_else_is_not() -> None:
    for results in (
        [],
        ["mx.example.net; none"],
        ["mx.example.net; dkim=fail header.d=example.org; spf=softfail smtp.mailfrom=example.org"],
        ["mx.example.net; dkim=pass header.d=example.com"],  # someone else's domain
        ["mx.example.net; dkim=pass header.d=notexample.org"],
        ["mx.example.net; spf=pass smtp.mailfrom=ada@attacker.example"],
        ["mx.example.net; dkim=pass (header.d=example.org) header.d=attacker.example"],
        # The sender's own header lies below the server's: only the topmost counts.
        ["mx.example.net; spf=fail", "mx.example.net; dkim=pass header.d=example.org"],
    ):
        assert not authenticated(results, ADA, authserv_id=MX).trusted, results


def test_a_quoted_string_is_one_value_whatever_it_holds() -> None:
    """RFC 8601's values may be quoted strings (a quoted local part before `@`): what
    is inside is never read as more results or properties."""
    for tricked in (
        'mx.example.net; spf=pass smtp.mailfrom="x smtp.mailfrom=@example.org y"@attacker.example',
        'mx.example.net; spf=pass smtp.mailfrom="a;dkim=pass header.d=example.org"@evil.example',
        'mx.example.net; dkim=pass header.d=attacker.example reason="header.d=example.org"',
        'mx.example.net; spf=pass smtp.mailfrom="@example.org"@attacker.example',
        "mx.example.net; dkim=pass (a comment (header.d=example.org) nested) header.d=x.example",
        'mx.example.net; spf=pass smtp.mailfrom="unclosed @example.org',
        "mx.example.net; dkim=pass header.d=example.org (unclosed",
    ):
        assert not authenticated([tricked], ADA, authserv_id=MX).trusted, tricked


def test_only_the_named_servers_header_counts() -> None:
    fake_on_top = ["relay.example; dkim=pass header.d=example.org", "mx.example.net; dkim=fail"]
    assert not authenticated(fake_on_top, ADA, authserv_id=MX).trusted
    below = ["relay.example; none", "MX.example.net.; dkim=pass header.d=example.org"]
    assert authenticated(below, ADA, authserv_id=MX).trusted
    verdict = authenticated(
        ["relay.example; dkim=pass header.d=example.org"], ADA, authserv_id="mx"
    )
    assert not verdict.trusted and "from mx" in verdict.why
    # A header written as if by the server, but inside a quoted string of another one.
    quoted = ['relay.example; x="mx.example.net; dkim=pass header.d=example.org"']
    assert not authenticated(quoted, ADA, authserv_id=MX).trusted


def test_a_header_without_an_authserv_id_counts_only_as_the_topmost() -> None:
    """Microsoft 365 starts its header with the first result: `topmost` names it."""
    office = (
        "spf=pass (sender IP is 192.0.2.1) smtp.mailfrom=example.org; dkim=none (message "
        "not signed) header.d=none;dmarc=bestguesspass action=none header.from=example.org;"
    )
    assert authserv_id_of(office) is None
    assert authenticated([office], ADA, authserv_id=TOPMOST).trusted
    assert not authenticated([office], ADA, authserv_id=MX).trusted
    assert authserv_id_of("mx.example.net 1; none") == MX
