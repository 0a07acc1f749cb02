"""Bring uploaded runs to a fold state, as the worker would leave them: all pending, half folded
into explore's rollups, or all folded; the tests of what reads rollups and pending runs together
(explore's oracle, group compare) run their checks in each."""

from __future__ import annotations

from sqlalchemy.orm import Session

from perfatlas.rollups import fold
from perfatlas.rollups import service as rollups

FOLD_STATES = ("pending", "half", "folded")


def fold_to(session: Session, state: str, runs: int) -> int:
    """Folds `runs` pending runs (all there are) to `state`; returns how many are left pending."""
    assert state in FOLD_STATES, state
    assert fold.pending_count(session) == runs
    if state == "half":
        assert fold.fold_batch(session, limit=runs // 2) == runs // 2
        session.commit()
    elif state == "folded":
        assert rollups.fold_pending(session).runs == runs
    left = {"pending": runs, "half": runs - runs // 2}.get(state, 0)
    assert fold.pending_count(session) == left
    return left
