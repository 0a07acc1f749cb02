"""Bonnie 1.x text tables (seed 001's Coda vs NFS figures) become runs with seqio's metrics."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfatlas.core.measurement import RunCreate
from perfatlas.imports.bonnie import parse_bonnie
from perfatlas.imports.errors import ImportFormatError

SEED_TABLES = Path(__file__).resolve().parents[2] / "fixtures" / "bonnie" / "text"
SEED = SEED_TABLES / "seed001-coda-nfs.txt"
# The seed's four rows as it prints them (001_04eb315f5154d085.txt, lines 65-91): caption,
# MB, then K/sec and %CPU for Per Char, Block, Rewrite (output), Per Char, Block (input), and
# Seeks /sec and %CPU.
SEED_ROWS = [
    ("Coda filesystem, replicated on 2 servers, 300MB test file",
     300, [1474, 8.3, 1629, 2.3, 1022, 4.7, 1420, 5.8, 1380, 3.4, 19.1, 0.2]),
    ("NFS filesystem, 300MB test file",
     300, [2268, 13.7, 2226, 2.4, 1150, 3.9, 2702, 13.2, 2603, 4.7, 219.8, 2.0]),
    ("Coda filesystem, replicated on 2 servers, 30MB test file",
     30, [3256, 17.9, 4405, 5.7, 3134, 7.7, 2007, 7.3, 3474, 3.1, 378.6, 2.0]),
    ("NFS filesystem, 30 MB test file",
     30, [2831, 13.0, 2216, 3.3, 3181, 8.4, 28403, 99.9, 115432, 101.5, 2790.6, 18.8]),
]  # fmt: skip
# seqio's metric for each pair of figures; K/sec is KiB/s and the agent's MB is 10^6 bytes.
PAIRS = ["putc", "write", "rewrite", "getc", "read", "seeks"]
KIB_PER_MB = 1_000_000 / 1024


def parse(data: str | bytes, **kwargs: object) -> list[RunCreate]:
    args: dict[str, object] = {"agent": None, "target": None, "labels": {}} | kwargs
    return parse_bonnie(data, **args)  # type: ignore[arg-type]


def values(run: RunCreate) -> dict[str, float | None]:
    return {r.metric: r.value for r in run.results}


def test_the_seeds_tables_are_read_with_their_figures() -> None:
    runs = parse(SEED.read_bytes())
    assert len(runs) == len(SEED_ROWS)
    for run, (caption, mb, figures) in zip(runs, SEED_ROWS, strict=True):
        assert run.workload == "seqio" and run.labels == {"source": "bonnie++"}
        assert run.meta["caption"] == caption
        assert run.parameters == {"size": f"{mb}M", "filesize": mb * 1024 * 1024, "cache": "warm"}
        got = values(run)
        for index, prefix in enumerate(PAIRS):
            rate, cpu = figures[2 * index], figures[2 * index + 1]
            if prefix == "seeks":
                assert got["seeks.per_s"] == rate
            else:
                assert got[f"{prefix}.mb_per_s"] == pytest.approx(rate / KIB_PER_MB, rel=1e-15)
                original = run.meta["bonnie_columns"][f"{prefix}.mb_per_s"]
                assert (original["value"], original["unit"]) == (rate, "KiB/s")
            assert got[f"{prefix}.cpu"] == cpu
        assert len(got) == 12
        assert run.meta["not_measured"] == []
    # The NFS 30 MB block read: 115432 K/sec = 118.202368 MB/s.
    assert values(runs[3])["read.mb_per_s"] == pytest.approx(118.202368, rel=1e-15)
    assert runs[0].meta["table"].splitlines()[-1].split()[:3] == ["300", "1474", "8.3"]


def test_a_reimport_gives_the_same_runs_and_quoting_does_not_matter() -> None:
    first = parse(SEED.read_bytes())
    assert [r.uuid for r in first] == [r.uuid for r in parse(SEED.read_bytes())]
    unquoted = "\n".join(line.removeprefix(">") for line in SEED.read_text().splitlines())
    assert [r.uuid for r in parse(unquoted)] == [r.uuid for r in first]
    assert len({r.uuid for r in first}) == 4
    labelled = parse(SEED.read_bytes(), labels={"fs": "coda"})
    assert {r.uuid for r in labelled}.isdisjoint(r.uuid for r in first)


def test_a_machine_column_a_size_and_plus_signs() -> None:
    # bonnie++ 1.0x's layout (Machine, Size, %CP), written here after its source, with a
    # phase too quick to measure.
    text = "\n".join(
        [
            "Version  1.03       ------Sequential Output------ --Sequential Input- --Random-",
            "                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--",
            "Machine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP",
            "box1             1G 45678  88 56789  12 23456   5 43210  80 +++++ +++ 123.4   0",
            "                    ------Sequential Create------ --------Random Create--------",
        ]
    )
    (run,) = parse(text)
    assert run.agent == "box1" and run.environment["hostname"] == "box1"
    assert run.environment["tools"] == {"bonnie++": "1.03"}
    assert run.parameters == {"size": "1G", "filesize": 1 << 30, "cache": "warm"}
    got = values(run)
    assert got["write.mb_per_s"] == pytest.approx(56789 / KIB_PER_MB, rel=1e-15)
    assert got["seeks.per_s"] == 123.4 and got["seeks.cpu"] == 0
    assert "read.mb_per_s" not in got and "read.cpu" not in got
    assert {"read.mb_per_s", "read.cpu"} <= set(run.meta["not_measured"])
    (given,) = parse(text, agent="lab-1", target="/mnt/coda")
    assert (given.agent, given.target) == ("lab-1", "/mnt/coda")


def _seed_lines() -> list[str]:
    return SEED.read_text().splitlines()


def _with_line(number: int, line: str) -> str:
    lines = _seed_lines()
    lines[number - 1] = line
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # line 6 is the first row: a figure missing, a figure that is not a number, a bad size
        (_with_line(6, ">   300  1474  8.3  1629  2.3  1022  4.7  1420  5.8  1380  3.4  19.1"),
         "line 6: .* has 12 columns; a row of a Bonnie table has the size"),
        (_with_line(6, ">   300  1474  8.3  16x9  2.3  1022  4.7  1420  5.8  1380  3.4  19.1 0.2"),
         "line 6: '16x9' where the Block output K/sec belongs is not a number"),
        (_with_line(6, ">   big  1474  8.3  1629  2.3  1022  4.7  1420  5.8  1380  3.4  19.1 0.2"),
         "line 6: 'big' where the size belongs"),
        (_with_line(6, ">   300  1474  8.3  1629  2.3  1022  4.7  1420  5.8  1380  3.4  -19 0.2"),
         "line 6: '-19' where the Seeks /sec belongs is not a number"),
        # the units row of the first table without its Seeks columns
        (_with_line(5, ">    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU"),
         "line 5: .* is not a Bonnie units row"),
        # a table with no row
        ("\n".join(_seed_lines()[:5]), "line 5: the Bonnie table's units row has no row of figures"),
        ("some notes\nno table here\n", "line 1 is not a bonnie\\+\\+ CSV line .* text table"),
    ],
)  # fmt: skip
def test_bad_text_is_refused_naming_the_line(text: str, message: str) -> None:
    with pytest.raises(ImportFormatError, match=message):
        parse(text)
