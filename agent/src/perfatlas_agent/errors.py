"""Every exception the agent raises on purpose, under one base, AgentError: the command line
turns each into `error: <message>` and its `exit_code` (2 a bad parameter, spec, target, input
or configuration; 4 a refused token; 6 no room for the runs; 130 interrupted; 1 anything else).

One exception is deliberately not an AgentError: Abandon, a KeyboardInterrupt, which stops a
sweep the way Ctrl-C does (an `except Exception` must not catch it)."""

from __future__ import annotations

from typing import Any


class AgentError(Exception):
    """Base of every error the agent raises on purpose."""

    exit_code = 1


# Measuring: what to run, where, and the run itself.


class ParameterError(AgentError):
    """A workload parameter is unknown or has a value that cannot be used."""

    exit_code = 2


class SpecError(ParameterError):
    """A spec that does not have the shape; the message names the field."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"spec field {field_name}: {message}")
        self.field = field_name


class TargetError(AgentError):
    """The target folder cannot be used (not empty and not ours, not a folder...)."""

    exit_code = 2


class WorkloadError(AgentError):
    """A workload failed while running (a tool missing, a command failing...)."""


class MountError(AgentError):
    """A filesystem could not be made or mounted (the study skips it and says why)."""


class Interrupted(AgentError):
    """Ctrl-C (or an Abandon) during a sweep: the runs finished (and the partial one) are in
    `runs`; `reason` says why."""

    exit_code = 130

    def __init__(self, runs: list[dict[str, Any]], reason: str = "Ctrl-C") -> None:
        super().__init__(f"interrupted ({reason})")
        self.runs = runs
        self.reason = reason


class Abandon(KeyboardInterrupt):
    """Not an AgentError on purpose. Raised in the sweep's thread to stop a sweep at once, the
    way Ctrl-C does (so every workload's own handling of KeyboardInterrupt applies): the daemon
    raises it when its job is cancelled, its lease is lost or it is told to stop (SIGTERM)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# Keeping and sending runs.


class InputError(AgentError):
    """A file given on the command line cannot be used (unreadable, not runs...)."""

    exit_code = 2


class ConfigError(AgentError):
    """agent.json is missing or cannot be used."""

    exit_code = 2


class UnreadableRun(AgentError, ValueError):
    """A spool file that does not hold one readable run under its own name (also a ValueError,
    which it was before it became an AgentError: callers may catch either)."""


class NoRoom(AgentError):
    """The spool (or --output's folder) cannot keep the runs; nothing was measured."""

    exit_code = 6


class UploadError(AgentError):
    """Runs could not be delivered; they stay in the spool."""


class RetryExhausted(UploadError):
    """The retry deadline passed before the server took the runs."""


class TokenRejected(UploadError):
    """The server refused the upload token."""

    exit_code = 4


class ServerUnreachable(UploadError):
    """No answer from the server (connection refused, timeout...)."""


# The job protocol (daemon/protocol.py): the answer of one request.


class Revoked(AgentError):
    """401: the agent's token is refused (revoked, or not an agent token)."""

    exit_code = 4


class LeaseLost(AgentError):
    """409 lease_lost: the job is no longer this agent's (another attempt, or final)."""


class Transient(AgentError):
    """The server is unreachable or failing (connection error, 429, 5xx): try again later."""


class Refused(AgentError):
    """Any other answer: the request itself is wrong (a 4xx naming the field)."""


class Stopped(AgentError):
    """The daemon was told to stop while waiting to retry."""


__all__ = [
    "Abandon",
    "AgentError",
    "ConfigError",
    "InputError",
    "Interrupted",
    "LeaseLost",
    "MountError",
    "NoRoom",
    "ParameterError",
    "Refused",
    "RetryExhausted",
    "Revoked",
    "ServerUnreachable",
    "SpecError",
    "Stopped",
    "TargetError",
    "TokenRejected",
    "Transient",
    "UnreadableRun",
    "UploadError",
    "WorkloadError",
]
