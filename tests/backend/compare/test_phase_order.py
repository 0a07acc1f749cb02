"""Metrics in phase order when runs hold different phases: a reference table without `stat`
(seed 000's) does not move `delete` before it; what no run orders goes by its earliest rank."""

from __future__ import annotations

from perfatlas.compare.common import phase_order


def _run(start: int, *metrics: str) -> list[tuple[str, int]]:
    # Result ids in upload order, listed here shuffled: the order comes from the ids.
    items = [(m, start + i) for i, m in enumerate(metrics)]
    return items[::-1]


def test_runs_with_fewer_phases_do_not_move_the_others() -> None:
    study = _run(100, "create", "read_cold", "read_warm", "stat", "delete")
    coda = _run(200, "create", "read_cold", "read_warm", "delete")
    xfs = _run(300, "create", "read", "delete")
    assert phase_order([xfs, coda, study]) == [
        "create", "read", "read_cold", "read_warm", "stat", "delete"]  # fmt: skip
    # The same phases the other way round in most runs: the majority wins.
    odd = _run(400, "delete", "create")
    assert phase_order([odd, study, coda])[0] == "create"
    assert phase_order([odd, odd, _run(500, "create", "delete")]) == ["delete", "create"]
