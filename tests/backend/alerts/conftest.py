"""Fixtures for alerts and notifications: a real `perfatlas worker` process (Celery on the local
Redis, the test PostgreSQL database), a webhook receiver (a local HTTP server), an SMTP server
(aiosmtpd), and incidents with alerts on stored runs."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import redis
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword
from aiosmtpd.smtp import Session as SmtpSession
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from perfatlas.alerts.models import Alert, Incident
from perfatlas.core.config import Settings
from perfatlas.core.db import session_factory
from perfatlas.core.measurement import RunCreate
from perfatlas.main import create_app
from perfatlas.notifications import service as notification_service
from perfatlas.notifications.models import Channel, Notification
from perfatlas.runs import service as runs_service
from perfatlas.runs.models import Run, Series
from tests.conftest import REDIS_URL, _free_port, patient
from tests.factories import BASE_TIME, result, run_body

BROKER_URL = REDIS_URL
PUBLIC_URL = "http://perfatlas.example"
# Short enough that retries and a killed worker's lease play out within seconds.
WORKER_TIMINGS = {
    "PERFATLAS_NOTIFY_SWEEP_SECONDS": "1",
    "PERFATLAS_NOTIFY_DELAY_SECONDS": "0",
    "PERFATLAS_NOTIFY_BACKOFF_SECONDS": "0.2",
    "PERFATLAS_NOTIFY_LEASE_SECONDS": "3",
    "PERFATLAS_NOTIFY_MAX_ATTEMPTS": "4",
    # At the test processes' priority: on a machine they keep busy, a worker at its default
    # nice 10 (test_worker.py checks it) would make every wait for it long.
    "PERFATLAS_WORKER_NICE": "0",
}


def wait_until(check: Callable[[], Any], *, timeout: float = 10.0, what: str = "it") -> Any:
    timeout = patient(timeout)
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout:.0f} s for {what}")
        time.sleep(0.05)


# ---- the worker -------------------------------------------------------------------------


@pytest.fixture(scope="session")
def worker_queue() -> Iterator[str]:
    """A Celery queue of this test session's own; its Redis keys are deleted at the end."""
    queue = f"perfatlas-test-{os.getpid()}"
    yield queue
    client = redis.Redis.from_url(BROKER_URL)
    keys = [*client.scan_iter(match=f"{queue}*"), *client.scan_iter(match=f"_kombu.*{queue}")]
    if keys:
        client.delete(*keys)
    # Tasks a killed worker had not acknowledged wait in the shared `unacked` hash (to be put
    # back into our queue an hour later); drop ours, and only ours.
    for tag, raw in client.hgetall("unacked").items():
        try:
            _, exchange, routing_key = json.loads(raw)
        except (ValueError, TypeError):
            continue
        if queue in (exchange, routing_key):
            client.hdel("unacked", tag)
            client.zrem("unacked_index", tag)
    client.close()


@pytest.fixture(scope="session")
def mail_server() -> Iterator[MailServer]:
    server = MailServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def mailbox(mail_server: MailServer) -> MailServer:
    """The SMTP server the worker sends to, emptied for this test."""
    mail_server.messages.clear()
    return mail_server


@pytest.fixture
def worker_settings(settings: Settings, worker_queue: str, mail_server: MailServer) -> Settings:
    """The settings the worker runs with, for the API and the tests' own calls."""
    return Settings.model_validate(
        {
            **settings.model_dump(),
            "broker_url": BROKER_URL,
            "queue": worker_queue,
            "public_url": PUBLIC_URL,
            "smtp_host": "127.0.0.1",
            "smtp_port": mail_server.port,
            "smtp_from": "perfatlas@test.example",
            **{k.removeprefix("PERFATLAS_").lower(): v for k, v in WORKER_TIMINGS.items()},
        }
    )


class Worker:
    """`perfatlas worker` (with its beat) in its own process group, so that kill() takes the
    embedded beat process down with it, as a machine crash or an OOM kill of the group would."""

    def __init__(self, env: dict[str, str], log_dir: Path) -> None:
        self.env = env
        self.log_dir = log_dir
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.log_path = log_dir / "worker-0.log"

    def start(self) -> None:
        assert self.proc is None, "already running"
        self.starts += 1
        self.log_path = self.log_dir / f"worker-{self.starts}.log"
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "perfatlas", "worker"], env=self.env, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + patient(30)
        while "ready." not in self.log_path.read_text(errors="replace"):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"perfatlas worker did not start:\n{self.logs()[-3000:]}")
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL, no chance to clean up: whatever it was doing is left half done."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()  # Celery's warm shutdown: it finishes the task it is running
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=15)
        self.kill()

    def restart(self) -> None:
        self.kill()
        self.start()

    def logs(self) -> str:
        return "\n".join(
            path.read_text(errors="replace") for path in sorted(self.log_dir.glob("worker-*.log"))
        )


@pytest.fixture
def worker(
    engine: Engine, pg_url: str, worker_settings: Settings, tmp_path: Path
) -> Iterator[Worker]:
    """A running `perfatlas worker` on the test database, stopped at the end of the test (before
    the tables are emptied)."""
    data_dir = tmp_path / "worker-data"
    data_dir.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    env.update(
        PERFATLAS_DATABASE_URL=pg_url,
        PERFATLAS_BROKER_URL=BROKER_URL,
        PERFATLAS_QUEUE=worker_settings.queue,
        PERFATLAS_DATA_DIR=str(data_dir),
        PERFATLAS_PUBLIC_URL=PUBLIC_URL,
        PERFATLAS_SMTP_HOST="127.0.0.1",
        PERFATLAS_SMTP_PORT=str(worker_settings.smtp_port),
        PERFATLAS_SMTP_FROM=worker_settings.smtp_from,
        **WORKER_TIMINGS,
    )
    proc = Worker(env, tmp_path)
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture
def worker_client(worker_settings: Settings, engine: Engine) -> Iterator[TestClient]:
    """The API with the worker's broker and queue (so that what it queues reaches the worker)."""
    with TestClient(create_app(worker_settings), raise_server_exceptions=False) as client:
        yield client


@pytest.fixture
def admin_headers(tokens: Any) -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens.admin}"}


# ---- a webhook receiver -----------------------------------------------------------------


@dataclass
class Delivery:
    delivery_id: str | None
    event: str | None
    attempt: str | None
    content_type: str | None
    body: dict[str, Any]
    raw: bytes
    status: int | None = None  # what the receiver answered; None: it never answered


@dataclass
class Receiver:
    """A webhook endpoint on 127.0.0.1. `answers` are used in order (then 200): a status code,
    or "hold" to keep the request open without ever answering it."""

    url: str
    answers: list[int | str]
    deliveries: list[Delivery] = field(default_factory=list)
    holding: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answered(self) -> list[Delivery]:
        with self.lock:
            return [d for d in self.deliveries if d.status is not None]

    def received(self) -> list[Delivery]:
        with self.lock:
            return list(self.deliveries)

    def wait_answered(self, count: int, *, timeout: float = 10.0) -> list[Delivery]:
        """The deliveries so far, once `count` of them have been answered."""
        wait_until(lambda: len(self.answered()) >= count, timeout=timeout, what=f"{count} answers")
        return self.received()


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            delivery = Delivery(
                delivery_id=self.headers.get("X-PerfAtlas-Delivery"),
                event=self.headers.get("X-PerfAtlas-Event"),
                attempt=self.headers.get("X-PerfAtlas-Attempt"),
                content_type=self.headers.get("Content-Type"),
                body=json.loads(raw),
                raw=raw,
            )
            with receiver.lock:
                receiver.deliveries.append(delivery)
                answer = receiver.answers.pop(0) if receiver.answers else 200
            if answer == "hold":
                receiver.holding.set()
                receiver.release.wait(30)
                self.close_connection = True
                return
            assert isinstance(answer, int)
            body = b"ok" if answer < 300 else b"no_service"
            try:
                self.send_response(answer)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                return
            with receiver.lock:
                delivery.status = answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def receiver() -> Iterator[Callable[..., Receiver]]:
    """Start a webhook receiver: receiver(200) or receiver(500, 500, 200) or receiver("hold")."""
    servers: list[tuple[ThreadingHTTPServer, Receiver]] = []

    def start(*answers: int | str, path: str = "/hooks/T0001/B0002/s3cr3t-t0k3n") -> Receiver:
        made = Receiver(url="", answers=list(answers))
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(made))
        server.daemon_threads = True
        made.url = f"http://127.0.0.1:{server.server_address[1]}{path}"
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append((server, made))
        return made

    yield start
    for server, made in servers:
        made.release.set()
        server.shutdown()
        server.server_close()


# ---- an SMTP server ---------------------------------------------------------------------


@dataclass
class Mail:
    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage


class _Collect:
    def __init__(self, box: list[Mail]) -> None:
        self.box = box

    async def handle_DATA(self, server: SMTP, session: SmtpSession, envelope: Envelope) -> str:
        content = envelope.original_content or b""
        self.box.append(
            Mail(
                mail_from=str(envelope.mail_from),
                rcpt_tos=list(envelope.rcpt_tos),
                message=message_from_bytes(content, policy=policy.default),
            )
        )
        return "250 OK"


class MailServer:
    """aiosmtpd on 127.0.0.1; with `login=(user, password)` it takes mail only after AUTH."""

    def __init__(self, *, login: tuple[str, str] | None = None) -> None:
        self.messages: list[Mail] = []
        self.port = _free_port()
        auth: dict[str, Any] = {}
        if login is not None:
            user, password = (part.encode() for part in login)

            def check(
                server: SMTP, session: SmtpSession, envelope: Envelope, mechanism: str, data: Any
            ) -> AuthResult:
                ok = isinstance(data, LoginPassword) and (data.login, data.password) == (
                    user,
                    password,
                )
                return AuthResult(success=ok, handled=False)

            auth = {"auth_required": True, "auth_require_tls": False, "authenticator": check}
        self.controller = Controller(
            _Collect(self.messages), hostname="127.0.0.1", port=self.port, **auth
        )

    def start(self) -> None:
        self.controller.start()

    def stop(self) -> None:
        self.controller.stop()


# ---- data -------------------------------------------------------------------------------


@pytest.fixture
def factory(engine: Engine) -> sessionmaker[Session]:
    return session_factory(engine)


def add_channel(factory: sessionmaker[Session], *, name: str, kind: str, target: str) -> int:
    with factory() as session:
        channel = Channel(name=name, kind=kind, target=target, enabled=True)
        session.add(channel)
        session.commit()
        return channel.id


def make_incident(
    factory: sessionmaker[Session], *, metrics: int = 3, agent: str = "lab-1"
) -> tuple[int, list[int]]:
    """Runs on kernel 6.1 then 6.5, and an open incident "kernel 6.1 → 6.5" with one
    regression alert per metric (each 20 % slower); returns the incident and alert ids."""
    names = [f"create{i}.ops_per_s" for i in range(metrics)]
    runs = []
    for day, kernel, level in ((0, "6.1", 1000.0), (1, "6.5", 800.0)):
        body = run_body(
            agent=agent,
            started_at=(BASE_TIME + dt.timedelta(days=day)).isoformat(),
            results=[result(name, [level, level * 1.01, level * 0.99]) for name in names],
        )
        body["environment"]["kernel"] = kernel
        runs.append(RunCreate.model_validate(body))
    with factory() as session:
        runs_service.ingest(session, runs=runs, ignore_labels=["fs_version", "kernel"])
        before, after = (session.scalars(select(Run).where(Run.uuid == r.uuid)).one() for r in runs)
        cause = {"environment.kernel": {"before": "6.1", "after": "6.5"}}
        incident = Incident(
            key=f"cause:test-{after.id}", agent_id=after.agent_id, title="kernel 6.1 → 6.5",
            cause=cause, status="open", version=1, opened_at=after.started_at,
        )  # fmt: skip
        session.add(incident)
        session.flush()
        series = session.scalars(
            select(Series).where(Series.agent_id == after.agent_id).order_by(Series.metric)
        ).all()
        alerts = []
        for i, one in enumerate(series):
            alert = Alert(
                series_id=one.id, incident_id=incident.id, change_run_id=after.id,
                previous_run_id=before.id, change_at=after.started_at, kind="regression",
                before=1000.0, after=800.0 - i, change_pct=-20.0 - i / 10, confidence=0.999,
                tentative=False, points_after=6, cause=cause, status="open", version=1,
            )  # fmt: skip
            session.add(alert)
            alerts.append(alert)
        session.commit()
        return incident.id, [a.id for a in alerts]


def record(
    factory: sessionmaker[Session], *, event: str, key: str, incident_id: int | None = None,
    alert_id: int | None = None,
) -> int:  # fmt: skip
    """What the alerts service does with a state change: record() in its transaction."""
    with factory() as session:
        added = notification_service.record(
            session, event=event, key=key, incident_id=incident_id, alert_id=alert_id
        )
        session.commit()
    return added


def notifications(factory: sessionmaker[Session]) -> list[Notification]:
    with factory() as session:
        return list(session.scalars(select(Notification).order_by(Notification.id)))
