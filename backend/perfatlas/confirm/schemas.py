"""Bodies of the confirmation rounds (agents) and of an alert's confirmation (people)."""

from __future__ import annotations

import uuid as uuid_mod
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from perfatlas.core.inputs import INT32_MAX
from perfatlas.core.measurement import MAX_BATCH_RUNS, RunCreate
from perfatlas.core.schemas import StrictModel

Verdict = Literal["different", "same", "unknown"]


class RoundIn(StrictModel):
    attempt: Annotated[int, Field(ge=1, le=INT32_MAX, description="the attempt the claim gave")]
    round: Annotated[int, Field(ge=1, le=1000, description="1 for the first round")]
    runs: list[RunCreate] = Field(
        default_factory=list,
        max_length=MAX_BATCH_RUNS,
        description="the round's runs, every variant's (their labels say which)",
    )


class RoundOut(BaseModel):
    verdict: Verdict | None = Field(description="the answer once there is one")
    continue_: bool = Field(
        alias="continue", description="run another round (false: complete the job)"
    )
    cancel: bool = Field(
        default=False,
        description="the job was cancelled (its alert was resolved meanwhile): stop and "
        "complete it as cancelled",
    )

    model_config = {"populate_by_name": True}


class ConfirmationRun(BaseModel):
    uuid: uuid_mod.UUID
    variant: str = Field(description="candidate or baseline (by the run's labels)")
    median: float | None = Field(description="the run's value of the alert's metric")
    samples: list[float] = Field(description="its repetitions' values of that metric")


class ConfirmationRead(BaseModel):
    """The newest confirmation job of an alert and what it found so far."""

    job_id: int
    status: str = Field(description="the job's status")
    verdict: Verdict | None
    mode: Literal["baseline", "history"] = Field(
        description="baseline: candidate and baseline re-run in turns; history: the candidate "
        "re-run and compared with the series before the change"
    )
    note: str | None
    rounds: int
    rounds_max: int
    runs: list[ConfirmationRun]
    candidate_median: float | None
    baseline_median: float | None = Field(description="the baseline's (or history's) median")
    change_pct: float | None
    ci: list[float] | None = Field(description="95 % interval of the change, percent")
    plan: dict[str, Any]
