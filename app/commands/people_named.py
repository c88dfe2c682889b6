"""The person a command line names (`--user`, `brainbot token PERSON`): a user id or
platform:id, else the only one; an error that lists the people by name and account."""

from __future__ import annotations

from storage.db import Person, Records


class UsageError(Exception):
    """The command line names no usable person."""


async def find_person(records: Records, wanted: str | None) -> Person | None:
    """The person `--user` names (a user id or platform:id), else the only one."""
    people = await records.people.all()
    if wanted is None:
        if len(people) > 1:
            known = await _known(records, people)
            raise UsageError(f"several people use this brainbot; pick one with --user: {known}")
        return people[0] if people else None
    if wanted.isdigit():
        found = [p for p in people if p.id == int(wanted)]
        if found:
            return found[0]
    elif ":" in wanted:
        platform, _, platform_id = wanted.partition(":")
        person = await records.people.person_for(platform, platform_id)
        if person is not None:
            return person
    if not people:
        raise UsageError(f"no person {wanted!r}: nobody has used this brainbot yet")
    raise UsageError(f"no person {wanted!r}; the people are: {await _known(records, people)}")


async def _known(records: Records, people: list[Person]) -> str:
    """Each person as a reader finds them, with what names them on the command line:
    "Ada Lovelace (user 1, telegram:42)"."""
    described = []
    for person in people:
        accounts = [
            f"{i.platform}:{i.platform_user_id}"
            for i in await records.people.identities_of(person.id)
        ]
        described.append(f"{person.name} (user {', '.join([str(person.id), *accounts])})")
    return "; ".join(described)
