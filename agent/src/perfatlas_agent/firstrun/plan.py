"""The first run's schedules: for each quick study and each target, one "now" schedule per
spec the study runs there (what `perfatlas-agent study spec NAME --quick` prints, with the
target set), labelled as `study run` labels its runs (study=, mount=, fs=) and firstrun=true.
A disk filesystem is a target per variant the studies run on it (a `-o sync` mount, the write
cache set to write through), as `study run` remounts it for each, so that the reports' sync and
write-through columns have runs after `make up` as after `study run`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from perfatlas_agent.firstrun.targets import Target
from perfatlas_agent.studies import Options, all_studies, get_study
from perfatlas_agent.studies.model import DEFAULT, Variant

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


def variants(studies: list[str], options: Options) -> list[Variant]:
    """The variants these studies run specs on, on a disk filesystem: the default first, then
    each other one once (by name), in the studies' order."""
    out: dict[str, Variant] = {DEFAULT: Variant(DEFAULT)}
    for name in studies:
        study = get_study(name)
        for variant in study.variants:
            if variant.name not in out and study.specs(options, variant.name, ["/x"]):
                out[variant.name] = variant
    return list(out.values())


def schedules(studies: list[str], targets: list[Target], options: Options) -> list[Planned]:
    out: list[Planned] = []
    for name in studies:
        study = get_study(name)
        for target in targets:
            if target.variant not in study.variants:
                continue  # a mount this study does not use (another study's variant)
            specs = study.specs(options, target.variant.name, [str(target.folder)],
                                memory=target.memory, labels=LABEL)  # fmt: skip
            how = "" if target.variant.name == DEFAULT else f", {target.variant.describe()}"
            for i, spec in enumerate(specs, 1):
                data = dict(vars(spec))
                data["labels"] = {**spec.labels, "fs": target.fs, **LABEL}
                part = f" ({i}/{len(specs)})" if len(specs) > 1 else ""
                title = f"{PREFIX}{name} on {target.fs}{how}{part}"
                out.append(Planned(title, name, target.fs, data))
    return out
