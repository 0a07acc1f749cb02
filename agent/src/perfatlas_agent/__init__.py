"""PerfAtlas agent: run storage workloads, capture the environment, upload runs durably."""

from perfatlas_agent._exceptions import (
    AgentError,
    ParameterError,
    TargetError,
    UploadError,
    WorkloadError,
)

__version__ = "0.1.0"

__all__ = [
    "AgentError",
    "ParameterError",
    "TargetError",
    "UploadError",
    "WorkloadError",
    "__version__",
]
