"""Which Authentication-Results make a From line believable: the receiving server's
own (the topmost, or the one naming BRAINBOT_IMAP_AUTHSERV_ID), with a pass for the
From address's domain."""

from __future__ import annotations

from bot.mail import authenticated

ADA = "ada@example.org"


def test_a_pass_for_the_senders_domain_is_believed() -> None:
    for result in (
        "mx.example.net; dkim=pass header.d=example.org header.s=s1",
        "mx.example.net; spf=pass smtp.mailfrom=ada@example.org",
        "mx.example.net; dmarc=pass (p=reject) header.from=example.org",
        "mx.example.net 1; dkim=pass (2048-bit key) header.d=mail.example.org",
        "mx.example.net;\r\n\tdkim=fail header.d=example.org;\r\n\tspf=pass"
        " smtp.mailfrom=example.org",
    ):
        assert authenticated([result], ADA).trusted, result


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
        assert not authenticated(results, ADA).trusted, results


def test_an_authserv_id_picks_the_servers_header() -> None:
    fake_on_top = ["relay.example; dkim=pass header.d=example.org", "mx.example.net; dkim=fail"]
    assert authenticated(fake_on_top, ADA).trusted  # the topmost, without the setting
    assert not authenticated(fake_on_top, ADA, authserv_id="mx.example.net").trusted
    below = ["relay.example; none", "MX.example.net; dkim=pass header.d=example.org"]
    assert authenticated(below, ADA, authserv_id="mx.example.net").trusted
    verdict = authenticated(
        ["relay.example; dkim=pass header.d=example.org"], ADA, authserv_id="mx"
    )
    assert not verdict.trusted and "from mx" in verdict.why


def test_a_header_without_an_authserv_id_is_read_too() -> None:
    """Microsoft 365 starts its header with the first result."""
    office = (
        "spf=pass (sender IP is 192.0.2.1) smtp.mailfrom=example.org; dkim=none (message "
        "not signed) header.d=none;dmarc=bestguesspass action=none header.from=example.org;"
    )
    assert authenticated([office], ADA).trusted
