"""Code is blanked the same length, so what is found in the rest is at the same place:
fenced (``` or ~~~), inline (any run of backticks), indented after a blank line."""

from __future__ import annotations

from storage.text.code import without_code


def test_each_kind_of_code_is_blanked_in_place() -> None:
    text = "a `b` c\n\n```\nfenced\n```\n\n    indented\n\n- list\n    nested item\n~~~\nopen"
    masked = without_code(text)
    assert len(masked) == len(text) and masked.count("\n") == text.count("\n")
    assert "b" not in masked.split("\n")[0] and "fenced" not in masked
    assert "indented" not in masked and "nested item" in masked and "open" not in masked


def test_an_unclosed_backtick_is_text() -> None:
    assert without_code("it`s fine") == "it`s fine"
    assert without_code("``a` b``").strip() == ""
