"""partial-003 (seed 003, Tahoe-LAFS atlasperf): partial reads against the segment size and
the bytes read; and a `command` sweep of k and the segment size with one line per version:
the shipped erasure.py simulates a k-of-n download on the target (it really reads k blocks
per segment from k share files), its `version` label choosing how it reads."""

from __future__ import annotations

from perfatlas_agent.studies.model import Options, Part, Study, Variant

# The python running the agent (set by the CLI), so that any agent can run the example.
ERASURE_CMD = (
    '"${PERFATLAS_AGENT_PYTHON:-python3}" -m perfatlas_agent.studies.erasure '
    "--version {version} --k {k} --segsize {segsize} --filesize {filesize}"
)
VERSIONS = ("1.0", "1.1")


def build(o: Options) -> list[Part]:
    reps = {"repetitions": 3 if o.quick else 5, "warmup": not o.quick, "min_seconds": 0}
    if o.quick:
        partial = {"filesize": "16M", "segsize": ["16k", "128k"],
                   "readsize": ["1k", "64k", "1M"], "reads": 50, "cold": "per_read"}  # fmt: skip
        sweep = {"k": [3, 30, 60], "segsize": ["32k", "128k"], "filesize": "1M"}
    else:
        partial = {"filesize": "100M", "segsize": ["4k", "16k", "64k", "128k", "512k", "2M"],
                   "readsize": ["1", "1k", "16k", "128k", "1M", "10M"], "reads": 200,
                   "cold": "per_read"}  # fmt: skip
        sweep = {"k": [1, 3, 10, 20, 30, 40, 50, 60], "segsize": ["8k", "32k", "128k", "512k"],
                 "filesize": ["1M", "100M"]}  # fmt: skip
    parts = [Part({"workload": "partialread", **reps, "params": partial})]
    for version in VERSIONS:
        spec = {"workload": "command", **reps, "labels": {"version": version},
                "params": {"cmd": ERASURE_CMD, **sweep}}  # fmt: skip
        parts.append(Part(spec))
    return parts


STUDY = Study(
    name="partial-003",
    seed="003",
    title="Tahoe-LAFS: download time vs k and segment size; partial reads",
    measures="partial-read time vs segment size and bytes read; simulated erasure-coded "
    "download vs k and segment size, one line per version",
    variants=(Variant("default"),),
    build=build,
    estimate=("~20 s", "~10 min"),
)
