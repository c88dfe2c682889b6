"""Property tests: what is written is what is read back, through the file format and
through the vault (create, update, move)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from storage.errors import NothingToChange
from storage.vault.notefile import parse_note, render_note
from storage.vault.schema import CATEGORY_FIELDS, COMMON_FIELDS, is_empty
from storage.vault.vault import Vault
from tests.storage.vault.vault_support import ANN, CATEGORIES, make_vault, status

RESERVED = {"source", *COMMON_FIELDS} | {name for f in CATEGORY_FIELDS.values() for name in f}
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True).filter(lambda n: n not in RESERVED)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=40),
    st.dates(),
    st.datetimes(timezones=st.just(UTC)),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(NAMES, inner, max_size=4),
    max_leaves=8,
)
FIELDS = st.dictionaries(NAMES, VALUES, max_size=5)
BODIES = st.text(max_size=300)
TITLES = st.text(max_size=60).filter(lambda t: t.strip() != "")
SETTINGS = settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _assert_kept_unless_empty(written: Mapping[str, Any], given: Mapping[str, Any]) -> None:
    """A new note keeps every field it was given that holds something, and writes no
    empty property (Obsidian would show `null`)."""
    for name, value in given.items():
        if is_empty(value):
            assert name not in written
        else:
            assert written[name] == value
    assert not any(is_empty(value) for value in written.values())


@pytest.fixture(scope="module")
def vault() -> Iterator[Vault]:
    # One vault for all examples: each example's notes get their own (suffixed) paths.
    with tempfile.TemporaryDirectory() as scratch:
        yield make_vault(Path(scratch) / "vault")


@settings(max_examples=200, deadline=None)
@given(fields=FIELDS, body=BODIES)
def test_the_file_format_round_trips(fields: dict[str, Any], body: str) -> None:
    parsed = parse_note(render_note(fields, body))
    assert parsed.error is None
    assert parsed.fields == fields
    assert parsed.body == body


@SETTINGS
@given(
    category=st.sampled_from(CATEGORIES),
    title=TITLES,
    body=BODIES,
    fields=FIELDS,
    tags=st.lists(st.text(min_size=1, max_size=10), max_size=3),
)
def test_create_then_read_returns_what_was_written(
    vault: Vault, category: str, title: str, body: str, fields: dict[str, Any], tags: list[str]
) -> None:
    written = vault.create(category, title, body, {**fields, "tags": tags}, author=ANN)
    assert written.entry is not None
    entry = vault.read(written.entry.path)
    assert entry == written.entry
    assert entry.path.startswith(f"{category}/") and entry.category == category
    assert entry.title == title
    assert entry.body == body
    assert list(entry.tags) == tags
    _assert_kept_unless_empty(entry.fields, fields)


@SETTINGS
@given(original=FIELDS, changes=FIELDS, body=st.none() | BODIES, data=st.data())
def test_update_preserves_the_fields_it_was_not_given(
    vault: Vault,
    original: dict[str, Any],
    changes: dict[str, Any],
    body: str | None,
    data: st.DataObject,
) -> None:
    created = vault.create("projects", "Update me", "the body", original)
    assert created.entry is not None
    before = dict(created.entry.fields)
    # An empty field is never written, so only what the note holds can be removed.
    removable = sorted(name for name in set(original) - set(changes) if name in before)
    remove = data.draw(
        st.lists(st.sampled_from(removable), unique=True) if removable else st.just([])
    )
    try:
        written = vault.update(
            created.entry.path, fields=changes, body=body, remove_fields=remove, author=ANN
        )
    except NothingToChange:
        assert not remove and body in (None, "the body")
        assert all(before.get(name) == value for name, value in changes.items())
        return
    assert written.entry is not None
    after = vault.read(created.entry.path)
    assert after == written.entry
    for name, value in before.items():
        if name in remove:
            assert name not in after.fields
        elif name in changes:
            assert after.fields.get(name) == changes[name]  # None clears it
        elif name != "updated":
            assert after.fields[name] == value
    assert after.body == ("the body" if body is None else body)


@SETTINGS
@given(
    start=st.sampled_from(CATEGORIES),
    target=st.sampled_from(CATEGORIES),
    body=BODIES,
    fields=FIELDS,
)
def test_move_changes_the_path_and_keeps_the_body(
    vault: Vault, start: str, target: str, body: str, fields: dict[str, Any]
) -> None:
    if start == target:
        return
    created = vault.create(start, "Move me", body, fields)
    assert created.entry is not None
    moved = vault.move(created.entry.path, target, author=ANN)
    assert moved.entry is not None
    assert moved.entry.path.startswith(f"{target}/")
    assert not (vault.root / created.entry.path).exists()
    entry = vault.read(moved.entry.path)
    assert entry.body == body
    assert entry.fields["id"] == created.entry.fields["id"]
    _assert_kept_unless_empty(entry.fields, fields)
    assert status(vault.root) == ""
