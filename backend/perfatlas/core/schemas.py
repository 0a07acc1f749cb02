"""The building blocks of request bodies: names, short texts, free JSON, and the base models
that refuse unknown keys (and NULs)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, StringConstraints, model_validator

from perfatlas.core.inputs import NUL_MESSAGE, invalid, json_object, no_nul

NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_.\-]*$"
Name = Annotated[str, StringConstraints(pattern=NAME_PATTERN, min_length=1, max_length=64)]
MetricName = Annotated[str, StringConstraints(pattern=NAME_PATTERN, min_length=1, max_length=128)]
ParamText = Annotated[str, StringConstraints(max_length=256)]
ShortText = Annotated[ParamText, AfterValidator(no_nul)]
# Free-form JSON that must fit PostgreSQL JSONB and SQLite JSON (core.inputs.check_json).
JsonObject = Annotated[dict[str, Any], AfterValidator(json_object)]


class ClosedModel(BaseModel):
    """A request body part that refuses unknown keys."""

    model_config = ConfigDict(extra="forbid")


class StrictModel(ClosedModel):
    """A request body: unknown keys are refused, and so is a NUL in any of its own text fields
    (PostgreSQL cannot store one), whatever model derives from it; nested models and JSON
    fields check their own."""

    @model_validator(mode="after")
    def _no_nul_text(self) -> StrictModel:
        for name, value in self.__dict__.items():
            if isinstance(value, str) and "\x00" in value:
                raise invalid(NUL_MESSAGE, (name,))
        return self
