"""Two processes on one database and one data folder, events spread over them and
some delivered twice to both: every message is filed exactly once, in its sender's
own vault (the full-size run with throughput figures is `python -m bench.processes`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.production.conftest import Fakes
from tests.production.fleet import run_fleet

pytestmark = pytest.mark.slow  # starts brainbot processes


async def test_two_processes_file_every_message_once_in_its_senders_vault(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    run = await run_fleet(
        tmp_path,
        database_url,
        fakes,
        processes=2,
        people=12,
        conversations=6,
        per_conversation=6,
        duplicate_every=3,
    )
    assert run.misfiled == []
    assert run.messages == 36 and run.deliveries == 48
