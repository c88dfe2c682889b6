"""Task lines: an item names a task by its words; ticking touches only its box."""

from __future__ import annotations

import pytest

from bot.tools.tasklist import TaskMatchError, only_ticks, tick

LIST = """# Shopping

- [ ] milk
- [ ] Eggs (free range)
- [x] oat milk
* [ ] green tea
1. [X] steak
Remember the bags.
"""


def test_ticking_changes_only_the_boxes_of_the_named_tasks() -> None:
    ticked = tick(LIST, ["Milk", "eggs"], done=True)
    assert ticked.changed == ("milk", "Eggs (free range)")
    assert ticked.body == LIST.replace("- [ ] milk", "- [x] milk").replace(
        "- [ ] Eggs", "- [x] Eggs"
    )
    assert only_ticks(LIST, ticked.body) == ["milk", "Eggs (free range)"]


def test_unticking_and_other_list_markers() -> None:
    ticked = tick(LIST, ["oat milk", "steak"], done=False)
    assert ticked.changed == ("oat milk", "steak")
    assert "- [ ] oat milk" in ticked.body and "1. [ ] steak" in ticked.body
    assert tick(LIST, ["tea"], done=True).body.count("* [x] green tea") == 1


def test_an_exact_name_wins_and_the_state_decides_between_the_others() -> None:
    # "milk" is a task of its own, though "oat milk" contains it.
    assert tick(LIST, ["milk"], done=True).changed == ("milk",)
    # Both contain "milk", but only "milk" is still open.
    assert tick(LIST, ["milk ", "- [ ] milk"], done=True).changed == ("milk",)
    both_open = "- [ ] oat milk\n- [ ] milk chocolate\n"
    with pytest.raises(TaskMatchError, match=r'"milk" matches several tasks: "oat milk"'):
        tick(both_open, ["milk"], done=True)


def test_an_item_that_names_no_task_lists_the_tasks() -> None:
    with pytest.raises(TaskMatchError, match=r'no task matches "bread"; the tasks are: "milk"'):
        tick(LIST, ["bread"], done=True)
    with pytest.raises(TaskMatchError, match="no task lines"):
        tick("Just text.\n", ["milk"], done=True)
    # A word is a word: "tea" is not in "steak".
    with pytest.raises(TaskMatchError):
        tick("- [ ] steak\n", ["tea"], done=True)


def test_a_task_already_so_is_reported_not_changed() -> None:
    ticked = tick(LIST, ["oat milk", "egg"], done=True)
    assert ticked.changed == ("Eggs (free range)",)
    assert ticked.already == ("oat milk",)


def test_only_ticks_refuses_any_other_edit() -> None:
    assert only_ticks(LIST, LIST + "\n\n") == []
    assert only_ticks(LIST, LIST.replace("- [ ] milk", "- [ ] milkshake")) is None
    assert only_ticks(LIST, LIST.replace("- [ ] milk", "- [x] milk2")) is None
    assert only_ticks(LIST, LIST.replace("Remember", "Forget")) is None
    assert only_ticks(LIST, LIST + "- [ ] bread\n") is None
    assert only_ticks(LIST, LIST.replace("- [x] oat", "- [X] oat")) is None
