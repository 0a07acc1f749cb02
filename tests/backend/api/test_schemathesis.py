"""Schemathesis over every route of a real `perfatlas serve` on PostgreSQL: generated requests,
valid and invalid, must never get a 5xx, and every answer must be one the OpenAPI document
lists, in the shape it gives. The seed is fixed (derandomize) and the cases bounded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import APIOperation, Case, GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from perfatlas.core.db import get_engine, session_factory
from perfatlas.health.service import beat
from tests.conftest import IDLE_QUEUE, LiveServer, serve
from tests.factories import result, run_body

# Per operation; about 35 operations. Keeps the test near a minute on two cores.
EXAMPLES = 25
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def fuzzed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # A heartbeat (below) counts for the whole run: no worker beats here.
    with serve(
        "schemathesis", Path(tmp_path_factory.mktemp("schemathesis")),
        PERFATLAS_READY_HEARTBEAT_SECONDS="86400",
    ) as server:  # fmt: skip
        headers = {"Authorization": f"Bearer {server.upload_token}"}
        # Something to list and read, so that answers with data are checked too.
        runs = [
            run_body(agent=agent, target=target, results=[result("create.ops_per_s", [v, v + 1])])
            for agent in ("fuzz-a", "fuzz-b")
            for target, v in (("/mnt/ext4", 100.0), ("/mnt/xfs", 120.0))
        ]
        upload = httpx.post(f"{server.url}/api/v1/runs/batch", json={"runs": runs}, headers=headers)
        assert upload.status_code == 200, upload.text
        # No worker runs here: its heartbeat, so that /ready answers 200 (a 503 is a 5xx).
        with session_factory(get_engine(server.database_url))() as session:
            beat(session, queue=IDLE_QUEUE)
        yield server


def test_no_route_answers_5xx_or_off_its_schema(fuzzed_server: LiveServer) -> None:
    api = schemathesis.openapi.from_url(f"{fuzzed_server.url}/openapi.json")
    headers = {"Authorization": f"Bearer {fuzzed_server.admin_token}"}
    operations = [result.ok() for result in api.get_all_operations()]
    document = httpx.get(f"{fuzzed_server.url}/openapi.json").json()
    assert len(operations) == sum(len(path) for path in document["paths"].values()) > 30
    failures: list[str] = []
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            failure = _fuzz(operation, mode, headers)
            if failure:
                failures.append(f"{operation.label} ({mode.value}): {failure}")
    assert fuzzed_server.log is not None
    errors = [line for line in fuzzed_server.log.read_text().splitlines() if "Error" in line]
    assert not failures, "\n\n".join([*failures, "server log:", *errors[-40:]])


def _fuzz(operation: APIOperation, mode: GenerationMode, headers: dict[str, str]) -> str | None:
    """The first failure of the operation's generated cases (None: all passed)."""

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    def run(case: Case) -> None:
        case.call_and_validate(headers=headers, checks=CHECKS)

    try:
        run()
    except Unsatisfiable:
        if mode is GenerationMode.POSITIVE:
            raise
        return None  # no invalid request to make (an operation without parameters)
    except (Exception, BaseExceptionGroup) as exc:  # a check failed: report it with the others
        return str(exc)[:3000]
    return None
