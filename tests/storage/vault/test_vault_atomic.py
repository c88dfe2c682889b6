"""A rename that relinks 1,500 notes lands whole (one commit) or not at all, however
the process dies part-way (kill -9 at many points) and wherever the disk fills up:
after a restart the vault is HEAD, and nothing half done is committed as a hand edit.
The rename runs in a child process (tests/storage/vault/crash_child.py)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.vault.journal import JOURNAL_NAME
from tests.storage.vault.crash_child import NEW, OLD
from tests.storage.vault.forked import Children
from tests.storage.vault.vault_support import (
    ANN,
    commit_count,
    git,
    make_vault,
    outside_commit,
    status,
)

pytestmark = pytest.mark.slow  # starts a child process per point of failure

LINKING = 1500
CHILD = "tests.storage.vault.crash_child"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A vault whose note `ideas/target-note.md` is linked from 1,500 notes (by
    wikilink, and every third also by a Markdown link), plus 50 that do not link."""
    root = tmp_path_factory.mktemp("template") / "vault"
    vault = make_vault(root)
    vault.create("ideas", "Target note", "The note everyone links to.", author=ANN)
    for number in range(LINKING):
        body = f"# Note {number}\n\nSee [[target-note]] for more.\n"
        if number % 3 == 0:
            body += '\nAlso [the target](../ideas/target-note.md "tea").\n'
        (root / f"inbox/note-{number:04d}.md").write_text(f"---\ntitle: Note {number}\n---\n{body}")
    for number in range(50):
        (root / f"projects/other-{number}.md").write_text(f"# Other {number}\n\nNo links.\n")
    outside_commit(root, "1,550 notes")
    git(root, "gc", "-q")
    return root


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A folder in memory where there is one: a kill needs no fsync to be real, and
    1,500 fsyncs per run (or a copy of 1,550 files per full disk) on a busy disk would
    make these tests take minutes."""
    shm = Path("/dev/shm")
    if not shm.is_dir():
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="brainbot-crash-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def _copy(template: Path, where: Path) -> Path:
    shutil.copytree(template, where, symlinks=True)
    return where


@pytest.fixture(scope="module")
def children(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Children]:
    started = Children(CHILD, tmp_path_factory.mktemp("children"))
    try:
        yield started
    finally:
        started.close()


def _switch_span(events: list[str]) -> tuple[int, int]:
    """The writes (numbered from 1) that switch the first and the last file: the
    renames after the journal's own."""
    renames = [number for number, event in enumerate(events, 1) if event == "os.rename"]
    return renames[1], renames[-1]


def _whole_or_nothing(root: Path, base: str) -> str:
    """Reopen the vault as `brainbot run` does, sync it, and check that the rename is
    there entirely or not at all; which of the two."""
    vault = make_vault(root)
    assert vault.commit_outside_edits() is None  # no half-done change is a "hand edit"
    linking = [(root / f"inbox/note-{n:04d}.md").read_text() for n in range(LINKING)]
    if vault.head() == base:
        assert (root / OLD).is_file() and not (root / NEW).exists()
        assert all("[[target-note]]" in t and "renamed-note" not in t for t in linking)
        outcome = "not at all"
    else:
        assert git(root, "rev-parse", "HEAD~1").strip() == base
        subject = git(root, "log", "-1", "--format=%s").strip()
        assert subject == f"rename {OLD} -> {NEW} (links in {LINKING} notes)"
        assert (root / NEW).is_file() and not (root / OLD).exists()
        assert all("[[renamed-note]]" in t and "target-note" not in t for t in linking)
        outcome = "whole"
    assert status(root) == ""
    assert [p.name for p in root.rglob("*.bbtmp")] == []
    assert not (root / ".git" / JOURNAL_NAME).exists()
    assert sorted(p.name for p in (root / "projects").iterdir())[:2] == [".gitkeep", "other-0.md"]
    return outcome


def _phases(events: list[str]) -> dict[str, tuple[int, int]]:
    """The writes (numbered from 1) that begin and end each phase of a change after its
    journal is written: staging the new contents, switching the files, and (after HEAD
    moved) dropping the backups and the journal."""
    journal = events.index("os.rename") + 1
    first_switch, last_switch = _switch_span(events)
    if events[first_switch - 2] == "os.link":  # the first switched file's backup
        first_switch -= 1
    return {
        "staging": (journal + 1, first_switch - 1),
        "switching": (first_switch, last_switch),
        "cleanup": (last_switch + 1, len(events)),
    }


@pytest.mark.slow(seconds=20)
def test_a_rename_killed_at_any_point_lands_whole_or_not_at_all(
    template: Path, scratch: Path, children: Children
) -> None:
    """Each point of a sample spread over the whole rename, the first three writes (the
    vault lock, into the journal's) and both ends and the middle of each later phase
    are checked on a copy of the files as a kill there leaves them, all copied in one
    run of the rename (crash_child `copies`). At the lock, in the journal, in the middle
    of each later phase, on both sides of the moment HEAD moves and at the last write,
    a process is also really killed (kill -9): its vault must come out as the copy did."""
    base = git(template, "rev-parse", "HEAD").strip()
    counted = children.run("kill", str(_copy(template, scratch / "counted")), "0")
    assert counted.returncode == 0, counted.stderr
    events = counted.stdout.split()
    assert _whole_or_nothing(scratch / "counted", base) == "whole"
    phases = _phases(events)
    last_switch = phases["switching"][1]
    killed = {1, 3} | {(first + last) // 2 for first, last in phases.values()}
    killed |= {last_switch, last_switch + 1, len(events)}
    points = killed | {point for first, last in phases.values() for point in (first, last)}
    points |= {2} | {1 + len(events) * step // 24 for step in range(24)}

    copies = scratch / "copies"
    done = children.run(
        "copies", str(_copy(template, scratch / "copied")), str(copies), _list(points)
    )
    assert done.returncode == 0 and done.stdout.split() == events, done.stderr
    outcomes = {at: _outcome(copies / str(at), template, base) for at in sorted(points)}
    for at in sorted(killed):
        root = _copy(template, scratch / f"killed-{at}")
        done = children.run("kill", str(root), str(at))
        assert done.returncode == -9, f"at write {at}: {done.returncode} {done.stderr}"
        assert _outcome(root, template, base) == outcomes[at], f"at write {at}"
    # Killed before HEAD moved: undone; killed after: the change is all there.
    assert outcomes[last_switch] == "not at all"
    assert outcomes[last_switch + 1] == "whole"
    assert {outcomes[at] for at in points if at <= last_switch} == {"not at all"}
    assert {outcomes[at] for at in points if at > last_switch} == {"whole"}


def _list(points: set[int]) -> str:
    return ",".join(str(point) for point in sorted(points))


def _outcome(root: Path, template: Path, base: str) -> str:
    """`_whole_or_nothing`, with one commit more than the template if whole; the vault
    is deleted after."""
    outcome = _whole_or_nothing(root, base)
    assert commit_count(root) == commit_count(template) + (outcome == "whole")
    shutil.rmtree(root)
    return outcome


@pytest.fixture
def namespaced(scratch: Path) -> Iterator[Children]:
    """Children each in a process of its own, all in one user and mount namespace
    where they may mount a tmpfs."""
    namespace = ["unshare", "--user", "--map-root-user", "--mount"]
    if subprocess.run([*namespace, "true"], check=False).returncode != 0:
        pytest.skip("user namespaces (unshare) are not available for a tmpfs")
    started = Children(CHILD, scratch, namespace)
    try:
        yield started
    finally:
        started.close()


@pytest.mark.slow(seconds=17)
def test_a_rename_on_a_full_disk_lands_whole_or_not_at_all(
    template: Path, scratch: Path, namespaced: Children
) -> None:
    """A real full disk: a tmpfs in a user namespace, filled until only so much room is
    left; the room that just suffices is found by bisection, then the rename is tried
    with less room at many points below it, down to none (every write failing)."""
    base = git(template, "rev-parse", "HEAD").strip()
    page = 4096
    said: dict[int, str] = {}

    def rename_with(pages: int) -> bool:
        out = scratch / f"free-{pages}" / "vault"
        out.parent.mkdir()
        done = namespaced.run("full", str(template), str(out), str(pages * page))
        assert done.returncode == 0, done.stderr
        said[pages] = done.stdout.strip().splitlines()[-1]
        # As the failure left it, before any restart: HEAD, and nothing half done.
        assert status(out) == "", (pages, said[pages])
        outcome = _whole_or_nothing(out, base)
        assert (outcome == "whole") == (said[pages] == "renamed"), (pages, said[pages])
        shutil.rmtree(out.parent)
        return outcome == "whole"

    low, high = 0, 8192  # pages: too few for certain, and plenty (32 MiB)
    assert not rename_with(low) and rename_with(high)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if rename_with(middle) else (middle, high)
    for pages in [high * n // 8 for n in range(1, 8)] + list(range(high - 6, high)):
        if pages not in said:
            assert not rename_with(pages)
    failures = {text for pages, text in said.items() if pages < high}
    # The disk fills while the new contents are staged, and as HEAD moves.
    assert any(text.startswith("OSError: [Errno 28]") for text in failures), failures
    assert any("history could not be written" in text for text in failures), failures


def test_a_hand_edit_made_after_the_kill_is_kept_and_committed_alone(
    template: Path, scratch: Path, children: Children
) -> None:
    base = git(template, "rev-parse", "HEAD").strip()
    counted = children.run("kill", str(_copy(template, scratch / "counted")), "0")
    events = counted.stdout.split()
    halfway = sum(_switch_span(events)) // 2
    root = _copy(template, scratch / "vault")
    done = children.run("kill", str(root), str(halfway))  # part-way through switching the files
    assert done.returncode == -9, done.stderr
    inbox = [p.read_text() for p in (root / "inbox").glob("*.md")]
    assert 0 < sum("[[renamed-note]]" in text for text in inbox) < LINKING  # half done on disk
    (root / "projects/other-7.md").write_text("# Other 7\n\nEdited in Obsidian meanwhile.\n")

    vault = make_vault(root)
    assert vault.head() == base  # the rename is undone...
    outside = vault.commit_outside_edits()
    assert outside is not None and outside.paths == ("projects/other-7.md",)  # ...the edit kept
    assert (root / OLD).is_file() and not (root / NEW).exists()
    assert status(root) == ""


def test_an_undo_of_the_rename_killed_part_way_lands_whole_or_not_at_all(
    template: Path, scratch: Path, children: Children
) -> None:
    base_tree = git(template, "rev-parse", "HEAD^{tree}").strip()
    counted = children.run("kill", str(_copy(template, scratch / "counted")), "0", "undo")
    assert counted.returncode == 0, counted.stderr
    events = counted.stdout.split()
    first_switch, last_switch = _switch_span(events)
    halfway = (first_switch + last_switch) // 2
    for at in (3, halfway, last_switch, last_switch + 1):
        root = _copy(template, scratch / f"killed-{at}")
        assert children.run("kill", str(root), str(at), "undo").returncode == -9
        vault = make_vault(root)
        assert vault.commit_outside_edits() is None
        subject = git(root, "log", "-1", "--format=%s").strip()
        undone = at > last_switch
        assert subject.startswith("undo " if undone else f"rename {OLD}"), (at, subject)
        assert (git(root, "rev-parse", "HEAD^{tree}").strip() == base_tree) == undone
        assert (root / OLD).is_file() == undone and (root / NEW).is_file() != undone
        linking = [(root / f"inbox/note-{n:04d}.md").read_text() for n in range(LINKING)]
        wanted = "[[target-note]]" if undone else "[[renamed-note]]"
        assert all(wanted in text for text in linking), at
        assert status(root) == ""
        shutil.rmtree(root)


def test_an_import_killed_part_way_lands_whole_or_not_at_all(
    template: Path, scratch: Path, children: Children
) -> None:
    source = scratch / "obsidian"
    for number in range(300):
        (source / f"journal/{number // 100}").mkdir(parents=True, exist_ok=True)
        (source / f"journal/{number // 100}/day-{number}.md").write_text(f"# Day {number}\n")
    base = git(template, "rev-parse", "HEAD").strip()
    counted = children.run("kill", str(_copy(template, scratch / "counted")), "0", str(source))
    assert counted.returncode == 0, counted.stderr
    events = counted.stdout.split()
    first_switch, last_switch = _switch_span(events)
    halfway = (first_switch + last_switch) // 2
    for at in (3, halfway, last_switch, last_switch + 1):
        root = _copy(template, scratch / f"killed-{at}")
        assert children.run("kill", str(root), str(at), str(source)).returncode == -9
        vault = make_vault(root)
        assert vault.commit_outside_edits() is None
        imported = sorted(p.name for p in root.glob("journal/*/*.md"))
        if at > last_switch:
            assert git(root, "log", "-1", "--format=%s").strip().startswith("import 300 notes")
            assert len(imported) == 300
        else:
            assert vault.head() == base and imported == [] and not (root / "journal").exists()
        assert status(root) == ""
        assert [p.name for p in root.rglob("*.bbtmp")] == []
        shutil.rmtree(root)


def _copied_at(template: Path, scratch: Path, children: Children, point: str) -> Path:
    """The rename's files as a kill at the start of a phase leaves them ("switching":
    every new content staged and synced, no file switched)."""
    counted = children.run("kill", str(_copy(template, scratch / "counted")), "0")
    at = _phases(counted.stdout.split())[point][0]
    done = children.run("copies", str(_copy(template, scratch / "copied")), str(scratch), str(at))
    assert done.returncode == 0, done.stderr
    return scratch / str(at)


def test_a_journal_a_power_cut_left_empty_changes_nothing(
    template: Path, scratch: Path, children: Children
) -> None:
    """The journal is put in place, then synced side by side with the staged contents,
    and no file is switched before both are on the disk: a power cut in between may
    leave its name without its content (and staged contents empty), never a switched
    file. Such a journal is set aside, and the vault stays as HEAD has it."""
    base = git(template, "rev-parse", "HEAD").strip()
    root = _copied_at(template, scratch, children, "switching")
    journal = root / ".git" / JOURNAL_NAME
    assert journal.is_file()
    journal.write_bytes(b"")
    for temp in list((root / "inbox").glob(".*.bbtmp"))[:10]:
        temp.write_bytes(b"")

    vault = make_vault(root)
    assert vault.head() == base
    assert vault.commit_outside_edits() is None
    assert (root / OLD).is_file() and not (root / NEW).exists()
    linking = [(root / f"inbox/note-{n:04d}.md").read_text() for n in range(LINKING)]
    assert all("[[target-note]]" in text and "renamed-note" not in text for text in linking)
    assert status(root) == "" and not journal.exists()


def test_a_kill_before_the_journal_is_in_place_leaves_no_stray_file(
    template: Path, scratch: Path, children: Children
) -> None:
    """Killed with the journal written to its temp file but not yet renamed into place
    (no note touched yet), the vault's next opening leaves nothing behind in `.git`."""
    base = git(template, "rev-parse", "HEAD").strip()
    counted = children.run("kill", str(_copy(template, scratch / "counted")), "0")
    put_in_place = counted.stdout.split().index("os.rename") + 1
    root = _copy(template, scratch / "killed")
    assert children.run("kill", str(root), str(put_in_place)).returncode == -9
    assert [p.name for p in (root / ".git").glob("*.bbtmp")] != []  # what the kill left

    assert _whole_or_nothing(root, base) == "not at all"  # no *.bbtmp anywhere after
