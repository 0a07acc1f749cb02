"""The first run's schedules: for each quick study and each target, one "now" schedule per
spec the study runs there (what `perfatlas-agent study spec NAME --quick` prints, with the
target set), labelled as `study run` labels its runs (study=, mount=, fs=) and firstrun=true."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from perfatlas_agent.firstrun.targets import Target
from perfatlas_agent.studies import Options, all_studies, get_study
from perfatlas_agent.studies.model import DEFAULT

PREFIX = "first run: "
LABEL = {"firstrun": "true"}


@dataclass(frozen=True)
class Planned:
    name: str  # the schedule's name
    study: str
    fs: str
    spec: dict[str, Any]


def parse_studies(text: str) -> list[str]:
    """Comma-separated study names; empty: all five."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        get_study(name)  # raises ParameterError naming the known ones
    return names or list(all_studies())


def schedules(studies: list[str], targets: list[Target], options: Options) -> list[Planned]:
    out: list[Planned] = []
    for name in studies:
        study = get_study(name)
        for target in targets:
            specs = study.specs(options, DEFAULT, [str(target.folder)], memory=target.memory,
                                labels=LABEL)  # fmt: skip
            for i, spec in enumerate(specs, 1):
                data = dict(vars(spec))
                data["labels"] = {**spec.labels, "fs": target.fs, **LABEL}
                part = f" ({i}/{len(specs)})" if len(specs) > 1 else ""
                title = f"{PREFIX}{name} on {target.fs}{part}"
                out.append(Planned(title, name, target.fs, data))
    return out
