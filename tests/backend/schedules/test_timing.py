"""A cron's firings in its time zone, across daylight saving changes, against the minute-by-
minute oracle (conftest.oracle_firings) and against times worked out by hand."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from perfatlas.core.errors import Invalid
from perfatlas.schedules.timing import (
    WhenKind,
    latest_at_or_before,
    next_after,
    parse_when,
    parse_zone,
)
from tests.backend.schedules.conftest import oracle_firings


def utc(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)


CASES = [
    # Europe/Paris jumps from 02:00 to 03:00 on 2026-03-29 and back from 03:00 to 02:00 on
    # 2026-10-25; America/New_York jumps on 2026-03-08; Lord Howe moves by 30 minutes on
    # 2026-04-05; Sao Paulo keeps no daylight saving time any more.
    ("30 2 * * *", "Europe/Paris", "2026-03-27T12:00:00"),
    ("30 2 * * *", "Europe/Paris", "2026-10-23T12:00:00"),
    ("*/20 1-3 * * *", "Europe/Paris", "2026-03-28T23:30:00"),
    ("*/20 1-3 * * *", "Europe/Paris", "2026-10-24T23:30:00"),
    ("0 9 * * 1-5", "America/New_York", "2026-03-06T15:00:00"),
    ("15 */6 1,15 * 5", "Australia/Lord_Howe", "2026-04-02T00:00:00"),
    ("45 1 * * 0", "America/Sao_Paulo", "2026-11-01T00:00:00"),
    ("0 0 * * *", "UTC", "2026-12-30T12:00:00"),
    ("5-10/5 23 28-31 * *", "Asia/Kolkata", "2026-02-26T00:00:00"),
]


@pytest.mark.parametrize(("fields", "zone", "after"), CASES)
def test_next_firings_are_the_oracles(fields: str, zone: str, after: str) -> None:
    start = utc(after)
    expected = [t for t in oracle_firings(fields, zone, start, days=50) if t > start][:5]
    assert len(expected) == 5
    when = parse_when(f"cron:{fields}", parse_zone(zone), now=start)
    assert when.kind == WhenKind.cron
    assert when.upcoming(start, 5) == expected
    # From any instant between them too (the first one after it), and the latest at or before.
    everything = oracle_firings(fields, zone, start, days=50)
    for probe in [*expected, *(t - dt.timedelta(seconds=1) for t in expected)]:
        assert next_after(fields, ZoneInfo(zone), probe) == min(t for t in everything if t > probe)
        assert latest_at_or_before(fields, ZoneInfo(zone), probe) == max(
            t for t in everything if t <= probe
        )


def test_daylight_saving_by_hand() -> None:
    paris = ZoneInfo("Europe/Paris")
    # Spring: 02:30 does not exist on March 29th; it fires at 03:30 new time (01:30 UTC).
    spring = parse_when("cron:30 2 * * *", paris, now=utc("2026-03-27T12:00:00"))
    assert spring.upcoming(utc("2026-03-27T12:00:00"), 4) == [
        utc("2026-03-28T01:30:00"), utc("2026-03-29T01:30:00"),
        utc("2026-03-30T00:30:00"), utc("2026-03-31T00:30:00"),
    ]  # fmt: skip
    # Autumn: 02:30 happens twice on October 25th; it fires once, the first time.
    autumn = parse_when("cron:30 2 * * *", paris, now=utc("2026-10-23T12:00:00"))
    assert autumn.upcoming(utc("2026-10-23T12:00:00"), 3) == [
        utc("2026-10-24T00:30:00"), utc("2026-10-25T00:30:00"), utc("2026-10-26T01:30:00"),
    ]  # fmt: skip


def test_iso_times_and_now() -> None:
    now = utc("2026-05-01T10:00:00")
    paris = ZoneInfo("Europe/Paris")
    naive = parse_when("2026-05-01T14:00:00", paris, now=now)  # read in the schedule's zone
    assert naive.kind == WhenKind.once and naive.at == utc("2026-05-01T12:00:00")
    offset = parse_when("2026-05-01T14:00:00-04:00", paris, now=now)
    assert offset.at == utc("2026-05-01T18:00:00")
    assert offset.upcoming(now, 5) == [utc("2026-05-01T18:00:00")]
    assert parse_when("now", paris, now=now).upcoming(now, 5) == [now]


@pytest.mark.parametrize(
    ("when", "message"),
    [
        ("2026-05-01T09:59:59Z", "in the past"),
        ("2026-05-01T11:00:00+02:00", "in the past"),  # 09:00 UTC
        ("tomorrow", 'not "now"'),
        ("cron:* * * *", "5 fields"),
        ("cron:* * * * * *", "5 fields"),
        ("cron:61 * * * *", "not a valid cron"),
        ("cron:0 0 30 2 *", "not a valid cron"),  # February 30th never comes
        ("cron:H * * * *", "not a valid cron"),
        ("0001-01-01T00:00:00+01:00", "out of range"),
    ],
)
def test_bad_when_names_the_field(when: str, message: str) -> None:
    with pytest.raises(Invalid) as caught:
        parse_when(when, ZoneInfo("UTC"), now=utc("2026-05-01T10:00:00"))
    assert caught.value.extra["errors"][0]["field"] == "body.when"
    assert message in caught.value.message


@pytest.mark.parametrize("zone", ["Mars/Olympus", "", "../../etc/passwd", "Europe", "utc\x00"])
def test_bad_zone_names_the_field(zone: str) -> None:
    with pytest.raises(Invalid) as caught:
        parse_zone(zone)
    assert caught.value.extra["errors"][0]["field"] == "body.timezone"
