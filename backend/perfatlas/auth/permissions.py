"""Who is asking and what they may do: a principal of some kind with a set of permissions.

A token's scope names a set of permissions (not a rank), so new kinds of principal (agents
today, people with roles later) get exactly the permissions they need."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal


class Permission(StrEnum):
    READ = "read"  # runs, series, explore, compare, alerts
    UPLOAD = "upload"  # runs and imports
    TRIAGE = "triage"  # alert and incident status
    ADMIN = "admin"  # tokens, notification channels, alert rules


class Scope(StrEnum):
    READ = "read"
    UPLOAD = "upload"
    ADMIN = "admin"
    AGENT = "agent"  # an agent's own token: reads, and uploads only as that agent


SCOPE_PERMISSIONS: dict[Scope, frozenset[Permission]] = {
    Scope.READ: frozenset({Permission.READ}),
    Scope.UPLOAD: frozenset({Permission.READ, Permission.UPLOAD, Permission.TRIAGE}),
    Scope.ADMIN: frozenset(Permission),
    Scope.AGENT: frozenset({Permission.READ, Permission.UPLOAD}),
}

PrincipalKind = Literal["token", "agent", "person", "anonymous"]


@dataclass(frozen=True, slots=True)
class Principal:
    kind: PrincipalKind
    name: str
    permissions: frozenset[Permission]
    token_id: int | None = None
    scope: Scope | None = None
    # Set for an agent: the only agent name it may upload as.
    agent: str | None = None

    def allows(self, needed: Permission) -> bool:
        return needed in self.permissions

    def may_act_as(self, agent: str) -> bool:
        return self.agent is None or self.agent == agent


ANONYMOUS_READER = Principal(
    kind="anonymous", name="anonymous", permissions=frozenset({Permission.READ})
)
