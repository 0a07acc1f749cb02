"""bonnie++ imports in the bonnie-001 report: imported with the study's labels, they are seqio
runs (source=bonnie++, cache=warm) that its warm table and warm plot show beside the agent's
seqio runs, their figures bonnie's K/sec in MB/s; the cold blocks leave them out."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from tests.factories import result, run_body

API = "/api/v1"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "bonnie"
KIB_PER_MB = 1_000_000 / 1024


def bonnie_line(block_read_kib: int, size: str) -> str:
    """A bonnie++ 1.98 line whose Block input (get_block) is measured: K/sec and %CPU at
    fields 18 and 19 (1-based), the size at field 6."""
    fields = (FIXTURES / "tmpfs-quick.csv").read_text().strip().splitlines()[-1].split(",")
    fields[5] = size
    fields[17], fields[18] = str(block_read_kib), "25"
    return ",".join(fields)


def seqio_run(fs: str, cache: str, filesize: int, read: list[float]) -> dict[str, Any]:
    return run_body(
        workload="seqio", target=f"/mnt/{fs}", labels={"study": "bonnie-001", "fs": fs},
        parameters={"filesize": filesize, "blocksize": 8192, "direct": False, "seeks": 500,
                    "perchar": True, "perchar_size": 1 << 20, "cache": cache},
        cold_method="none" if cache == "warm" else "drop_caches",
        results=[result("read.mb_per_s", read, unit="MB/s"),
                 *(result(f"{phase}.mb_per_s", [50.0, 51.0, 52.0], unit="MB/s")
                   for phase in ("putc", "write", "rewrite", "getc")),
                 result("seeks.per_s", [300.0, 310.0, 320.0], unit="seeks/s")],
    )  # fmt: skip


def test_a_bonnie_import_shows_in_the_bonnie_report(client, settings, upload_headers, read_headers):
    from perfatlas.core.db import get_engine, session_factory
    from perfatlas.reports.defaults import install_defaults

    with session_factory(get_engine(settings.database_url))() as session:
        assert not [o for o in install_defaults(session) if o.state == "error"]
    # This machine's seqio runs, warm and cold, on ext4 and xfs.
    mine = {
        ("ext4", "warm"): [900.0, 950.0, 1000.0],
        ("xfs", "warm"): [800.0, 820.0, 840.0],
        ("ext4", "cold"): [120.0, 130.0, 125.0],
        ("xfs", "cold"): [110.0, 100.0, 105.0],
    }
    for (fs, cache), read in mine.items():
        made = client.post(f"{API}/runs", json=seqio_run(fs, cache, 8 << 20, read),
                           headers=upload_headers)  # fmt: skip
        assert made.status_code == 201, made.text
    # bonnie++ on the same filesystems, a 64 MiB file: imported with the study's labels.
    kib = {"ext4": 204_800, "xfs": 102_400}
    for fs, value in kib.items():
        imported = client.post(
            f"{API}/import/bonnie", content=bonnie_line(value, "64M").encode(),
            params={"label": ["study=bonnie-001", f"fs={fs}"], "agent": "lab-1",
                    "target": f"/mnt/{fs}"},
            headers={**upload_headers, "Content-Type": "text/csv"},
        )  # fmt: skip
        assert imported.status_code == 200, imported.text
    data = client.get(f"{API}/reports/study-bonnie-001/data", headers=read_headers).json()
    blocks = {b["title"]: d for b, d in zip(data["report"]["blocks"], data["blocks"], strict=True)}

    def block(start: str) -> dict[str, Any]:
        return next(d for title, d in blocks.items() if title.startswith(start))

    # The warm plot: per filesystem, the agent's run at 8 MiB and bonnie++'s at 64 MiB.
    warm = block("Block read MB/s against the file size, warm")["explore"]
    got = {(t["group"], p["x"]): (p["median"], p["n"]) for t in warm["traces"] for p in t["points"]}
    want = {}
    for fs in ("ext4", "xfs"):
        want[(fs, float(8 << 20))] = (statistics.median(mine[(fs, "warm")]), 1)
        want[(fs, float(64 << 20))] = (kib[fs] / KIB_PER_MB, 1)
    assert {k: (round(v, 6), n) for k, (v, n) in got.items()} == {
        (fs, float(x)): (round(v, 6), n) for (fs, x), (v, n) in want.items()}  # fmt: skip
    # The cold plot has the agent's cold runs only.
    cold = block("Block read MB/s against the file size, cold")["explore"]
    assert {(t["group"], p["x"]) for t in cold["traces"] for p in t["points"]} == {
        ("ext4", float(8 << 20)), ("xfs", float(8 << 20))}  # fmt: skip
    # The warm table: bonnie++'s series is a row of its own (label source=bonnie++), its ext4
    # and xfs cells bonnie's figures, beside the agent's row.
    assert block("Bonnie, warm reads")["error"] is None, block("Bonnie, warm reads")["error"]
    table = block("Bonnie, warm reads")["groups"]
    read = next(m for m in table["metrics"] if m["metric"] == "read.mb_per_s")
    rows = {pair["key"]["labels"].get("source", "agent"): pair["cells"] for pair in read["pairs"]}
    assert set(rows) == {"bonnie++", "agent"}
    column = {fs: table["values"].index(fs) for fs in ("ext4", "xfs")}
    for fs in ("ext4", "xfs"):
        assert rows["bonnie++"][column[fs]]["value"] == kib[fs] / KIB_PER_MB
        assert rows["agent"][column[fs]]["value"] == statistics.median(mine[(fs, "warm")])
    assert not [p for p in block("Bonnie, cold reads")["groups"]["metrics"][0]["pairs"]
                if p["key"]["labels"].get("source")]  # fmt: skip
