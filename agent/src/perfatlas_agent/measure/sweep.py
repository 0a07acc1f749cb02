"""The sweep: target guard, sweeps, repetitions with warm-up, runs as upload dicts."""

from __future__ import annotations

import datetime as dt
import gc
import shutil
import socket
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from perfatlas_agent import __version__
from perfatlas_agent.errors import Abandon, Interrupted, ParameterError
from perfatlas_agent.measure import attachments as att
from perfatlas_agent.measure import env as env_mod
from perfatlas_agent.measure.calibrate import calibrate_run
from perfatlas_agent.measure.metrics import SHORT_PHASE_S, CacheDropper, Metric, pressure_snapshot
from perfatlas_agent.measure.params import ParamValue, expand_sweep
from perfatlas_agent.measure.stats import PERCENTILE_METHOD, summarize
from perfatlas_agent.measure.targets import claim_target, release_target
from perfatlas_agent.workloads import get_workload
from perfatlas_agent.workloads.base import RunContext, Workload

TIME_UNITS = frozenset({"s", "ms", "us", "ns"})
RATE_UNITS = frozenset(
    {"B/s", "KB/s", "KiB/s", "MB/s", "MiB/s", "GB/s", "GiB/s", "ops/s", "iops", "files/s"}
    | {"inodes/s", "seeks/s", "req/s"}
)


class Reporter(Protocol):
    def plan(self, total_reps: int) -> None: ...
    def run_started(
        self, index: int, total: int, workload: str, params: Mapping[str, Any]
    ) -> None: ...
    def rep_started(self, rep: int, reps: int, warmup: bool) -> None: ...
    def phase(self, name: str) -> None: ...
    def rep_finished(self) -> None: ...
    def run_finished(self, run: Mapping[str, Any]) -> None: ...
    def message(self, text: str) -> None: ...


def _reason(exc: KeyboardInterrupt) -> str:
    return exc.reason if isinstance(exc, Abandon) else "Ctrl-C"


@dataclass
class RunRequest:
    workload: str
    target: Path
    # A text sweeps on its commas (--param k=a,b); a list (from a spec) gives its values.
    params: dict[str, str | list[str]] = field(default_factory=dict)
    repetitions: int = 3
    labels: dict[str, str] = field(default_factory=dict)
    warmup: bool = True
    force: bool = False
    agent_name: str = field(default_factory=socket.gethostname)
    # Grow the work until every timed phase lasts this long (0: run the sizes as given).
    min_seconds: float = 0.0


def _direction(metric: Metric) -> str:
    if metric.direction is not None:
        return metric.direction
    if metric.unit in TIME_UNITS:
        return "lower"
    if metric.unit in RATE_UNITS:
        return "higher"
    raise ValueError(f"metric with unit {metric.unit!r} needs a direction")


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _json_params(params: Mapping[str, ParamValue]) -> dict[str, ParamValue]:
    out: dict[str, ParamValue] = {}
    for key, value in params.items():
        out[key] = value[:256] if isinstance(value, str) else value
    return out


def build_run(
    *,
    workload: Workload,
    request: RunRequest,
    ctx: RunContext,
    run_uuid: str,
    started: dt.datetime,
    samples: list[dict[str, Metric]],
    rep_meta: list[dict[str, Any]],
    status: str,
    error: str | None = None,
    files: list[att.AttachmentFile] | None = None,
) -> dict[str, Any]:
    names: list[str] = []
    for rep in samples:
        for name in rep:
            if name not in names:
                names.append(name)
    results: list[dict[str, Any]] = []
    summary: dict[str, dict[str, float]] = {}
    short: set[str] = set()
    for name in names:
        values = [rep[name].value for rep in samples if name in rep]
        first = next(rep[name] for rep in samples if name in rep)
        stats = summarize(values)
        summary[name] = stats
        results.append(
            {
                "metric": name,
                "unit": first.unit,
                "direction": _direction(first),
                "value": stats["median"],
                "samples": values,
            }
        )
        if name.endswith(".seconds"):
            # A per-pass figure is too short to trust only when its timed total is.
            timed = f"{name}_total" if f"{name}_total" in names else name
            if min(rep[timed].value for rep in samples if timed in rep) < SHORT_PHASE_S:
                short.add(name.removesuffix(".seconds"))
    meta: dict[str, Any] = dict(ctx.meta)
    meta.update(
        {
            "repetitions": len(samples),
            "warmup_discarded": request.warmup,
            "summary": summary,
            "percentile_method": PERCENTILE_METHOD,
            "short_phases": sorted(short),
            "short_phase_threshold_s": SHORT_PHASE_S,
            "reps": rep_meta,
        }
    )
    if short:
        meta["warning"] = (
            f"phases shorter than {SHORT_PHASE_S}s are too short to trust: "
            + ", ".join(sorted(short))
        )
    if error:
        meta["error"] = error
    kept, left_out = att.fit_run(files or [])
    if kept:
        meta["attachments"] = att.manifest(kept)
    if left_out:
        meta["attachments_left_out"] = left_out
    cold_method: str | None = None
    if ctx.cold_methods:
        cold_method = sorted(ctx.cold_methods)[0] if len(ctx.cold_methods) == 1 else "unknown"
    run: dict[str, Any] = {
        "uuid": run_uuid,
        "workload": workload.name,
        "agent": request.agent_name,
        "agent_version": __version__,
        "target": str(request.target),
        "parameters": _json_params(ctx.params),
        "labels": dict(request.labels),
        "started_at": started.isoformat(),
        "finished_at": _now().isoformat(),
        "status": status,
        "sync_mount": env_mod.is_sync_mount(ctx.env),
        "write_cache": ctx.env.get("write_cache", "unknown"),
        "memory_backed": ctx.env.get("memory_backed"),
        "flush_to_device": ctx.env.get("flush_to_device"),
        "cold_method": cold_method,
        "environment": ctx.env,
        "meta": meta,
        "results": results,
    }
    run.update(workload.durability(ctx.params))
    if kept:
        run[att.KEY] = kept  # taken off by whoever stores the run (attachments.take)
    return run


def plan_runs(request: RunRequest) -> tuple[Workload, list[dict[str, ParamValue]]]:
    workload = get_workload(request.workload)
    expanded = expand_sweep(
        workload.params, request.params, allow_extra=workload.accepts_extra_params
    )
    points: list[dict[str, ParamValue]] = []
    skipped: list[str] = []
    for point in expanded:
        for name in workload.unused(point):
            point.pop(name, None)
        # Not a skipped test: a point the workload cannot run (tar with fsync=file) is left
        # out with its reason, which the agent prints when nothing else is left.
        why = workload.skip(point)
        if why is not None:
            skipped.append(why)
        elif point not in points:
            points.append(point)
    if not points:
        raise ParameterError(f"nothing to run: {skipped[0] if skipped else 'an empty sweep'}")
    for point in points:
        workload.check(point)
        workload.check_labels(point, request.labels)
    if request.repetitions < 1:
        raise ParameterError("--repetitions must be at least 1")
    if request.min_seconds < 0:
        raise ParameterError("--min-seconds must be 0 or more")
    return workload, points


def run_sweep(
    request: RunRequest,
    reporter: Reporter,
    on_run: Callable[[dict[str, Any]], None],
    *,
    env_override: Callable[[Path], dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Run every point of the sweep; each finished run goes to on_run (the spool) at once."""
    workload, points = plan_runs(request)
    claim = claim_target(request.target, force=request.force)
    work = claim.path
    capture = env_override or env_mod.capture
    reps_per_run = request.repetitions + (1 if request.warmup else 0)
    done: list[dict[str, Any]] = []
    try:
        reporter.phase("capturing the environment")
        environment = capture(work)
        reporter.plan(reps_per_run * len(points))
        for index, point in enumerate(points):
            run = _one_run(
                request, workload, point, work, environment, reporter, index, len(points)
            )
            on_run(run)
            done.append(run)
            reporter.run_finished(run)
            if run["status"] == "partial":
                raise Interrupted(done, str(run["meta"].get("interrupted", "Ctrl-C")))
    except KeyboardInterrupt as exc:
        raise Interrupted(done, _reason(exc)) from None
    finally:
        release_target(claim)
    return done


def _one_run(
    request: RunRequest,
    workload: Workload,
    point: dict[str, ParamValue],
    work: Path,
    environment: dict[str, Any],
    reporter: Reporter,
    index: int,
    total: int,
) -> dict[str, Any]:
    run_uuid = str(uuid.uuid4())
    run_dir = work / f"run-{run_uuid[:8]}"
    run_dir.mkdir()
    ctx = RunContext(
        workdir=run_dir,
        params=dict(point),
        labels=dict(request.labels),
        env=environment,
        cold=CacheDropper(fs_type=str(environment.get("fs_type", ""))),
        on_phase=reporter.phase,
    )
    started = _now()
    reporter.run_started(index, total, workload.name, point)
    samples: list[dict[str, Metric]] = []
    rep_meta: list[dict[str, Any]] = []
    reps = request.repetitions + (1 if request.warmup else 0)

    def finish(status: str, error: str | None = None) -> dict[str, Any]:
        """Removes the run's files and builds the run from the repetitions measured."""
        files = _attachments(workload, ctx)
        _cleanup(workload, ctx, run_dir)
        return build_run(
            workload=workload,
            request=request,
            ctx=ctx,
            run_uuid=run_uuid,
            started=started,
            samples=samples,
            rep_meta=rep_meta,
            status=status,
            error=error,
            files=files,
        )

    try:
        reporter.phase("prepare")
        workload.prepare(ctx)
        if request.min_seconds > 0 and calibrate_run(
            request.min_seconds, set(request.params), workload, ctx, run_dir,
            rep=lambda d: timed_rep(workload, ctx, d), say=reporter.message, phase=reporter.phase,
        ):  # fmt: skip
            # The last calibration repetition ran at the final size, just before: the warm-up.
            if request.warmup:
                ctx.meta["warmup"] = "the last calibration repetition"
                reporter.rep_finished()  # the warm-up's place in the plan
            reps = request.repetitions
        for rep in range(reps):
            warm = request.warmup and rep == 0 and reps > request.repetitions
            reporter.rep_started(rep, reps, warm)
            before = pressure_snapshot()
            metrics = timed_rep(workload, ctx, run_dir / f"rep{rep}")
            after = pressure_snapshot()
            rep_meta.append({"warmup": warm, "before": before, "after": after})
            if not warm:
                samples.append(metrics)
            reporter.rep_finished()
    except (Exception, KeyboardInterrupt) as caught:
        exc = caught if isinstance(caught, KeyboardInterrupt) else interrupt_behind(caught)
        if exc is None:
            # A failed point of a sweep is recorded (status failed, the error in meta) and the
            # sweep goes on: the failure itself is a result worth keeping.
            reporter.message(f"run failed: {caught}")
            return finish("failed", f"{type(caught).__name__}: {caught}"[:4000])
        why = _reason(exc)
        reporter.message(f"interrupted ({why}): cleaning up the files this run made")
        if not samples:
            _cleanup(workload, ctx, run_dir)
            if exc is caught:
                raise
            raise exc from caught
        ctx.meta["interrupted"] = why
        return finish("partial", f"interrupted ({why}) after the repetitions kept here")
    return finish("ok")


def interrupt_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM (Abandon) that an error raised while it was being handled would
    otherwise hide: a signal landing in a tar subprocess's cleanup came back as EBADF, and the
    study went on as if the run had merely failed."""
    seen: set[int] = set()
    current = exc.__context__
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return current
        seen.add(id(current))
        current = current.__context__
    return None


def timed_rep(workload: Workload, ctx: RunContext, rep_dir: Path) -> dict[str, Metric]:
    """One repetition in a fresh folder, removed after."""
    rep_dir.mkdir()
    # No garbage collection pauses inside timed loops (they allocate no cycles anyway).
    gc.collect()
    gc.disable()
    try:
        return workload.rep(ctx, rep_dir)
    finally:
        gc.enable()
        shutil.rmtree(rep_dir, ignore_errors=True)


def _attachments(workload: Workload, ctx: RunContext) -> list[att.AttachmentFile]:
    """The workload's files; a failure to make them is noted, never the run's loss."""
    try:
        return workload.attachments(ctx)
    except Exception as exc:
        ctx.meta["attachments_error"] = f"{type(exc).__name__}: {exc}"[:1000]
        return []


def _cleanup(workload: Workload, ctx: RunContext, run_dir: Path) -> None:
    try:
        workload.cleanup(ctx)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
