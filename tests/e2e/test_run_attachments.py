"""The run page lists the files kept with a run, and downloads one with the reader's token."""

from __future__ import annotations

import hashlib
import json
import uuid
import zipfile
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import LiveServer
from tests.e2e.conftest import shot
from tests.e2e.test_ui import login
from tests.factories import result, run_body


def test_run_page_lists_and_downloads_attachments(
    page: Any, ui_server: LiveServer, tmp_path: Path
) -> None:
    body = run_body(
        uuid=str(uuid.uuid4()), workload="command", agent="lab-attach", target="/mnt/tahoe",
        parameters={"k": 3, "segsize": 131072},
        results=[result("download.mb_per_s", [4.0, 4.1, 3.9], unit="MB/s")],
    )  # fmt: skip
    upload = {"Authorization": f"Bearer {ui_server.upload_token}"}
    assert httpx.post(f"{ui_server.url}/api/v1/runs", json=body, headers=upload).status_code == 201
    script = (
        b"#!/bin/sh\n# atlasperf: download a 1MB file with k=$1\ntahoe get URI:CHK:... /dev/null\n"
    )
    rows = "".join(f"1,{i},{i * 131072},4096,0.00{i + 1}\n" for i in range(300))
    files = {
        "script-atlasperf.sh": (script, "text/x-shellscript"),
        "latencies.csv": (("repetition,op,offset,bytes,seconds\n" + rows).encode(), "text/csv"),
        "stdout.txt": (b'=== rep0 ===\n{"download.mb_per_s": 4.0}\n', "text/plain"),
    }
    for name, (content, media_type) in files.items():
        put = httpx.put(
            f"{ui_server.url}/api/v1/runs/{body['uuid']}/attachments/{name}", content=content,
            headers={**upload, "Content-Type": media_type},
        )  # fmt: skip
        assert put.status_code == 201, put.text

    login(page, ui_server)
    page.goto(f"{ui_server.url}/runs/{body['uuid']}")
    table = page.get_by_test_id("attachments-table")
    table.wait_for()
    shown = [
        [cell.inner_text().strip() for cell in row.locator("td").all()[:4]]
        for row in table.locator("tbody tr").all()
    ]
    sha = {name: hashlib.sha256(content).hexdigest() for name, (content, _) in files.items()}
    csv_size = len(files["latencies.csv"][0])
    assert [r[0] for r in shown] == ["latencies.csv", "script-atlasperf.sh", "stdout.txt"]
    assert shown[0][1:3] == ["raw per-operation latencies", f"{csv_size / 1024:.1f} KiB"]
    assert shown[1][1:3] == ["script", f"{len(script)} B"]
    assert shown[0][3].startswith(sha["latencies.csv"][:12])
    assert shown[1][3].startswith(sha["script-atlasperf.sh"][:12])
    shot(page, "32b-run-attachments")

    row = table.locator("tr", has_text="script-atlasperf.sh")
    with page.expect_download() as info:
        row.get_by_role("button", name="Download").click()
    download = info.value
    assert download.suggested_filename == f"{body['uuid'][:8]}-script-atlasperf.sh"
    saved = tmp_path / "saved.sh"
    download.save_as(saved)
    assert saved.read_bytes() == script

    # The whole run in one file: its JSON and every attachment.
    with page.expect_download() as info:
        page.get_by_role("button", name="Download run (zip)").click()
    zipped = tmp_path / "run.zip"
    info.value.save_as(zipped)
    with zipfile.ZipFile(zipped) as zf:
        folder = f"run-{body['uuid']}"
        assert json.loads(zf.read(f"{folder}/run.json"))["uuid"] == body["uuid"]
        for name, (content, _) in files.items():
            assert zf.read(f"{folder}/attachments/{name}") == content
