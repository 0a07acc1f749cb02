"""Sizes and durations as people write them (core/units.py), and the declared list of size
parameters held to the agent's own declarations (its workloads' ParamSpec of kind "size")."""

from __future__ import annotations

import pytest

from perfatlas.core.errors import Invalid
from perfatlas.core.units import (
    BYTES,
    SECONDS,
    SIZE_PARAMETERS,
    filter_values,
    format_duration,
    format_size,
    humanize,
    parse_duration,
    parse_size,
    unit_of,
)
from perfatlas_agent.workloads import all_workloads


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("0", 0), ("1023", 1023), ("1024", 1024), ("131072", 131072), ("128k", 131072),
        ("128K", 131072), ("128 KiB", 131072), ("128kb", 131072), ("128 kB", 131072),
        ("4M", 4 << 20), ("4 MiB", 4 << 20), ("1.5 MiB", 1572864), ("1.5M", 1572864),
        ("2G", 2 << 30), ("30B", 30), (" 64k ", 65536), (".5k", 512),
    ],
)  # fmt: skip
def test_parse_size(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "k", "128q", "-4k", "1.3k", "4 MB/s", "12,5k", "1e3"])
def test_parse_size_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_size(text)


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0 B"), (1, "1 B"), (1023, "1023 B"), (1024, "1 KiB"), (1536, "1.5 KiB"),
        (131072, "128 KiB"), (4 << 20, "4 MiB"), (1572864, "1.5 MiB"), (64 << 20, "64 MiB"),
        (3 << 30, "3 GiB"), (1000, "1000 B"), (1000000, "976.56 KiB"),
    ],
)  # fmt: skip
def test_format_size_reads_back(size: int, text: str) -> None:
    assert format_size(size) == text
    if not text.startswith("976"):  # rounded for reading: 976.56 KiB is not a whole byte count
        assert parse_size(text) == size


def test_durations() -> None:
    assert [parse_duration(t) for t in ("250ms", "2s", "2", "1.5min", "1h", "500us")] == [
        0.25,
        2.0,
        2.0,
        90.0,
        3600.0,
        pytest.approx(5e-4),
    ]
    assert [format_duration(v) for v in (0.25, 2, 90, 3600, 0.0005)] == [
        "250 ms", "2 s", "1.5 min", "1 h", "500 µs"
    ]  # fmt: skip
    with pytest.raises(ValueError):
        parse_duration("soon")


def test_which_parameters_have_units() -> None:
    assert unit_of("segsize") == unit_of("param.segsize") == BYTES
    assert unit_of("timeout") == SECONDS
    assert unit_of("label.size") is None and unit_of("count") is None and unit_of(None) is None
    assert humanize("segsize", 131072) == humanize("segsize", "131072") == "128 KiB"
    assert humanize("count", 131072) is None and humanize("segsize", "30B") is None


def test_every_size_parameter_of_the_agent_is_declared() -> None:
    declared = {
        spec.name
        for workload in all_workloads().values()
        for spec in workload.params
        if spec.kind == "size"
    }
    assert declared and declared <= SIZE_PARAMETERS, declared - SIZE_PARAMETERS


def test_filter_values() -> None:
    assert filter_values("param.segsize", ["128k"], field="filter") == [
        "128k",
        "131072",
        "131072.0",
    ]
    assert filter_values("timeout", ["250ms"], field="filter") == ["250ms", "0.25"]
    assert filter_values("label.version", ["2.1.9"], field="filter") == ["2.1.9"]
    with pytest.raises(Invalid) as raised:
        filter_values("segsize", ["lots"], field="filter")
    error = raised.value.extra["errors"][0]
    assert error["field"] == "filter" and "segsize" in error["message"]
