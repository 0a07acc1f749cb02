"""The five studies of the seeds, each a set of workload specs: `perfatlas-agent study`."""

from __future__ import annotations

from perfatlas_agent.errors import ParameterError
from perfatlas_agent.studies.model import Options, Part, Study, Variant


def all_studies() -> dict[str, Study]:
    from perfatlas_agent.studies import (
        bonnie_001,
        durability_004,
        partial_003,
        smallfiles_000,
        treewalk_002,
    )

    items = [m.STUDY for m in (smallfiles_000, bonnie_001, treewalk_002, partial_003,
                                durability_004)]  # fmt: skip
    return {s.name: s for s in items}


def get_study(name: str) -> Study:
    studies = all_studies()
    if name not in studies:
        raise ParameterError(f"unknown study {name!r}; known: {', '.join(studies)}")
    return studies[name]


__all__ = ["Options", "Part", "Study", "Variant", "all_studies", "get_study"]
