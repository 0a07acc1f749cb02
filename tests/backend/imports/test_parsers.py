"""The fio and bonnie++ importers read the real tools' output (tests/fixtures) correctly."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest

from perfatlas.core.measurement import RunCreate
from perfatlas.imports.bonnie import parse_bonnie
from perfatlas.imports.errors import ImportFormatError
from perfatlas.imports.fio import parse_fio

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
FIO = FIXTURES / "fio"
BONNIE = FIXTURES / "bonnie"
FIO_FILES = sorted(FIO.glob("*.json"))
BONNIE_FILES = sorted(BONNIE.glob("*.csv")) + sorted(BONNIE.glob("*.txt"))
NO_LABELS: dict[str, str] = {}


def fio_report(path: Path) -> dict[str, Any]:
    """The last JSON document in a fio output file, read independently of the importer."""
    text = path.read_text()
    starts = [match.start() for match in re.finditer(r"^\{", text, re.MULTILINE)]
    report: dict[str, Any] = json.JSONDecoder().raw_decode(text, starts[-1])[0]
    return report


def fio(name: str, **kwargs: Any) -> list[RunCreate]:
    args: dict[str, Any] = {"agent": None, "target": None, "labels": NO_LABELS} | kwargs
    return parse_fio((FIO / name).read_bytes(), **args)


def metrics(run: RunCreate) -> dict[str, float | None]:
    return {result.metric: result.value for result in run.results}


def by_jobname(runs: list[RunCreate]) -> dict[object, RunCreate]:
    return {run.parameters["jobname"]: run for run in runs}


# fio


@pytest.mark.parametrize("path", FIO_FILES, ids=lambda p: p.name)
def test_fio_one_run_per_job(path: Path) -> None:
    runs = parse_fio(path.read_bytes(), agent=None, target=None, labels=NO_LABELS)
    jobs = fio_report(path)["jobs"]
    assert len(runs) == len(jobs)
    assert [run.parameters["jobname"] for run in runs] == [job["jobname"] for job in jobs]
    assert {run.workload for run in runs} == {"fio"}


@pytest.mark.parametrize("path", FIO_FILES, ids=lambda p: p.name)
def test_fio_bandwidth_iops_and_latency_match_the_file(path: Path) -> None:
    runs = parse_fio(path.read_bytes(), agent=None, target=None, labels=NO_LABELS)
    for run, job in zip(runs, fio_report(path)["jobs"], strict=True):
        got = metrics(run)
        for direction in ("read", "write", "trim"):
            raw = job[direction]
            if raw["io_bytes"] == 0:
                assert not any(name.startswith(f"{direction}.") for name in got), direction
                continue
            assert got[f"{direction}.bw"] == raw["bw"]
            assert got[f"{direction}.iops"] == raw["iops"]
            clat = raw["clat_ns"]
            assert got[f"{direction}.clat_mean"] == pytest.approx(clat["mean"] / 1000)
            assert got[f"{direction}.lat_mean"] == pytest.approx(raw["lat_ns"]["mean"] / 1000)
            for label, key in (("p50", "50.000000"), ("p95", "95.000000"), ("p99", "99.000000")):
                assert got[f"{direction}.clat_{label}"] == pytest.approx(
                    clat["percentile"][key] / 1000
                )


def test_fio_units_and_directions() -> None:
    run = fio("seqwrite-direct.json")[0]
    units = {result.metric: (result.unit, result.direction) for result in run.results}
    assert units["write.bw"] == ("KiB/s", "higher")
    assert units["write.iops"] == ("iops", "higher")
    assert units["write.clat_p99"] == ("us", "lower")
    # 518144 ns in the file
    assert metrics(run)["write.clat_p99"] == pytest.approx(518.144)


def test_fio_parameters_merge_global_and_job_options() -> None:
    runs = by_jobname(fio("randrw-2jobs.json"))
    randwrite = runs["randwrite"].parameters
    assert randwrite["rw"] == "randwrite"  # job option
    assert randwrite["bs"] == "4k"  # global option, kept as fio spells it
    assert randwrite["size"] == "8M"
    assert randwrite["ioengine"] == "psync"
    assert randwrite["iodepth"] == 1  # plain integers become numbers
    assert randwrite["numjobs"] == 1
    assert randwrite["runtime"] == 2
    assert runs["randread"].parameters["rw"] == "randread"
    assert "iodepth" not in runs["randread"].parameters


def test_fio_durability_from_options() -> None:
    direct = fio("seqwrite-direct.json")[0]
    assert direct.o_direct is True
    assert direct.fsync_policy == "end"  # end_fsync=1

    fsync = fio("write-fsync.json")[0]
    assert fsync.fsync_policy == "file"
    assert fsync.o_direct is False
    sync_lat = fio_report(FIO / "write-fsync.json")["jobs"][0]["sync"]["lat_ns"]
    assert metrics(fsync)["sync.lat_p99"] == pytest.approx(
        sync_lat["percentile"]["99.000000"] / 1000
    )

    buffered = fio("randrw-2jobs.json")[0]
    assert (buffered.o_direct, buffered.fsync_policy) == (False, "none")


def test_fio_json_plus_bins_are_noted_not_stored() -> None:
    plus = fio("randread-jsonplus.json")[0]
    assert "bins" in fio_report(FIO / "randread-jsonplus.json")["jobs"][0]["read"]["clat_ns"]
    assert plus.meta["clat_bins"] is True
    assert sorted(metrics(plus)) == sorted(metrics(fio("randrw-2jobs.json")[0]))
    assert "clat_bins" not in fio("randrw-2jobs.json")[0].meta


def test_fio_text_before_the_json_is_skipped() -> None:
    assert (FIO / "psync-iodepth-note.json").read_text().startswith("note: ")
    run = fio("psync-iodepth-note.json")[0]
    assert {"read.bw", "write.bw"} <= set(metrics(run))


def test_fio_failed_job() -> None:
    assert (FIO / "write-error.json").read_text().startswith("fio: pid=")
    run = fio("write-error.json")[0]
    assert run.status == "failed"
    assert run.meta["error"] == 28  # ENOSPC from /dev/full
    assert run.results == []
    assert run.target == "/dev/full"  # the filename option


def test_fio_status_interval_uses_the_final_report() -> None:
    run = fio("status-interval.json")[0]
    final = fio_report(FIO / "status-interval.json")
    assert (FIO / "status-interval.json").read_text().count('"fio version"') == 3
    assert metrics(run)["read.bw"] == final["jobs"][0]["read"]["bw"]
    assert run.meta["job_runtime"] == final["jobs"][0]["job_runtime"]


def test_fio_meta_environment_agent_target() -> None:
    report = fio_report(FIO / "randrw-2jobs.json")
    run = fio("randrw-2jobs.json")[0]
    assert run.meta["fio version"] == report["fio version"]
    assert run.meta["timestamp"] == report["timestamp"]
    assert run.meta["usr_cpu"] == report["jobs"][0]["usr_cpu"]
    assert run.meta["sys_cpu"] == report["jobs"][0]["sys_cpu"]
    assert run.environment["tools"] == {"fio": "fio-3.33"}
    assert (run.agent, run.target) == ("imported", "/tmp/pa-fio")
    given = fio("randrw-2jobs.json", agent="box1", target="/mnt/x", labels={"fs": "ext4"})[0]
    assert (given.agent, given.target, given.labels) == ("box1", "/mnt/x", {"fs": "ext4"})


def test_fio_times() -> None:
    report = fio_report(FIO / "randread-jsonplus.json")
    run = fio("randread-jsonplus.json")[0]
    # fio stamps the report when the jobs are done: that is the end of the run.
    end = dt.datetime.fromtimestamp(report["timestamp_ms"] / 1000, dt.UTC)
    runtime = dt.timedelta(milliseconds=report["jobs"][0]["job_runtime"])
    assert (run.started_at, run.finished_at) == (end - runtime, end)

    start = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    given = fio("randread-jsonplus.json", started_at=start)[0]
    assert (given.started_at, given.finished_at) == (start, start + runtime)


def test_fio_uuids_are_deterministic() -> None:
    first = [run.uuid for run in fio("randrw-2jobs.json")]
    assert first == [run.uuid for run in fio("randrw-2jobs.json")]
    assert len(set(first)) == 2
    labelled = [run.uuid for run in fio("randrw-2jobs.json", labels={"fs": "ext4"})]
    assert set(labelled).isdisjoint(first)
    other_agent = [run.uuid for run in fio("randrw-2jobs.json", agent="box2")]
    assert set(other_agent).isdisjoint(first)
    # labels are a set: their order does not matter
    ab = fio("randrw-2jobs.json", labels={"a": "1", "b": "2"})
    ba = fio("randrw-2jobs.json", labels={"b": "2", "a": "1"})
    assert [run.uuid for run in ab] == [run.uuid for run in ba]
    # started_at only says when: the same file is the same runs
    assert first == [run.uuid for run in fio("randrw-2jobs.json", started_at=dt.datetime.now())]


def test_fio_nan_printed_by_fio_is_not_a_value() -> None:
    text = (FIO / "seqwrite-direct.json").read_text()
    broken = text.replace('"iops_stddev" : 0.000000', '"iops_stddev" : -nan', 1)
    assert broken != text
    run = parse_fio(broken, agent=None, target=None, labels=NO_LABELS)[0]
    assert metrics(run) == metrics(fio("seqwrite-direct.json")[0])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (b"hello world\n", "no JSON object"),
        (b'{"fio version": "fio-3.33", "jobs": [', "not valid JSON"),
        (b'{"name": "not fio"}', "no 'jobs'"),
        (b'{"fio version": "fio-3.33", "jobs": []}', "empty 'jobs'"),
        (b'{"jobs": {"a": 1}}', "not a list of job objects"),
        (b'{"jobs": [{"read": {}}]}', "no 'jobname'"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        ((BONNIE / "tmpfs-quick.csv").read_bytes(), "no JSON object"),
    ],
)
def test_fio_garbage_is_refused_with_a_reason(data: bytes, message: str) -> None:
    with pytest.raises(ImportFormatError, match=message):
        parse_fio(data, agent=None, target=None, labels=NO_LABELS)


# bonnie++

# Column numbers of CSV format 1.98 from bon_csv2html(1) (0-based, as the man page counts).
IO_COLUMNS = {"putc": 9, "put_block": 11, "rewrite": 13, "getc": 15, "get_block": 17, "seeks": 19}
FILE_COLUMNS = {
    "seq_create": 26,
    "seq_stat": 28,
    "seq_del": 30,
    "ran_create": 32,
    "ran_stat": 34,
    "ran_del": 36,
}
LATENCY_START = 38
PHASES = list(IO_COLUMNS) + list(FILE_COLUMNS)


def bonnie(name: str, **kwargs: Any) -> list[RunCreate]:
    args: dict[str, Any] = {"agent": None, "target": None, "labels": NO_LABELS} | kwargs
    return parse_bonnie((BONNIE / name).read_bytes(), **args)


def csv_lines(path: Path) -> list[list[str]]:
    return [line.split(",") for line in path.read_text().splitlines() if line.startswith("1.98,")]


@pytest.mark.parametrize("path", BONNIE_FILES, ids=lambda p: p.name)
def test_bonnie_one_run_per_line(path: Path) -> None:
    runs = parse_bonnie(path.read_bytes(), agent=None, target=None, labels=NO_LABELS)
    assert len(runs) == len(csv_lines(path)) >= 1
    # seqio's runs (its metrics), told apart by the label; bonnie never drops the cache.
    assert {run.workload for run in runs} == {"seqio"}
    assert all(run.labels["source"] == "bonnie++" and run.cold_method == "none" for run in runs)


# The agent's seqio metrics each bonnie++ column becomes, and its MB: 10^6 bytes
# (agent/src/perfatlas_agent/workloads/seqio.py), while bonnie++'s K/sec is KiB/s.
SEQIO_NAMES = {
    "putc": "putc",
    "put_block": "write",
    "rewrite": "rewrite",
    "getc": "getc",
    "get_block": "read",
    "seeks": "seeks",
}
KIB_PER_MB = 1_000_000 / 1024


def rate_metric(phase: str) -> str:
    if phase == "seeks":
        return "seeks.per_s"
    if phase in SEQIO_NAMES:
        return f"{SEQIO_NAMES[phase]}.mb_per_s"
    return phase


def prefix(phase: str) -> str:
    return SEQIO_NAMES.get(phase, phase)


def expected_rate(phase: str, text: str) -> float:
    value = float(text)
    return value / KIB_PER_MB if phase in SEQIO_NAMES and phase != "seeks" else value


@pytest.mark.parametrize("path", BONNIE_FILES, ids=lambda p: p.name)
def test_bonnie_values_match_the_file(path: Path) -> None:
    runs = parse_bonnie(path.read_bytes(), agent=None, target=None, labels=NO_LABELS)
    for run, fields in zip(runs, csv_lines(path), strict=True):
        got = metrics(run)
        columns = IO_COLUMNS | FILE_COLUMNS
        for phase, column in columns.items():
            rate, cpu = fields[column], fields[column + 1]
            name = rate_metric(phase)
            if rate in ("+++++", ""):
                assert name not in got
                assert name in run.meta["not_measured"]
            else:
                assert got[name] == pytest.approx(expected_rate(phase, rate), rel=1e-15)
                original = run.meta["bonnie_columns"][name]
                assert (original["column"], original["value"]) == (phase, float(rate))
            if cpu in ("+++", ""):
                assert f"{prefix(phase)}.cpu" not in got
            else:
                assert got[f"{prefix(phase)}.cpu"] == float(cpu)
        for offset, phase in enumerate(PHASES):
            latency = fields[LATENCY_START + offset]
            if latency:
                assert latency.endswith("us")
                assert got[f"{prefix(phase)}.lat_max"] == float(latency.removesuffix("us"))
            else:
                assert f"{prefix(phase)}.lat_max" not in got


def test_bonnie_kib_per_second_become_seqios_mb_per_second() -> None:
    # ext4-direct-x2.csv, first line: put_block 194982, rewrite 277259, seeks 14382 (K/sec,
    # K/sec, /sec); tmpfs-quick.csv: putc 1647, getc 2420 K/sec.
    first = metrics(bonnie("ext4-direct-x2.csv")[0])
    assert first["write.mb_per_s"] == pytest.approx(194982 * 1024 / 1e6, rel=1e-15)
    assert first["rewrite.mb_per_s"] == pytest.approx(283.913216, rel=1e-15)  # 277259 * 1.024e-3
    assert first["seeks.per_s"] == 14382
    assert "read.mb_per_s" not in first  # get_block was +++++
    quick = metrics(bonnie("tmpfs-quick.csv")[0])
    assert quick["putc.mb_per_s"] == pytest.approx(1.686528, rel=1e-15)
    assert quick["getc.mb_per_s"] == pytest.approx(2.47808, rel=1e-15)
    # No metric keeps a bonnie++ column name: the same names as an agent's seqio run.
    assert not set(first) & {"putc", "put_block", "rewrite", "getc", "get_block", "seeks"}


def test_bonnie_plus_signs_are_not_measured() -> None:
    run = bonnie("tmpfs-quick.csv")[0]
    fields = csv_lines(BONNIE / "tmpfs-quick.csv")[0]
    assert fields[IO_COLUMNS["put_block"]] == "+++++"
    assert "write.mb_per_s" not in metrics(run)
    assert "write.cpu" not in metrics(run)
    assert {"write.mb_per_s", "write.cpu", "seq_create"} <= set(run.meta["not_measured"])
    assert "putc.mb_per_s" not in run.meta["not_measured"]  # measured: 1647 K/sec
    assert metrics(run)["putc.mb_per_s"] == float(fields[IO_COLUMNS["putc"]]) / KIB_PER_MB


def test_bonnie_units() -> None:
    run = bonnie("ext4-direct-x2.csv")[0]
    units = {result.metric: (result.unit, result.direction) for result in run.results}
    assert units["write.mb_per_s"] == ("MB/s", "higher")
    assert units["write.cpu"] == ("%", "lower")
    assert units["seeks.per_s"] == ("seeks/s", "higher")
    assert units["seq_create"] == ("files/s", "higher")
    assert units["seq_create.lat_max"] == ("us", "lower")
    assert run.meta["bonnie_columns"]["write.mb_per_s"]["unit"] == "KiB/s"


def test_bonnie_parameters_and_host() -> None:
    first, second = bonnie("ext4-direct-x2.csv")
    assert first.parameters == {
        "concurrency": 1,
        "seed": 1795296191,
        "size": "256M",
        "num_seeks": 8192,
        "seek_proc_count": 5,
        "num_files": 4,
        "max_size": 4096,
        "min_size": 1024,
        "num_dirs": 2,  # -n 4:4096:1024:2; bonnie++ writes it in the file_chunk_size column
        # seqio's names for what bonnie read: 256 MiB, no chunk size given; warm reads.
        "filesize": 256 * 1024 * 1024,
        "cache": "warm",
    }
    assert first.agent == "ext4-host"
    assert first.environment == {"hostname": "ext4-host", "tools": {"bonnie++": "2.00a"}}
    assert first.target == "unknown"
    assert first.meta["format_version"] == "1.98"
    assert first.uuid != second.uuid  # bonnie++ -x 2: two runs, same seed
    concurrent = bonnie("sections-skipped.csv")[1]
    assert concurrent.parameters["concurrency"] == 2
    given = bonnie("tmpfs-quick.csv", agent="box1", target="/mnt/t", labels={"fs": "tmpfs"})[0]
    assert (given.agent, given.target) == ("box1", "/mnt/t")
    assert given.labels == {"fs": "tmpfs", "source": "bonnie++"}
    # 64M (MiB, as bonnie++ -s), its chunk size column empty: a filesize, no blocksize.
    assert given.parameters["filesize"] == 64 * 1024 * 1024
    assert "blocksize" not in given.parameters
    assert given.environment["hostname"] == "tmpfs-host"


def test_bonnie_report_text_around_the_csv_is_skipped() -> None:
    text = (BONNIE / "tmpfs-stdout.txt").read_text()
    assert text.startswith("Version 2.00a")
    (run,) = bonnie("tmpfs-stdout.txt")
    csv_only = parse_bonnie(text.splitlines()[-1], agent=None, target=None, labels=NO_LABELS)
    assert metrics(run) == metrics(csv_only[0])
    assert run.uuid == csv_only[0].uuid


def test_bonnie_sections_not_run() -> None:
    no_io, no_files = bonnie("sections-skipped.csv")
    assert "size" not in no_io.parameters  # -s 0
    assert not any(rate_metric(name) in metrics(no_io) for name in IO_COLUMNS)
    assert no_io.parameters["num_dirs"] == 3  # -n 2:2048:512:3:1024 (chunk size is lost)
    assert "file_chunk_size" not in no_io.parameters
    assert "num_files" not in no_files.parameters  # -n 0
    assert metrics(no_files)["putc.mb_per_s"] == 1948 / KIB_PER_MB


def test_bonnie_format_1_97_layout() -> None:
    # Format 1.96/1.97 lacks the two seek columns 1.98 added (7 and 8); otherwise the same.
    fields = csv_lines(BONNIE / "ext4-direct-x2.csv")[0]
    old = ["1.97", "1.97", *fields[2:7], *fields[9:]]
    assert len(old) == 48
    (run,) = parse_bonnie(",".join(old), agent=None, target=None, labels=NO_LABELS)
    assert metrics(run) == metrics(bonnie("ext4-direct-x2.csv")[0])
    assert "num_seeks" not in run.parameters
    assert run.parameters["num_dirs"] == 2


def test_bonnie_latency_units() -> None:
    fields = csv_lines(BONNIE / "tmpfs-quick.csv")[0]
    fields[LATENCY_START : LATENCY_START + 3] = ["56ms", "2s", "1.5ms"]
    (run,) = parse_bonnie(",".join(fields), agent=None, target=None, labels=NO_LABELS)
    assert metrics(run)["putc.lat_max"] == 56_000
    assert metrics(run)["write.lat_max"] == 2_000_000
    assert metrics(run)["rewrite.lat_max"] == 1_500


def test_bonnie_uuids_are_deterministic() -> None:
    first = [run.uuid for run in bonnie("ext4-direct-x2.csv")]
    assert first == [run.uuid for run in bonnie("ext4-direct-x2.csv")]
    assert set(first).isdisjoint(r.uuid for r in bonnie("ext4-direct-x2.csv", labels={"a": "b"}))
    assert set(first).isdisjoint(r.uuid for r in bonnie("ext4-direct-x2.csv", target="/mnt"))
    # A line keeps its uuid when the file it is in grows (bonnie++ ... >> results.csv).
    line = (BONNIE / "tmpfs-quick.csv").read_text()
    grown = (BONNIE / "ext4-direct-x2.csv").read_text() + line
    alone = parse_bonnie(line, agent=None, target=None, labels=NO_LABELS)
    inside = parse_bonnie(grown, agent=None, target=None, labels=NO_LABELS)
    assert alone[0].uuid == inside[-1].uuid
    # The same line twice is two runs, not one.
    twice = parse_bonnie(line + line, agent=None, target=None, labels=NO_LABELS)
    assert len({run.uuid for run in twice}) == 2


def _quick_line() -> list[str]:
    return csv_lines(BONNIE / "tmpfs-quick.csv")[0]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("", "empty"),
        ("hello world\n", "line 1 is not a bonnie\\+\\+ CSV line"),
        (",".join(_quick_line()[:-1]), "line 1 has 49 comma-separated fields.*1.98 has 50"),
        (",".join(_quick_line()) + "\n" + ",".join(_quick_line()[:30]), "line 2 has 30"),
        ("1.03,1.03," + ",".join(["x"] * 20), "format 1.03 is not supported"),
        ("a,b,c,d,e,f,g,h,i,j,k,l", "first field 'a' is not a format version"),
        (",".join([*_quick_line()[:9], "fast", *_quick_line()[10:]]), "field 10 \\(putc\\)"),
        (",".join([*_quick_line()[:38], "soon", *_quick_line()[39:]]), "putc_latency"),
        ((FIO / "randrw-2jobs.json").read_text(), "line 1 is not a bonnie"),
    ],
)
def test_bonnie_garbage_is_refused_with_a_reason(data: str, message: str) -> None:
    with pytest.raises(ImportFormatError, match=message):
        parse_bonnie(data, agent=None, target=None, labels=NO_LABELS)


@pytest.mark.parametrize(
    ("size", "chunk", "want"),
    [
        ("64M", "8192", (64 << 20, 8192)),
        ("2G", "4k", (2 << 30, 4096)),
        ("300", "", (300 << 20, None)),
    ],
)
def test_bonnie_sizes_become_seqios_filesize_and_blocksize(
    size: str, chunk: str, want: tuple[int, int | None]
) -> None:
    """bonnie++'s size (MiB when bare, as -s takes it) and chunk size in bytes, under seqio's
    names, so that seqio's plots against the file size hold bonnie's runs."""
    fields = csv_lines(BONNIE / "tmpfs-quick.csv")[0]
    fields[5], fields[6] = size, chunk  # format 1.98: size, chunk_size
    (run,) = parse_bonnie(",".join(fields), agent=None, target=None, labels=NO_LABELS)
    assert (run.parameters["filesize"], run.parameters.get("blocksize")) == want
    assert run.parameters["size"] == (int(size) if size.isdigit() else size)
