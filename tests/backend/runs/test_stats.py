"""Result summaries: the same numbers Python's statistics module and PostgreSQL give."""

from __future__ import annotations

import random
import statistics

import pytest
from sqlalchemy import text

from perfatlas.core.stats import Summary, summarize, summarize_columns


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


def test_summaries_of_a_batch_are_summarize_bit_for_bit() -> None:
    """Ingest summarizes a whole batch at once (numpy); every number must be summarize()'s."""
    rng = random.Random(11)
    batch = []
    for i in range(3000):
        n = rng.choice([1, 2, 3, 5, 5, 5, 7, 10, 20, 101])
        if i % 4 == 0:
            samples = [rng.lognormvariate(0, 2) for _ in range(n)]
        elif i % 4 == 1:
            samples = [round(rng.uniform(90, 110), 3) for _ in range(n)]
        elif i % 4 == 2:
            samples = [rng.gauss(0, 1e6) for _ in range(n)]
        else:  # cancellation: fsum and a plain sum differ
            samples = [rng.choice([1.0, 1e16, -1e16, 0.1, 3.0]) for _ in range(n)]
        batch.append(samples)
    columns = summarize_columns(batch)
    for i, samples in enumerate(batch):
        got = tuple(columns[field][i] for field in Summary._fields)
        want = tuple(summarize(samples))
        assert got == want and [type(v) for v in got] == [type(v) for v in want], samples
    assert summarize_columns([]) == {field: [] for field in Summary._fields}
