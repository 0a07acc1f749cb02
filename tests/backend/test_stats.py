"""Result summaries: the same numbers Python's statistics module and PostgreSQL give."""

from __future__ import annotations

import random
import statistics

import pytest
from sqlalchemy import text

from perfatlas.runs.stats import summarize


@pytest.mark.parametrize("n", [1, 2, 3, 5, 10, 101])
def test_summary_matches_statistics_and_percentile_cont(n: int, engine) -> None:
    rng = random.Random(n)
    samples = [rng.lognormvariate(0, 1) for _ in range(n)]
    s = summarize(samples)
    assert s.n == n
    assert s.mean == pytest.approx(statistics.fmean(samples))
    assert s.stdev == pytest.approx(statistics.stdev(samples) if n > 1 else 0.0)
    assert (s.min, s.max) == (min(samples), max(samples))
    assert s.p50 == pytest.approx(statistics.median(samples))
    with engine.connect() as conn:
        pg = conn.execute(
            text(
                "SELECT percentile_cont(0.05) WITHIN GROUP (ORDER BY v),"
                " percentile_cont(0.95) WITHIN GROUP (ORDER BY v),"
                " percentile_cont(0.99) WITHIN GROUP (ORDER BY v) FROM unnest(CAST(:xs AS float8[])) v"
            ),
            {"xs": samples},
        ).one()
    assert (s.p5, s.p95, s.p99) == pytest.approx(tuple(pg))
