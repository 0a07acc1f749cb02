"""One claimed job, start to end: run its spec through the sweep (measure/sweep.py; every run
spooled with the job's id as soon as it is measured), report progress from a thread, then
settle it:

- done → complete (succeeded, or failed when a point failed) with the runs;
- cancelled by the server → the repetition under way is abandoned, its files removed, and the
  job completed as cancelled with the runs measured;
- lease lost (at a progress report or at completion) → the runs go up through /runs/batch
  (with job_id) and the job is dropped;
- stopping (SIGTERM) → abandon, release the job, upload the runs measured;
- revoked → stop; the runs stay in the spool.

A confirmation job (kind "confirm", with a plan) runs rounds instead (confirm.py): each
round's runs are posted to /jobs/{id}/rounds, and the job completes with none left."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from perfatlas_agent.config import AgentConfig
from perfatlas_agent.daemon.confirm import rounds_total, run_rounds
from perfatlas_agent.daemon.progress import (
    CANCELLED,
    LEASE_LOST,
    MAX_LINES_PER_CALL,
    REVOKED,
    STOPPING,
    Interrupter,
    JobReporter,
    ProgressThread,
)
from perfatlas_agent.daemon.protocol import JobClient, retrying
from perfatlas_agent.errors import (
    AgentError,
    Interrupted,
    LeaseLost,
    Refused,
    Revoked,
    Stopped,
    Transient,
)
from perfatlas_agent.measure import attachments as att
from perfatlas_agent.measure.spec import parse_spec
from perfatlas_agent.measure.sweep import plan_runs, run_sweep
from perfatlas_agent.send.client import Client, flush, send_attachments
from perfatlas_agent.send.spool import Spool

# Runs sent inside the completion itself; more go up through /runs/batch first.
RUNS_IN_COMPLETION = 50
PROGRESS_EVERY = 2.0


@dataclass
class Outcome:
    job_id: int
    status: str  # succeeded, failed, cancelled, released, dropped, unsettled
    runs: int
    revoked: Revoked | None = None


class JobExecution:
    def __init__(
        self, job: dict[str, Any], *, config: AgentConfig, spool: Spool,
        interrupter: Interrupter, say: Callable[[str], None],
    ) -> None:  # fmt: skip
        self.job = job
        self.job_id = int(job["id"])
        self.attempt = int(job["attempt"])
        self.config = config
        self.spool = spool
        self.interrupter = interrupter
        self.say = say
        self.runs: list[dict[str, Any]] = []
        self.error: str | None = None
        plan = job.get("plan")
        self.plan: dict[str, Any] | None = (
            plan if job.get("kind") == "confirm" and isinstance(plan, dict) else None
        )
        self.posted = 0  # runs a confirmation's rounds stored already

    def client(self) -> JobClient:
        return JobClient(self.config.server, self.config.token)

    def execute(self) -> Outcome:
        self.say(f"job {self.job_id} (attempt {self.attempt}): {self.job.get('spec')}")
        claim = self.spool.claim()
        try:
            return self._execute(claim)
        finally:
            claim.release()

    def _execute(self, claim: Any) -> Outcome:
        spec_data = self.job.get("spec") or {}
        total = reps = 1
        try:
            spec = parse_spec(spec_data)
            total = spec.points()
            if self.plan is not None:
                total = rounds_total(spec, self.plan)
            reps = spec.repetitions + (1 if spec.warmup else 0)
        except AgentError as exc:
            spec, self.error = None, str(exc)
        shown = frozenset(spec.params) if spec is not None else None
        reporter = JobReporter(total_runs=total, reps_per_run=reps, shown=shown)
        every = min(PROGRESS_EVERY, float(self.job.get("progress_every") or PROGRESS_EVERY))
        progress = ProgressThread(
            client_factory=self.client, job_id=self.job_id, attempt=self.attempt,
            reporter=reporter, interrupter=self.interrupter, every=every, say=self.say,
        )  # fmt: skip
        progress.start()

        def on_run(run: dict[str, Any]) -> None:
            run["job_id"] = self.job_id
            files = att.take(run)  # spooled beside the run; sent once the server has it
            self.runs.append(run)  # kept in memory first: an abandon cannot lose it
            try:
                claim.add(run["uuid"])
                self.spool.put(run, files)
            except OSError as exc:  # a full spool: the run still goes with the completion
                names = ", ".join(f.name for f in files) or "none"
                self.say(f"run {run['uuid']} not spooled ({exc}); it goes with the job's "
                         f"completion from memory; its files ({names}) are not kept")  # fmt: skip

        try:
            if spec is not None and self.plan is not None:
                for request in spec.requests(agent_name=self.config.name):
                    plan_runs(request)
                verdict = run_rounds(
                    spec=spec, plan=self.plan, agent_name=self.config.name, reporter=reporter,
                    on_run=on_run, interrupter=self.interrupter,
                    post_round=lambda n, runs: self._post_round(claim, n, runs),
                )  # fmt: skip
                if verdict is not None:
                    reporter.message(f"confirmation: {verdict}")
            elif spec is not None:
                requests = spec.requests(agent_name=self.config.name)
                for request in requests:
                    plan_runs(request)  # every target's parameters checked before any runs
                for request in requests:
                    if self.interrupter.reason is not None:
                        break
                    self.interrupter.arm()
                    try:
                        run_sweep(request, reporter, on_run)
                    finally:
                        self.interrupter.disarm()
        except LeaseLost:  # a round was refused: the job is no longer ours
            self.interrupter.request(LEASE_LOST)
        except Interrupted:
            pass  # the reason is the interrupter's
        except KeyboardInterrupt:
            pass  # an Abandon outside a run (while planning or claiming the target)
        except AgentError as exc:
            self.error = str(exc)
            reporter.message(f"job failed: {exc}")
        except Exception as exc:  # a bug of ours: the job still settles, with the message
            self.error = f"{type(exc).__name__}: {exc}"
            reporter.message(f"job failed: {self.error}")
        finally:
            self.interrupter.disarm()
            progress.stop()
        if progress.revoked is not None:
            return Outcome(self.job_id, "unsettled", len(self.runs), progress.revoked)
        log = reporter.take_lines(MAX_LINES_PER_CALL)
        reason = self.interrupter.reason
        if reason == LEASE_LOST:
            return self._drop(claim)
        if reason == STOPPING:
            return self._release(claim)
        if reason == REVOKED:
            return Outcome(self.job_id, "unsettled", len(self.runs))
        if reason == CANCELLED:
            status = "cancelled"
        elif self.error is not None or any(r["status"] == "failed" for r in self.runs):
            status = "failed"
            failed = [r for r in self.runs if r["status"] == "failed"]
            if self.error is None:
                self.error = f"{len(failed)} of {len(self.runs)} run(s) failed: " + "; ".join(
                    str(r["meta"].get("error", ""))[:300] for r in failed[:3]
                )
        else:
            status = "succeeded"
        return self._complete(claim, status, log)

    def _complete(self, claim: Any, status: str, log: list[str]) -> Outcome:
        inline = self.runs if len(self.runs) <= RUNS_IN_COMPLETION else []
        if not inline and self.runs:
            report = self._upload(claim)
            if report:
                self.say(f"job {self.job_id}: {report}")
        error = None if self.error is None else self.error.replace("\x00", "")[:10_000]
        body = {"attempt": self.attempt, "status": status, "error": error, "log": log,
                "runs": inline}  # fmt: skip
        client = self.client()
        try:
            retrying(
                lambda: client.complete(self.job_id, body),
                stop=None, deadline_s=600.0,
                on_retry=lambda p, w: self.say(f"job {self.job_id}: completion failed ({p}); "
                                               f"retrying in {w:.1f}s"),
            )  # fmt: skip
        except LeaseLost:
            self.say(f"job {self.job_id}: the lease was lost before completion")
            return self._drop(claim)
        except Revoked as exc:
            return Outcome(self.job_id, "unsettled", len(self.runs), exc)
        except (Refused, Transient, Stopped) as exc:
            self.say(f"job {self.job_id}: not completed ({exc}); its runs go up on their own")
            self._upload(claim)
            return Outcome(self.job_id, "unsettled", len(self.runs))
        finally:
            client.close()
        for run in inline:
            self.spool.remove(run["uuid"])
        self._send_attachments(claim)
        done = len(self.runs) + self.posted
        self.say(f"job {self.job_id}: {status} ({done} run(s))")
        return Outcome(self.job_id, status, done)

    def _post_round(self, claim: Any, number: int, runs: list[dict[str, Any]]) -> dict[str, Any]:
        """Post one round (retrying while the server is away); its runs are stored then, so
        they leave the spool and the completion."""
        body = {"attempt": self.attempt, "round": number, "runs": runs}
        client = self.client()
        try:
            answer = retrying(
                lambda: client.rounds(self.job_id, body),
                stop=None, deadline_s=600.0,
                on_retry=lambda p, w: self.say(f"job {self.job_id}: round {number} not taken "
                                               f"({p}); retrying in {w:.1f}s"),
            )  # fmt: skip
        finally:
            client.close()
        stored = {run["uuid"] for run in runs}
        for uuid in stored:
            self.spool.remove(uuid)
        self.runs = [run for run in self.runs if run["uuid"] not in stored]
        self.posted += len(stored)
        self.say(
            f"job {self.job_id}: round {number}: verdict {answer.get('verdict')}, "
            f"{'another round' if answer.get('continue') else 'done'}"
        )
        if answer.get("cancel") and self.interrupter.reason is None:
            # Its alert was resolved meanwhile: no other round; completed as cancelled.
            self.say(f"job {self.job_id}: cancelled by the server; stopping")
            self.interrupter.request(CANCELLED)
        return answer

    def _drop(self, claim: Any) -> Outcome:
        report = self._upload(claim)
        self.say(f"job {self.job_id}: dropped (lease lost); {report}")
        return Outcome(self.job_id, "dropped", len(self.runs))

    def _release(self, claim: Any) -> Outcome:
        client = self.client()
        try:
            retrying(
                lambda: client.release(self.job_id, self.attempt, "the agent is stopping"),
                deadline_s=10.0,
            )  # fmt: skip
            self.say(f"job {self.job_id}: released (the agent is stopping)")
        except (LeaseLost, Refused, Transient, Revoked) as exc:
            self.say(f"job {self.job_id}: not released ({exc}); its lease will lapse")
        finally:
            client.close()
        report = self._upload(claim)
        if report:
            self.say(f"job {self.job_id}: {report}")
        return Outcome(self.job_id, "released", len(self.runs))

    def _send_attachments(self, claim: Any) -> None:
        """The files of the runs the completion (or a round) stored; what the server does not
        take now stays in the spool for the next flush."""
        if not self.spool.attachments_waiting():
            return
        with Client(self.config.server, self.config.token, deadline_s=20.0) as http:
            report = send_attachments(self.spool, http, on_message=self.say, claim=claim)
        self.say(
            f"job {self.job_id}: {report.attachments_sent + report.attachments_existing} "
            f"attachment(s) uploaded"
            + (
                f", {report.attachments_remaining} left in the spool"
                if report.attachments_remaining
                else ""
            )
            + (f" ({report.error})" if report.error else "")
        )

    def _upload(self, claim: Any) -> str:
        """The runs of this job (spooled with job_id) through /runs/batch."""
        if not self.runs:
            return "no runs measured"
        with Client(self.config.server, self.config.token, deadline_s=20.0) as http:
            report = flush(self.spool, http, on_message=self.say, claim=claim)
        text = f"{report.delivered} run(s) uploaded with job_id {self.job_id}"
        if report.remaining:
            text += f", {report.remaining} left in the spool {self.spool.root}"
        if report.error:
            text += f" ({report.error})"
        return text
