"""The status enums are the API's values: the stored strings, the Literals of the schemas (and
so the OpenAPI document and the frontend's types) and the enums name the same set."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, get_args

import pytest

from perfatlas.alerts import enums as alert_enums
from perfatlas.alerts import schemas as alert_schemas
from perfatlas.notifications import enums as notification_enums
from perfatlas.notifications import schemas as notification_schemas


@pytest.mark.parametrize(
    ("enum", "literal"),
    [
        (alert_enums.AlertStatus, alert_schemas.AlertStatus),
        (alert_enums.AlertKind, alert_schemas.AlertKind),
        (alert_enums.Resolution, alert_schemas.Resolution),
        (alert_enums.IncidentStatus, alert_schemas.IncidentStatus),
        (notification_enums.NotificationStatus, notification_schemas.NotificationStatus),
        (notification_enums.ChannelKind, notification_schemas.ChannelKind),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_enum_values_are_the_api_values(enum: type[StrEnum], literal: Any) -> None:
    assert [member.value for member in enum] == list(get_args(literal))
    # Stored and serialised as the plain value.
    for member in enum:
        assert str(member) == member.value and f"{member}" == member.value
