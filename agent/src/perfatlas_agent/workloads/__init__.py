"""The registry of workloads, one plain module each."""

from __future__ import annotations

from perfatlas_agent.errors import ParameterError
from perfatlas_agent.workloads.base import RunContext, Workload


def all_workloads() -> dict[str, Workload]:
    from perfatlas_agent.workloads import (
        command,
        extract,
        fio,
        partialread,
        seqio,
        smallfile,
        treeops,
    )

    items: list[Workload] = [
        smallfile.SmallFile(),
        seqio.SeqIO(),
        treeops.TreeOps(),
        extract.Extract(),
        partialread.PartialRead(),
        fio.Fio(),
        command.Command(),
    ]
    return {w.name: w for w in items}


def get_workload(name: str) -> Workload:
    workloads = all_workloads()
    if name not in workloads:
        raise ParameterError(f"unknown workload {name!r}; known: {', '.join(workloads)}")
    return workloads[name]


__all__ = ["RunContext", "Workload", "all_workloads", "get_workload"]
