"""An applied step of several statements whose statements are now in steps that would run
(issue 21, review21g P1): the file gone and its group or BEGIN/COMMIT block split into new
files, or the step kept with part of its text moved to a new file. Forgetting or accepting
the applied row would let up run those statements again, so repair refuses it, and
``matching.Texts.runs`` is the lookup that finds them. Pure: migrations built from text,
journal rows from the texts that ran."""

from __future__ import annotations

from pathlib import Path

import pytest

from safemigrate.core.errors import BadInputError
from safemigrate.core.model import JournalEntry, Migration
from safemigrate.planning import named_edit
from safemigrate.planning.matching import Texts
from safemigrate.planning.pending import MigrationStatus, repairs_of, statuses
from safemigrate.planning.safer_forms import build_steps

TABLE = "CREATE TABLE acc (id int PRIMARY KEY, n int);\n"
A = "UPDATE acc SET n = n + 10;\n"
B = "UPDATE acc SET n = n + 1;\n"
START, END = "-- safemigrate: group-start\n", "-- safemigrate: group-end\n"
GROUP = START + A + B + END
BLOCK = "BEGIN;\n" + A + B + "COMMIT;\n"


def _files(files: dict[str, str]) -> list[Migration]:
    out = []
    for name, sql in sorted(files.items()):
        path = Path("/m") / name
        steps = tuple(build_steps(str(path), sql))
        out.append(Migration(int(name[:4]), name[:4], name[5:-4], path, steps))
    return out


def _ran(files: dict[str, str]) -> list[JournalEntry]:
    """The journal rows of every step of ``files`` as they were when they ran."""
    return [
        JournalEntry(m.version, m.name, s.index, s.checksum) for m in _files(files) for s in m.steps
    ]


def _report(ran: dict[str, str], now: dict[str, str]) -> list[MigrationStatus]:
    return statuses(_files({"0001_t.sql": TABLE, **now}), _ran({"0001_t.sql": TABLE, **ran}))


def _refusal(ran: dict[str, str], now: dict[str, str], *, accept: bool = False) -> str:
    with pytest.raises(BadInputError) as refused:
        repairs_of(_report(ran, now), accept_edited=accept)
    assert refused.value.hint is not None and "take it out of" in refused.value.hint
    return refused.value.message


@pytest.mark.parametrize("applied", [GROUP, BLOCK], ids=["group", "block"])
@pytest.mark.parametrize(
    "split",
    [
        {"0003_a.sql": A, "0004_b.sql": B},  # the review's split3: one file each
        {"0003_a.sql": START + A + END, "0004_b.sql": "BEGIN;\n" + B + "END;\n"},
        {"0003_a.sql": "begin;\n" + A + "commit;\n", "0004_b.sql": B},
        {"0003_ab.sql": "SELECT 1;\n" + START + "SELECT 2;\n" + A + B + "SELECT 3;\n" + END},
    ],
    ids=["files", "group-and-block", "lower-case-block", "inside-a-group"],
)
def test_a_gone_step_split_into_new_files_is_refused(applied: str, split: dict[str, str]) -> None:
    message = _refusal({"0002_x.sql": applied}, split)
    assert message.startswith("cannot repair: 0002_x.sql step 1: applied, and its statements are")
    assert f"now in {sorted(split)[0]} step" in message
    assert message.endswith("up would run them again")


@pytest.mark.parametrize("applied", [GROUP, BLOCK], ids=["group", "block"])
@pytest.mark.parametrize(
    "kept", [A, START + A + END, "BEGIN;\n" + A + "COMMIT;\n"], ids=["plain", "group", "block"]
)
def test_an_edited_step_with_the_rest_moved_to_a_new_file_is_refused(
    applied: str, kept: str
) -> None:
    now = {"0002_x.sql": kept, "0003_y.sql": B}
    message = _refusal({"0002_x.sql": applied}, now, accept=True)
    assert "0002_x.sql step 1: applied, and its statements are now in 0003_y.sql step 1" in message
    assert "which is not applied: up would run them again" in message


def test_the_named_step_is_refused_too() -> None:
    ran, now = {"0002_x.sql": GROUP}, {"0002_x.sql": A, "0003_y.sql": B}
    files = _files({"0001_t.sql": TABLE, **now})
    entries = _ran({"0001_t.sql": TABLE, **ran})
    with pytest.raises(BadInputError) as refused:
        named_edit.accept_named(statuses(files, entries), "0002:1", files, entries)
    assert "its statements are now in 0003_y.sql step 1 (line 1)" in refused.value.message
    assert refused.value.hint is not None and "take it out of the steps named" in (
        refused.value.hint
    )


@pytest.mark.parametrize(
    ("ran", "now"),
    [
        ({"0002_x.sql": GROUP}, {"0003_c.sql": "UPDATE acc SET n = n * 3;\n"}),
        # Two applied files' texts swapped: nothing would run (review21g "swapf", held).
        ({"0002_a.sql": A, "0003_b.sql": B}, {"0002_a.sql": B, "0003_b.sql": A}),
    ],
    ids=["new-text", "swapped"],
)
def test_texts_that_would_not_run_again_are_not_refused(
    ran: dict[str, str], now: dict[str, str]
) -> None:
    report = _report(ran, now)
    assert all(s.rerun is None for s in report)
    assert repairs_of(report, accept_edited=True)


def test_runs_names_only_the_steps_that_would_run() -> None:
    files = _files({"0001_t.sql": TABLE, "0002_x.sql": A, "0003_y.sql": B + "SELECT 1;\n"})
    texts = Texts(files, {(1, 0), (2, 0)})
    [recorded] = {s.checksum for s in _files({"0002_x.sql": GROUP})[0].steps}
    block = _files({"0002_x.sql": BLOCK})[0].steps[0].checksum
    found = texts.runs([recorded, block, "0" * 64])
    assert [p.where for p in found[recorded]] == ["0003_y.sql step 1 (line 1)"]
    assert [p.where for p in found[block]] == ["0003_y.sql step 1 (line 1)"]
    assert "0" * 64 not in found
    # Statements all in steps already applied are not a rerun.
    assert Texts(files, {(1, 0), (2, 0), (3, 0), (3, 1)}).runs([recorded]) == {}
