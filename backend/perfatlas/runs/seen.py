"""What an upload notes on the agents that ran its runs: when each was last seen, and its
version (that of its newest run)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import Table, case, func, or_, select, update
from sqlalchemy.orm import Session

from perfatlas.agents.models import Agent
from perfatlas.core.models import utcnow
from perfatlas.runs.models import Run


def touch_agents(
    session: Session,
    *,
    runs: Sequence[tuple[str, dt.datetime, str | None]],
    agent_ids: dict[str, int],
) -> None:
    """Notes an upload of (agent, started_at, agent_version) runs, already inserted.

    Last seen is the time of the agent's last upload (the server's clock, never moved back);
    its version is that of its newest run, so a late upload of an old run does not change it.
    Rows are updated in name order, so concurrent uploads cannot deadlock on them."""
    now = utcnow()
    newest: dict[str, tuple[dt.datetime, str | None]] = {}
    for agent, started_at, agent_version in runs:
        prev = newest.get(agent)
        if prev is None or started_at >= prev[0]:
            newest[agent] = (started_at, agent_version or (prev[1] if prev else None))
    # The table's own columns: an ORM update would also look for the rows' objects in the
    # session to bring them up to date, a third of this function's time on every upload (the
    # session holds none; the caller commits, which expires whatever it holds).
    table = cast(Table, Agent.__table__)
    agents = table.c
    for name in sorted(newest):
        started, version = newest[name]
        agent_id = agent_ids[name]
        later = or_(agents.last_seen_at.is_(None), agents.last_seen_at < now)
        values: dict[str, Any] = {"last_seen_at": case((later, now), else_=agents.last_seen_at)}
        if version:
            # This batch's runs are inserted already: the version changes when its newest run is
            # the agent's newest (max over ix_runs_agent_id_started_at, one index probe).
            stored_newest = (
                select(func.max(Run.started_at)).where(Run.agent_id == agent_id).scalar_subquery()
            )
            values["version"] = case((stored_newest <= started, version), else_=agents.version)
        session.execute(update(table).where(agents.id == agent_id).values(**values))
