"""A reference table as it is posted (POST /references, `perfatlas reference import`)."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import ConfigDict, Field, StringConstraints, field_validator, model_validator

from perfatlas.core.inputs import RunTime, invalid
from perfatlas.core.measurement import Measurement, ParamValue, Unit, Workload
from perfatlas.core.schemas import ClosedModel, MetricName, Name, ShortText, StrictModel
from perfatlas.core.units import Direction
from perfatlas.imports.schemas import ImportDurability

MAX_COLUMNS = 100
MAX_ROWS = 1000
_URL = re.compile(r"https?://[^\s\x00]+", re.IGNORECASE)
AgentName = Annotated[str, StringConstraints(min_length=1, max_length=128)]
TargetName = Annotated[str, StringConstraints(min_length=1, max_length=1024)]
Text = Annotated[str, StringConstraints(min_length=1, max_length=4000)]


class ReferenceDurability(ImportDurability):
    """What the source says of durability; anything it does not say is stored as unknown."""

    model_config = ConfigDict(extra="forbid")


class ReferenceColumn(StrictModel):
    """One column of the source's table: one run (a filesystem, a version, a mode)."""

    name: Annotated[ShortText, StringConstraints(min_length=1)] = Field(
        description="the column's heading in the source, such as NFS"
    )
    agent: AgentName | None = Field(
        default=None, description="the machine it ran on, as a name (default: the table's)"
    )
    target: TargetName | None = Field(
        default=None, description="what was tested (default: the column's name)"
    )
    labels: dict[Name, ShortText] = Field(default_factory=dict, max_length=100)
    parameters: dict[Name, ParamValue] = Field(default_factory=dict, max_length=100)


class ReferenceRow(ClosedModel):
    """One metric: a value per column (null where the source gives none)."""

    metric: MetricName
    unit: Unit
    direction: Direction | None = Field(
        default=None, description="higher or lower is better; implied by time and rate units"
    )
    values: list[Measurement | None] = Field(max_length=MAX_COLUMNS)


class ReferenceCreate(StrictModel):
    source_url: Annotated[str, StringConstraints(max_length=2048)] = Field(
        description="where the figures are published (http or https)"
    )
    title: Annotated[str, StringConstraints(max_length=256)] | None = None
    description: Text = Field(description="what the numbers are: what was measured, how, on what")
    note: Annotated[str, StringConstraints(max_length=4000)] | None = Field(
        default=None, description="anything else worth knowing (caveats, how cells were read)"
    )
    workload: Workload
    agent: AgentName = Field(
        default="reference", description="the machine, as a name, for columns that give none"
    )
    started_at: RunTime | None = Field(
        default=None,
        description="when the figures were measured; without it the runs get the time of "
        "their first import (a re-import keeps it)",
    )
    parameters: dict[Name, ParamValue] = Field(default_factory=dict, max_length=100)
    labels: dict[Name, ShortText] = Field(default_factory=dict, max_length=100)
    durability: ReferenceDurability = Field(default_factory=ReferenceDurability)
    columns: list[ReferenceColumn] = Field(min_length=1, max_length=MAX_COLUMNS)
    rows: list[ReferenceRow] = Field(min_length=1, max_length=MAX_ROWS)

    @field_validator("source_url")
    @classmethod
    def _url(cls, value: str) -> str:
        if not _URL.fullmatch(value):
            raise ValueError("must be an http:// or https:// URL")
        return value

    @model_validator(mode="after")
    def _table(self) -> ReferenceCreate:
        names = [column.name for column in self.columns]
        for index, name in enumerate(names):
            if name in names[:index]:
                raise invalid(f"{name!r} names two columns", ("columns", index, "name"))
        metrics: set[str] = set()
        for index, row in enumerate(self.rows):
            if row.metric in metrics:
                raise invalid(f"metric {row.metric!r} appears twice", ("rows", index, "metric"))
            metrics.add(row.metric)
            if len(row.values) != len(self.columns):
                raise invalid(
                    f"{len(row.values)} values for {len(self.columns)} columns: give one per "
                    f"column (null where the source has none)",
                    ("rows", index, "values"),
                )
        for index, name in enumerate(names):
            if all(row.values[index] is None for row in self.rows):
                raise invalid(f"column {name!r} has no value in any row", ("columns", index))
        return self
