"""Synthetic storage-like series with known change points, for tests and the benchmark."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

Noise = Literal["gaussian", "student_t", "outliers", "bimodal"]
FloatArray = NDArray[np.float64]
NOISES: tuple[Noise, ...] = ("gaussian", "student_t", "outliers", "bimodal")


@dataclass(frozen=True)
class Series:
    """One generated series: `points` are values or sample lists; `changes` the true indices."""

    points: list[float] | list[list[float]]
    changes: list[int]
    noise: Noise
    drift: bool


def noise(rng: np.random.Generator, kind: Noise, size: int, scale: float) -> FloatArray:
    """Additive noise with scale `scale` (the standard deviation of its gaussian core)."""
    if kind == "student_t":
        # Three degrees of freedom: finite variance, but a 5-scale excursion every ~100 points.
        return np.asarray(scale * rng.standard_t(3, size), dtype=np.float64)
    base = rng.normal(0.0, scale, size)
    if kind == "outliers":
        # Lone slow runs (a backup, a scrub, a cold cache): mostly down, 6 to 15 scales away.
        hit = rng.random(size) < 0.04
        sign = np.where(rng.random(size) < 0.75, -1.0, 1.0)
        base = base + hit * sign * rng.uniform(6.0, 15.0, size) * scale
    # gaussian, and the core of bimodal: series() moves one run in five (a cache miss) down.
    return np.asarray(base, dtype=np.float64)


def series(
    rng: np.random.Generator,
    n: int,
    kind: Noise,
    *,
    changes: Sequence[tuple[int, float]] = (),
    samples: int = 1,
    level: float = 1000.0,
    scale_pct: float = 2.0,
    drift_pct: float = 0.0,
    miss_rate: float = 0.2,
    miss_drop: float = 0.25,
) -> Series:
    """A series of n points; `changes` are (index, step in noise scales), applied in order.

    With `samples` > 1 every point gets that many repetitions sharing a run effect (half a
    scale), like repeated runs of one workload on one boot.
    """
    scale = level * scale_pct / 100.0
    mean = np.full(n, level, dtype=np.float64)
    for index, size in changes:
        mean[index:] += size * scale
    if drift_pct:
        mean += np.linspace(0.0, level * drift_pct / 100.0, n)
    run_effect = rng.normal(0.0, 0.5 * scale, n) if samples > 1 else np.zeros(n)
    out = []
    for i in range(n):
        vals = mean[i] + run_effect[i] + noise(rng, kind, samples, scale)
        if kind == "bimodal":
            vals = vals - (rng.random(samples) < miss_rate) * miss_drop * mean[i]
        out.append([float(v) for v in vals])
    points: list[float] | list[list[float]] = out if samples > 1 else [p[0] for p in out]
    return Series(points=points, changes=[c for c, _ in changes], noise=kind, drift=bool(drift_pct))


def random_series(
    rng: np.random.Generator,
    *,
    n: int | None = None,
    with_changes: bool | None = None,
    kind: Noise | None = None,
) -> Series:
    """A series from the benchmark mix: 20-200 points, 0-3 steps of 3-8 noise scales."""
    n = int(rng.integers(20, 201)) if n is None else n
    kind = NOISES[int(rng.integers(len(NOISES)))] if kind is None else kind
    with_changes = bool(rng.random() < 0.5) if with_changes is None else with_changes
    samples = int(rng.integers(3, 6)) if rng.random() < 0.3 else 1
    level = float(1000.0 * rng.uniform(0.5, 2.0))
    scale_pct = float(rng.uniform(1.0, 4.0))
    changes: list[tuple[int, float]] = []
    drift = 0.0
    if with_changes:
        # Room to judge each step: 6 points at the ends, 10 between steps.
        count = 1 if n < 40 else int(rng.integers(1, 3 if n < 100 else 4))
        for _ in range(50):
            idx = sorted(int(i) for i in rng.integers(6, n - 5, count))
            gaps = np.diff([0, *idx, n])
            if len(set(idx)) == count and gaps[1:-1].min(initial=99) >= 10:
                break
        else:
            idx = [n // 2]
        changes = [(i, float(rng.uniform(3.0, 8.0) * rng.choice([-1.0, 1.0]))) for i in idx]
    elif rng.random() < 0.2:
        # A slow drift (a filling disk, a fragmenting filesystem): not a step.
        drift = float(rng.uniform(3.0, 6.0) * scale_pct * rng.choice([-1.0, 1.0]))
    return series(
        rng,
        n,
        kind,
        changes=changes,
        samples=samples,
        level=level,
        scale_pct=scale_pct,
        drift_pct=drift,
    )
