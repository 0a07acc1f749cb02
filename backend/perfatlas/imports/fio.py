"""Import fio's JSON output (--output-format=json or json+): one run per job."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from perfatlas.core.measurement import FsyncPolicy, ParamValue, RunCreate
from perfatlas.core.schemas import NAME_PATTERN
from perfatlas.imports.common import (
    Parsed,
    Skipped,
    check_run_count,
    decode_text,
    invalid_run,
    run_uuid,
    shown,
)
from perfatlas.imports.errors import ImportFormatError
from perfatlas.imports.fio_results import DIRECTIONS, Values, job_results
from perfatlas.imports.fio_results import number as _number

WHAT = "fio JSON output (fio --output-format=json or json+)"
MAX_PARAMETERS = 100
MAX_PARAMETER_TEXT = 256
MAX_TARGET = 1024
# In client/server mode (fio --client) fio adds this summary entry to client_stats; the real
# jobs are the other entries.
ALL_CLIENTS = "All clients"

_NAME = re.compile(NAME_PATTERN)
_INTEGER = re.compile(r"-?[0-9]+")
# fio prints C's "nan"/"-nan"/"inf" for statistics it could not compute, which is not JSON.
_NON_FINITE = re.compile(r"(:\s*)-?(?:nan|inf(?:inity)?)\b", re.IGNORECASE)
_DECODER = json.JSONDecoder(parse_constant=lambda _name: None)


def parse_fio(
    data: bytes | str,
    *,
    agent: str | None,
    target: str | None,
    labels: dict[str, str],
    started_at: dt.datetime | None = None,
) -> list[RunCreate]:
    """One run per fio job in the output; raises ImportFormatError for anything else."""
    return read_fio(data, agent=agent, target=target, labels=labels, started_at=started_at).runs


def read_fio(
    data: bytes | str,
    *,
    agent: str | None,
    target: str | None,
    labels: dict[str, str],
    started_at: dt.datetime | None = None,
) -> Parsed:
    """parse_fio(), with the values that were not numbers and whether the file gave a time."""
    text = decode_text(data, what=WHAT)
    try:
        document = _final_report(text)
    except RecursionError:
        raise ImportFormatError(f"the JSON is nested too deeply; expected {WHAT}") from None
    jobs = _jobs(document)
    check_run_count(len(jobs), what="fio jobs")
    try:
        report_time = _report_time(document)
    except (OverflowError, ValueError, OSError):
        raise ImportFormatError("the report's 'timestamp' is not a time") from None
    now = dt.datetime.now(dt.UTC)
    runs = []
    skipped: list[Skipped] = []
    for index, job in enumerate(jobs):
        where = f"job {index + 1} ({shown(job.get('jobname', '?'))})"
        try:
            runs.append(
                _run(
                    document,
                    job,
                    index,
                    agent=agent,
                    target=target,
                    labels=labels,
                    started_at=started_at,
                    report_time=report_time,
                    now=now,
                    skipped=skipped,
                )
            )
        except ValidationError as exc:
            raise invalid_run(exc, where=where) from None
        except ImportFormatError:
            raise
        except (OverflowError, ValueError, RecursionError) as exc:
            raise ImportFormatError(f"{where}: a time, duration or value is out of range") from exc
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            # The schema checks happen in RunCreate (a ValueError the caller reports); this
            # only guards against shapes of fio JSON never seen, so a person gets a message.
            raise ImportFormatError(f"{where} has an unexpected shape: {exc!r}") from exc
    timeless = started_at is None and report_time is None
    return Parsed(runs=runs, timeless=timeless, skipped=skipped)


def _json_objects(text: str) -> tuple[list[dict[str, Any]], json.JSONDecodeError | None]:
    """Every JSON object in the text that starts a line, in order, skipping text between."""
    objects: list[dict[str, Any]] = []
    first_error: json.JSONDecodeError | None = None
    position = 0
    first = len(text) - len(text.lstrip())
    while (start := _next_object_start(text, position, first)) >= 0:
        try:
            value, position = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            first_error = first_error or exc
            position = start + 1
            continue
        if isinstance(value, dict):
            objects.append(value)
    return objects, first_error


def _next_object_start(text: str, position: int, first: int) -> int:
    # fio writes its JSON with "{" first on a line; the notes and errors it may print before
    # it ("note: both iodepth >= 1 and synchronous I/O engine are selected...") are text lines.
    # Nested objects are indented, so a "{" in column 0 (or first in the file) is a document.
    while (start := text.find("{", position)) >= 0:
        if start == first or text[start - 1] == "\n":
            return start
        position = start + 1
    return -1


def _reports(
    text: str,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], json.JSONDecodeError | None]:
    objects, error = _json_objects(text)
    reports = [obj for obj in objects if "jobs" in obj or "client_stats" in obj]
    return reports, objects, error


def _final_report(text: str) -> dict[str, Any]:
    reports, objects, error = _reports(text)
    if not reports and error is not None:
        sanitized = _NON_FINITE.sub(r"\1null", text)
        if sanitized != text:
            reports, objects, _ = _reports(sanitized)
    # With --status-interval fio prints a report per interval and the complete one last.
    if reports:
        return reports[-1]
    if objects:
        raise ImportFormatError(
            f"the JSON has no 'jobs' list, so it is not fio output; expected {WHAT}"
        )
    if error is not None:
        raise ImportFormatError(
            f"the file is not valid JSON: {error.msg} at line {error.lineno} "
            f"column {error.colno}; expected {WHAT}"
        )
    raise ImportFormatError(f"the file holds no JSON object; expected {WHAT}")


def _jobs(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    key = "jobs" if "jobs" in document else "client_stats"
    jobs = document[key]
    if not isinstance(jobs, list) or not all(isinstance(job, dict) for job in jobs):
        raise ImportFormatError(f"'{key}' in the fio JSON is not a list of job objects")
    for number, job in enumerate(jobs, start=1):
        if not isinstance(job.get("jobname"), str):
            raise ImportFormatError(
                f"job {number} in the fio JSON has no 'jobname': not fio output"
            )
    if key == "client_stats":
        jobs = [job for job in jobs if job.get("jobname") != ALL_CLIENTS]
    if not jobs:
        raise ImportFormatError(f"the fio JSON has an empty '{key}' list: no job ran")
    return jobs


def _run(
    document: Mapping[str, Any],
    job: Mapping[str, Any],
    index: int,
    *,
    agent: str | None,
    target: str | None,
    labels: dict[str, str],
    started_at: dt.datetime | None,
    report_time: dt.datetime | None,
    now: dt.datetime,
    skipped: list[Skipped],
) -> RunCreate:
    options = {**_options(document.get("global options")), **_options(job.get("job options"))}
    jobname = str(job["jobname"])
    parameters, unstored = _parameters(jobname, options)
    version = document.get("fio version")
    hostname = job.get("hostname")
    run_agent = agent or (hostname if isinstance(hostname, str) and hostname else "imported")
    run_target = target or options.get("directory") or options.get("filename") or "unknown"
    run_target = run_target[:MAX_TARGET]
    error = _number(job.get("error")) or 0
    runtime_ms = _job_runtime_ms(job)
    runtime = dt.timedelta(milliseconds=runtime_ms) if runtime_ms is not None else None
    start, finish = _times(started_at, report_time, runtime, now)

    meta: dict[str, Any] = {
        "fio version": version,
        "timestamp": document.get("timestamp"),
        "error": job.get("error"),
        "job_runtime": job.get("job_runtime"),
        "usr_cpu": _number(job.get("usr_cpu")),
        "sys_cpu": _number(job.get("sys_cpu")),
        "percentiles": "fio's, from its log-linear latency histogram (bucket values)",
    }
    if _has_bins(job):
        meta["clat_bins"] = True
    if unstored:
        meta["options_not_stored"] = unstored
    environment: dict[str, Any] = {}
    if isinstance(hostname, str) and hostname:
        environment["hostname"] = hostname
    if isinstance(version, str):
        environment["tools"] = {"fio": version}

    record = {
        "fio version": version,
        "timestamp": document.get("timestamp_ms", document.get("timestamp")),
        "global options": document.get("global options"),
        "index": index,
        "job": job,
    }
    return RunCreate(
        uuid=run_uuid("fio", record, agent=run_agent, target=run_target, labels=labels),
        workload="fio",
        agent=run_agent,
        target=run_target,
        parameters=parameters,
        labels=labels,
        started_at=start,
        finished_at=finish,
        status="failed" if error != 0 else "ok",
        fsync_policy=_fsync_policy(options),
        o_direct=_o_direct(options),
        environment=environment,
        meta=meta,
        results=job_results(job, Values(jobname, skipped)),
    )


def _options(raw: object) -> dict[str, str]:
    if not isinstance(raw, dict):
        return {}
    return {str(name): str(value) for name, value in raw.items()}


def _parameters(
    jobname: str, options: Mapping[str, str]
) -> tuple[dict[str, ParamValue], dict[str, str]]:
    """The options that fit the run schema as parameters, the rest (kept in meta) apart."""
    parameters: dict[str, ParamValue] = {"jobname": jobname[:MAX_PARAMETER_TEXT]}
    unstored: dict[str, str] = {}
    for name, text in options.items():
        fits = _NAME.match(name) and len(name) <= 64 and len(text) <= MAX_PARAMETER_TEXT
        if not fits or len(parameters) >= MAX_PARAMETERS or name == "jobname":
            unstored[name] = text
            continue
        parameters[name] = _option_value(text)
    return parameters, unstored


def _option_value(text: str) -> ParamValue:
    # Only plain integers become numbers: "4k" stays as fio spells it, and so does "0644",
    # which int() would silently turn into 644.
    if _INTEGER.fullmatch(text) and str(int(text)) == text:
        return int(text)
    return text


def _integer_option(options: Mapping[str, str], name: str) -> int | None:
    text = options.get(name)
    if text is None or not _INTEGER.fullmatch(text.strip()):
        return None
    return int(text)


def _fsync_policy(options: Mapping[str, str]) -> FsyncPolicy:
    if (_integer_option(options, "fsync") or 0) > 0:
        return "file"
    if (_integer_option(options, "fdatasync") or 0) > 0:
        return "data"
    # sync=1 (or "sync") opens with O_SYNC: every write is durable, like fsync after each one.
    sync = options.get("sync", "").strip().lower()
    if sync in ("1", "sync"):
        return "file"
    if sync == "dsync":
        return "data"
    if (_integer_option(options, "end_fsync") or 0) > 0:
        return "end"
    if (_integer_option(options, "fsync_on_close") or 0) > 0:
        return "end"
    return "none"


def _o_direct(options: Mapping[str, str]) -> bool:
    # fio's default is buffered I/O, so an absent option means no O_DIRECT rather than unknown.
    return (_integer_option(options, "direct") or 0) > 0 or _integer_option(
        options, "buffered"
    ) == 0


def _job_runtime_ms(job: Mapping[str, Any]) -> float | None:
    runtime = _number(job.get("job_runtime"))
    if runtime is None:
        # fio before 3.x has no job_runtime; each direction's runtime (ms) is the next best.
        per_direction = [
            _number(job[d].get("runtime")) for d in DIRECTIONS if isinstance(job.get(d), dict)
        ]
        known = [value for value in per_direction if value is not None]
        runtime = max(known) if known else None
    return runtime if runtime is not None and runtime >= 0 else None


def _report_time(document: Mapping[str, Any]) -> dt.datetime | None:
    millis = _number(document.get("timestamp_ms"))
    if millis is not None:
        return dt.datetime.fromtimestamp(millis / 1000, dt.UTC)
    seconds = _number(document.get("timestamp"))
    if seconds is not None:
        return dt.datetime.fromtimestamp(seconds, dt.UTC)
    return None


def _times(
    started_at: dt.datetime | None,
    report_time: dt.datetime | None,
    runtime: dt.timedelta | None,
    now: dt.datetime,
) -> tuple[dt.datetime, dt.datetime | None]:
    if started_at is not None:
        return started_at, started_at + runtime if runtime is not None else None
    if report_time is not None:
        # fio stamps the report when it prints it, after the jobs ran: the timestamp is the
        # end. Jobs behind a stonewall ended earlier, but the JSON does not say when.
        if runtime is None:
            return report_time, None
        return report_time - runtime, report_time
    return now, now + runtime if runtime is not None else None


def _has_bins(job: Mapping[str, Any]) -> bool:
    for direction in (*DIRECTIONS, "sync"):
        stats = job.get(direction)
        if not isinstance(stats, dict):
            continue
        for block in ("clat_ns", "lat_ns"):
            latency = stats.get(block)
            if isinstance(latency, dict) and latency.get("bins"):
                return True
    return False
