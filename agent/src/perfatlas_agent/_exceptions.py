"""Typed errors of the agent; the CLI turns each into a clear message and an exit code."""


class AgentError(Exception):
    """Base of every error the agent raises on purpose."""

    exit_code = 1


class ParameterError(AgentError):
    """A workload parameter is unknown or has a value that cannot be used."""

    exit_code = 2


class TargetError(AgentError):
    """The target folder cannot be used (not empty and not ours, not a folder...)."""

    exit_code = 2


class InputError(AgentError):
    """A file given on the command line cannot be used (unreadable, not runs...)."""

    exit_code = 2


class WorkloadError(AgentError):
    """A workload failed while running (a tool missing, a command failing...)."""


class UploadError(AgentError):
    """Runs could not be delivered; they stay in the spool."""
