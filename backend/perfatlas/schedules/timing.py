"""When a schedule fires: reading `when` and `timezone`, and the firing times of a cron.

A cron's five fields are read on the wall clock of its time zone: each local date and time
that matches fires once. Daylight saving time changes the clock twice a year:

- a wall time the clock jumps over (02:30 on the spring change in Europe/Paris) fires at the
  instant that reading gives with the offset in force before the jump (03:30 new time), so a
  daily job still runs that day;
- a wall time the clock shows twice (02:30 on the autumn change) fires once, the first time.

That is the time `datetime(..., tzinfo=zone, fold=0)` gives for the wall time. croniter walks
the wall-clock times (naive datetimes); this module maps them to UTC. Near a change that mapping
is not monotonic, so the search looks a few hours either side of it."""

from __future__ import annotations

import datetime as dt
import functools
import zoneinfo
from dataclasses import dataclass
from enum import StrEnum
from zoneinfo import ZoneInfo

from croniter import CroniterError, croniter

from perfatlas.core.errors import Invalid

NOW = "now"
CRON_PREFIX = "cron:"
# More than any clock change (two hours at most, in the tz database's modern history).
_SPAN = dt.timedelta(hours=3)
_EARLIEST = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_LATEST = dt.datetime(9000, 1, 1, tzinfo=dt.UTC)


class WhenKind(StrEnum):
    now = "now"
    once = "once"
    cron = "cron"


@dataclass(frozen=True, slots=True)
class When:
    """A parsed `when`: fire now, once at `at` (UTC), or on the cron `fields` in `zone`."""

    kind: WhenKind
    zone: ZoneInfo
    at: dt.datetime | None = None
    fields: str | None = None

    def first(self, now: dt.datetime) -> dt.datetime | None:
        """The first firing due from `now` on (now itself for "now")."""
        if self.kind == WhenKind.now:
            return now
        if self.kind == WhenKind.once:
            return self.at
        assert self.fields is not None
        return next_after(self.fields, self.zone, now)

    def after(self, fired: dt.datetime) -> dt.datetime | None:
        """The firing after the one at `fired` (None: a one-off has no other)."""
        if self.kind != WhenKind.cron:
            return None
        assert self.fields is not None
        return next_after(self.fields, self.zone, fired)

    def latest(self, due: dt.datetime, now: dt.datetime) -> dt.datetime:
        """The firing to make at `now` when the one at `due` is due: for a cron that missed
        several, the latest of them (it fires once, not once per missed firing)."""
        if self.kind != WhenKind.cron:
            return due
        assert self.fields is not None
        latest = latest_at_or_before(self.fields, self.zone, now)
        return max(due, latest) if latest is not None else due

    def upcoming(self, now: dt.datetime, count: int = 5) -> list[dt.datetime]:
        """The next `count` firings from `now` on (fewer for "now" and a one-off)."""
        first = self.first(now)
        times: list[dt.datetime] = []
        while first is not None and len(times) < count:
            times.append(first)
            first = self.after(first)
        return times


@functools.cache
def _zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def parse_zone(name: str, *, field: str = "body.timezone") -> ZoneInfo:
    """An IANA time zone (Europe/Paris, UTC), or Invalid naming the field."""
    if name not in _zones():
        raise Invalid(field, f"{name!r} is not an IANA time zone name (like UTC, Europe/Paris)")
    return ZoneInfo(name)


def parse_when(
    when: str, zone: ZoneInfo, *, now: dt.datetime | None, field: str = "body.when"
) -> When:
    """ "now", an ISO 8601 time (without an offset: read in `zone`; not before `now` unless
    that is None), or "cron:<minute> <hour> <day of month> <month> <day of week>" in `zone`."""
    text = when.strip()
    if text == NOW:
        return When(WhenKind.now, zone)
    if text.startswith(CRON_PREFIX):
        return When(WhenKind.cron, zone, fields=_check_cron(text[len(CRON_PREFIX) :], field))
    try:
        at = dt.datetime.fromisoformat(text)
    except ValueError:
        raise Invalid(
            field,
            f'{when!r} is not "now", an ISO 8601 time (2026-12-01T06:00:00+01:00) or '
            '"cron:<5 fields>" (cron:0 6 * * 1-5)',
        ) from None
    if at.tzinfo is None:
        at = at.replace(tzinfo=zone)
    try:
        at = at.astimezone(dt.UTC)
    except OverflowError:
        raise Invalid(field, f"{when!r} is out of range") from None
    if not _EARLIEST <= at < _LATEST:
        raise Invalid(field, f"{when!r} is out of range")
    if now is not None and at < now:
        raise Invalid(field, f"{at.isoformat()} is in the past (now is {now.isoformat()})")
    return When(WhenKind.once, zone, at=at)


def _check_cron(expr: str, field: str) -> str:
    fields = expr.split()
    if len(fields) != 5:
        raise Invalid(
            field,
            f"a cron has 5 fields (minute hour day-of-month month day-of-week), not "
            f"{len(fields)}: {expr!r}",
        )
    expr = " ".join(fields)
    try:
        croniter(expr, dt.datetime(2026, 1, 1)).get_next(dt.datetime)
    except (CroniterError, ValueError, KeyError, TypeError, OverflowError) as exc:
        raise Invalid(field, f"not a valid cron {expr!r}: {exc}") from None
    return expr


def _local(t: dt.datetime, zone: ZoneInfo) -> dt.datetime:
    return t.astimezone(zone).replace(tzinfo=None)


def _utc(wall: dt.datetime, zone: ZoneInfo) -> dt.datetime:
    return wall.replace(tzinfo=zone, fold=0).astimezone(dt.UTC)


def _steady(zone: ZoneInfo, t: dt.datetime) -> bool:
    """No clock change within _SPAN of `t`: wall times map to UTC in order around it."""
    return zone.utcoffset(t - _SPAN) == zone.utcoffset(t) == zone.utcoffset(t + _SPAN)


def next_after(fields: str, zone: ZoneInfo, after: dt.datetime) -> dt.datetime | None:
    """The first firing strictly after `after` (UTC), None when the cron never fires again."""
    start = _local(after, zone) - (dt.timedelta(0) if _steady(zone, after) else _SPAN)
    walk = croniter(fields, start)
    best: dt.datetime | None = None
    while True:
        try:
            wall = walk.get_next(dt.datetime)
        except CroniterError:
            return best
        fire = _utc(wall, zone)
        if fire > after and (best is None or fire < best):
            best = fire
        if best is not None and (_steady(zone, best) or wall >= _local(best, zone) + _SPAN):
            return best


def latest_at_or_before(fields: str, zone: ZoneInfo, until: dt.datetime) -> dt.datetime | None:
    """The last firing at or before `until` (UTC), None when there is none."""
    margin = dt.timedelta(minutes=1) + (dt.timedelta(0) if _steady(zone, until) else _SPAN)
    walk = croniter(fields, _local(until, zone) + margin)
    best: dt.datetime | None = None
    while True:
        try:
            wall = walk.get_prev(dt.datetime)
        except CroniterError:
            return best
        fire = _utc(wall, zone)
        if fire <= until and (best is None or fire > best):
            best = fire
        if best is not None and (_steady(zone, best) or wall <= _local(best, zone) - _SPAN):
            return best
