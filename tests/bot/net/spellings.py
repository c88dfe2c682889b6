"""Spellings of one address that a URL library reads as that address: the loopback
address and the cloud metadata address, as a hostile link, redirect or note writes
them. Non-ASCII characters are built from their code points, so the source shows
which they are."""

from __future__ import annotations

FULL_WIDTH_ZERO = 0xFF10  # FULLWIDTH DIGIT ZERO
MATH_BOLD_ZERO = 0x1D7CE  # MATHEMATICAL BOLD DIGIT ZERO
IDEOGRAPHIC_STOP = "\u3002"
HALF_WIDTH_IDEOGRAPHIC_STOP = "\uff61"
FULL_WIDTH_STOP = "\uff0e"


def digits(text: str, zero: int) -> str:
    """`text` with its ASCII digits replaced by those of another script."""
    return "".join(chr(zero + int(c)) if c.isdigit() else c for c in text)


def _spellings(dotted: str, decimal: str, octal: str) -> dict[str, str]:
    return {
        "full-width digits": digits(dotted.split(".")[0], FULL_WIDTH_ZERO)
        + dotted[dotted.index(".") :],
        "all full-width digits": digits(dotted, FULL_WIDTH_ZERO),
        "ideographic full stops": dotted.replace(".", IDEOGRAPHIC_STOP),
        "half-width ideographic full stops": dotted.replace(".", HALF_WIDTH_IDEOGRAPHIC_STOP),
        "full-width full stops": dotted.replace(".", FULL_WIDTH_STOP),
        "mathematical bold digits": digits(dotted, MATH_BOLD_ZERO),
        "decimal": decimal,
        "octal": octal,
        "IPv4-mapped IPv6": f"[::ffff:{dotted}]",
        "trailing dot": f"{dotted}.",
    }


LOOPBACK = {
    **_spellings("127.0.0.1", "2130706433", "0177.0.0.1"),
    "hexadecimal": "0x7f.0.0.1",
    "short": "127.1",
    "IPv6 loopback": "[::1]",
    "localhost with a trailing dot": "localhost.",
    "a name that resolves to loopback": "localhost",
    "full-width localhost": "".join(chr(0xFEE0 + ord(c)) for c in "localhost"),
}

METADATA = {
    "plain": "169.254.169.254",
    **_spellings("169.254.169.254", "2852039166", "0251.0376.0251.0376"),
    "ECS task metadata": "169.254.170.2",
    "AWS over IPv6": "[fd00:ec2::254]",
}
