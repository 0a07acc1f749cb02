"""The worker's Celery app: every domain's task module (worker/schedule.py names them, with
their beat entries), and the broker's tables made before anything starts. Sending lives in
core/queue.py, which knows no domain: domains send to each other's tasks by name."""

from __future__ import annotations

from perfatlas.core.config import Settings, get_settings
from perfatlas.core.queue import PerfAtlasCelery, configure
from perfatlas.worker.schedule import DOMAINS, beat_schedule

# Every module that defines tasks (module-level `shared_task`s): one per domain that has any.
TASK_MODULES = tuple(tasks.__name__ for tasks in DOMAINS)


def make_celery(settings: Settings) -> PerfAtlasCelery:
    """The worker's app: the domains' task modules and the beat schedule."""
    app = configure(PerfAtlasCelery(settings, include=TASK_MODULES), settings)
    app.conf.update(beat_schedule=beat_schedule(settings))
    return app


def prepare_broker(settings: Settings) -> None:
    """The database broker's tables and its queues' rows (sqla+ URLs), made once, here, before
    the server and its worker start. kombu makes them on a process's first use, guarded only
    within that process: on a fresh database the worker's first declaration and the server's
    first send could both insert a queue's row, and the loser died (UNIQUE constraint failed:
    kombu_queue.name), taking the worker down at start. Redis needs nothing made."""
    if not settings.effective_broker_url.startswith("sqla+"):
        return
    from kombu.transport.sqlalchemy import Channel
    from sqlalchemy.exc import IntegrityError

    app = make_celery(settings)
    try:
        with app.connection_for_write() as connection:
            channel = connection.default_channel
            for queue in dict.fromkeys((settings.queue, settings.effective_notify_queue)):
                try:
                    channel.queue_declare(queue=queue)
                except IntegrityError:  # another process made it first: it is there
                    channel.session.rollback()
    finally:
        # kombu keeps its engines per class, for the process: the worker forks its beat and
        # pool after this, and a database connection must not cross a fork.
        for engine, _ in Channel._engines.values():
            engine.dispose()
        Channel._engines.clear()


def worker_app() -> PerfAtlasCelery:
    """The app `perfatlas worker` runs (settings from PERFATLAS_* variables)."""
    return make_celery(get_settings())
