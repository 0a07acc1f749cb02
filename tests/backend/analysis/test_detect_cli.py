"""`perfatlas detect` end to end: a real subprocess reading a file or stdin (no database)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
from typer.testing import CliRunner

from perfatlas.analysis.detector import detect, detect_many
from perfatlas.analysis.synthetic import random_series, series
from perfatlas.cli import app


def run(
    *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFATLAS_")}
    return subprocess.run(
        [sys.executable, "-m", "perfatlas", "detect", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )


def document() -> dict[str, Any]:
    rng = np.random.default_rng(1)
    step = series(rng, 40, "gaussian", changes=[(17, -10.0)], samples=3)
    quiet = series(rng, 30, "outliers")
    contexts = [{"env": {"kernel": "6.1"}}] * 17 + [{"env": {"kernel": "6.6"}}] * 23
    return {
        "series": [
            {"id": "s1", "direction": "higher", "points": step.points},
            {"id": "quiet", "direction": "lower", "points": quiet.points},
            {"id": 7, "direction": "lower", "points": step.points, "contexts": contexts},
        ]
    }


def test_detect_file(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    path.write_text(json.dumps(document()))
    done = run("--input", str(path))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [s["id"] for s in out["series"]] == ["s1", "quiet", 7]
    (cp,) = out["series"][0]["change_points"]
    assert abs(cp["index"] - 17) <= 2
    assert cp["kind"] == "regression"
    assert cp["change_pct"] < -10
    assert cp["after"] < cp["before"]
    assert 0.99 <= cp["confidence"] <= 1
    assert cp["tentative"] is False
    assert set(cp) >= {"index", "before", "after", "change_pct", "confidence", "kind"}
    assert out["series"][1]["change_points"] == []
    (with_cause,) = out["series"][2]["change_points"]
    assert with_cause["kind"] == "improvement"  # lower is better, and it went down
    assert with_cause["cause"] == {"env.kernel": {"before": "6.1", "after": "6.6"}}


def test_detect_stdin_with_plain_numbers() -> None:
    points = [1.0, 1.02, 0.99, 1.01, 1.0, 0.98, 1.02, 1.0, 1.01, 0.99] * 2 + [
        0.8,
        0.82,
        0.79,
        0.81,
    ] * 3
    done = run(
        "--input",
        "-",
        stdin=json.dumps({"series": [{"id": "a", "direction": "higher", "points": points}]}),
    )
    assert done.returncode == 0, done.stderr
    (cp,) = json.loads(done.stdout)["series"][0]["change_points"]
    assert cp["index"] == 20
    assert cp["change_pct"] < -15


def test_detect_reports_bad_input_by_series_and_point(tmp_path: Path) -> None:
    bad_point = {
        "series": [
            {"id": "ok", "direction": "higher", "points": [1, 2, 3]},
            {"id": "s9", "direction": "higher", "points": [[1.0], [2.0, "fast"], 3]},
        ]
    }
    done = run("--input", "-", stdin=json.dumps(bad_point))
    assert done.returncode == 2
    assert "series 's9'" in done.stderr and "point 1" in done.stderr
    assert done.stdout == ""


def test_detect_errors_name_the_problem(tmp_path: Path) -> None:
    """The same command in-process (a subprocess per case would only repeat the imports)."""
    runner = CliRunner()
    cases = [
        ({"series": [{"id": "d", "direction": "up", "points": [1]}]}, "series 'd': direction"),
        ({"series": [{"id": "e", "direction": "lower"}]}, "series 'e': points"),
        ({"series": [{"id": "f", "direction": "lower", "points": [1, []]}]}, "point 1: no samples"),
        ({"series": [{"id": "h", "direction": "lower", "points": [1, True]}]}, "point 1"),
        ({"series": [{"id": "i", "direction": "lower", "points": [1]}] * 2}, "appears twice"),
        ({"runs": []}, '{"series": [...]}'),
        (
            {"series": [{"id": "g", "direction": "lower", "points": [1], "contexts": []}]},
            "contexts",
        ),
    ]
    for doc, message in cases:
        done = runner.invoke(app, ["detect", "--input", "-"], input=json.dumps(doc))
        assert done.exit_code == 2 and message in done.stderr, (doc, done.stderr)
    done = runner.invoke(app, ["detect", "--input", "-"], input="{not json")
    assert done.exit_code == 2 and "not JSON" in done.stderr
    done = runner.invoke(app, ["detect", "--input", str(tmp_path / "missing.json")])
    assert done.exit_code == 2 and "cannot read" in done.stderr
    ok = {"series": [{"id": "j", "direction": "lower", "points": [1.0] * 12}]}
    done = runner.invoke(
        app, ["detect", "--input", "-", "--min-confidence", "0.999"], input=json.dumps(ok)
    )
    assert done.exit_code == 0 and json.loads(done.stdout) == {
        "series": [{"id": "j", "change_points": []}]
    }


def test_detect_many_matches_detect() -> None:
    rng = np.random.default_rng(4)
    data = [random_series(rng, n=int(rng.choice([30, 60, 100]))) for _ in range(120)]
    items = [(s.points, "lower" if i % 3 else "higher") for i, s in enumerate(data)]
    assert detect_many(items) == [detect(p, d) for p, d in items]  # type: ignore[arg-type]
