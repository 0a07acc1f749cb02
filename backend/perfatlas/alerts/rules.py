"""Alert rules: which thresholds apply to a series (the most specific matching rule over the
defaults in settings), and whether a change point is worth an alert under them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from perfatlas.alerts.enums import AlertKind
from perfatlas.alerts.models import AlertRule
from perfatlas.alerts.schemas import RuleCreate, RuleList, RuleRead
from perfatlas.analysis.detector import ChangePoint
from perfatlas.core.config import Settings
from perfatlas.core.errors import Invalid, NotFound
from perfatlas.runs.models import Series


@dataclass(frozen=True)
class Thresholds:
    min_change_pct: float
    min_confidence: float
    mute: bool
    rule_id: int | None


def _specificity(rule: AlertRule) -> int:
    matchers = (rule.workload, rule.metric, rule.agent, rule.label_key, rule.label_value)
    return (100 if rule.series_id is not None else 0) + sum(m is not None for m in matchers)


def rule_matches(rule: AlertRule, series: Series, agent: str) -> bool:
    if rule.series_id is not None and rule.series_id != series.id:
        return False
    if rule.workload is not None and rule.workload != series.workload:
        return False
    if rule.metric is not None and rule.metric != series.metric:
        return False
    if rule.agent is not None and rule.agent != agent:
        return False
    if rule.label_key is not None:
        value = series.labels.get(rule.label_key)
        if value is None or (rule.label_value is not None and value != rule.label_value):
            return False
    return True


def thresholds_for(
    series: Series, agent: str, rules: Sequence[AlertRule], settings: Settings
) -> Thresholds:
    """The most specific matching rule (ties: the newest) over the defaults in settings; a
    matching rule that mutes wins whatever its specificity."""
    matching = [r for r in rules if rule_matches(r, series, agent)]
    if not matching:
        return Thresholds(settings.alert_min_change_pct, settings.alert_min_confidence, False, None)
    muting = [r for r in matching if r.mute]
    rule = max(muting or matching, key=lambda r: (_specificity(r), r.id))
    return Thresholds(
        min_change_pct=(
            rule.min_change_pct
            if rule.min_change_pct is not None
            else settings.alert_min_change_pct
        ),
        min_confidence=(
            rule.min_confidence
            if rule.min_confidence is not None
            else settings.alert_min_confidence
        ),
        mute=rule.mute,
        rule_id=rule.id,
    )


def alertable(cp: ChangePoint, limits: Thresholds) -> bool:
    if limits.mute or cp.kind != AlertKind.regression or cp.confidence < limits.min_confidence:
        return False
    return cp.change_pct is not None and abs(cp.change_pct) >= limits.min_change_pct


# ---- the rules as the API edits them (each call commits) ---------------------------------


def _rule_read(rule: AlertRule) -> RuleRead:
    return RuleRead.model_validate(rule, from_attributes=True)


def _check_series(session: Session, body: RuleCreate) -> None:
    if body.series_id is not None and session.get(Series, body.series_id) is None:
        raise Invalid("body.series_id", f"no series with id {body.series_id}")


def _get_rule(session: Session, rule_id: int) -> AlertRule:
    rule = session.get(AlertRule, rule_id)
    if rule is None:
        raise NotFound(f"no alert rule with id {rule_id}")
    return rule


def list_rules(session: Session, *, settings: Settings) -> RuleList:
    """The rules, and the default thresholds that apply where none matches."""
    rules = session.scalars(select(AlertRule).order_by(AlertRule.id))
    return RuleList(
        items=[_rule_read(r) for r in rules],
        defaults={
            "min_change_pct": settings.alert_min_change_pct,
            "min_confidence": settings.alert_min_confidence,
        },
    )


def create_rule(session: Session, *, body: RuleCreate) -> RuleRead:
    _check_series(session, body)
    rule = AlertRule(**body.model_dump())
    session.add(rule)
    session.commit()
    return _rule_read(rule)


def update_rule(session: Session, *, rule_id: int, body: RuleCreate) -> RuleRead:
    rule = _get_rule(session, rule_id)
    _check_series(session, body)
    for key, value in body.model_dump().items():
        setattr(rule, key, value)
    session.commit()
    return _rule_read(rule)


def delete_rule(session: Session, *, rule_id: int) -> None:
    session.delete(_get_rule(session, rule_id))
    session.commit()
