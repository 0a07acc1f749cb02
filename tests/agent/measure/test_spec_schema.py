"""The agent's spec is the server's: the JSON Schema kept in the agent package is the one the
server publishes (GET /openapi.json, components.schemas.WorkloadSpec), and the agent refuses
exactly the specs the server's model refuses (in strict mode: the published schema's JSON
types, without the coercions pydantic's lax mode adds), naming the field.

After a change of the server's WorkloadSpec: `.venv/bin/python -m tests.agent.measure.test_spec_schema`
rewrites the agent's copy."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from perfatlas.core.workload import WorkloadSpec as ServerSpec
from perfatlas_agent.errors import SpecError
from perfatlas_agent.measure import spec as agent_spec
from perfatlas_agent.measure.schema import Checker, UnknownKeyword

SCHEMA_PATH = Path(agent_spec.__file__).with_name(agent_spec.SCHEMA_FILE)
UPDATE = "`.venv/bin/python -m tests.agent.measure.test_spec_schema` rewrites it"


def test_the_agents_copy_is_the_servers_published_schema(client: Any) -> None:
    published = client.get("/openapi.json").json()["components"]["schemas"]["WorkloadSpec"]
    kept = json.loads(SCHEMA_PATH.read_text())
    assert kept == published, f"the server's WorkloadSpec schema changed: {UPDATE}"
    # The order the agent checks the fields in and names them in "known: ...".
    assert list(kept["properties"]) == list(published["properties"]), UPDATE


def test_the_agents_spec_has_the_schemas_fields_and_defaults() -> None:
    schema = agent_spec.schema()
    fields = {f.name: f for f in dataclasses.fields(agent_spec.WorkloadSpec)}
    assert list(fields) == list(schema["properties"])
    assert sorted(schema["required"]) == ["targets", "workload"]
    for name, sub in schema["properties"].items():
        field = fields[name]
        if "default" in sub:
            assert field.default == sub["default"], name
        elif name not in schema["required"]:
            assert field.default_factory() == {}, name  # type: ignore[misc]


def test_a_schema_with_a_keyword_the_check_does_not_know_is_refused() -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    schema["properties"]["targets"]["uniqueItems"] = True
    with pytest.raises(
        UnknownKeyword, match="#/properties/targets: the spec schema uses uniqueItems"
    ):
        Checker(schema, {})


def _spec(**change: Any) -> dict[str, Any]:
    return {"workload": "smallfile", "targets": ["/t"], **change}


def _without(name: str) -> dict[str, Any]:
    spec = _spec()
    del spec[name]
    return spec


# (spec, the field the agent names, or None when both take it)
CASES: list[tuple[Any, str | None]] = [
    (_spec(), None),
    (_spec(params={"size": ["4k", "64k"], "n": 1000, "x": 0.5, "f": True, "e": ""}), None),
    (_spec(params={"n": 2**63 - 1, "m": -(2**63) + 1, "a\n": 1}), None),
    (_spec(labels={"version": "1.2", "fs.kind": "x" * 256}, params={}), None),
    (_spec(repetitions=1000, min_seconds=3600, warmup=False), None),
    (_spec(repetitions=1, min_seconds=0, workload="a" * 64, targets=["/t"] * 64), None),
    (_spec(targets=["x" * 1024]), None),
    (_spec(params={"a": list(range(1000)), "b": list(range(10))}), None),
    ([], "(spec)"),
    ("smallfile", "(spec)"),
    (_spec(target="/t"), "target"),
    (_without("workload"), "workload"),
    (_without("targets"), "targets"),
    (_spec(workload="Small File"), "workload"),
    (_spec(workload=""), "workload"),
    (_spec(workload="a" * 65), "workload"),
    (_spec(workload="smallfile\n"), "workload"),
    (_spec(workload=12), "workload"),
    (_spec(targets=[]), "targets"),
    (_spec(targets="/t"), "targets"),
    (_spec(targets=["/t"] * 65), "targets"),
    (_spec(targets=["/t", ""]), "targets[1]"),
    (_spec(targets=["x" * 1025]), "targets[0]"),
    (_spec(targets=[1]), "targets[0]"),
    (_spec(params=[]), "params"),
    (_spec(params={"nfiles": []}), "params.nfiles"),
    (_spec(params={"nfiles": [1] * 1001}), "params.nfiles"),
    (_spec(params={"nfiles": {"a": 1}}), "params.nfiles"),
    (_spec(params={"nfiles": None}), "params.nfiles"),
    (_spec(params={"nfiles": [1, {"a": 1}]}), "params.nfiles[1]"),
    (_spec(params={"nfiles": [[1]]}), "params.nfiles[0]"),
    (_spec(params={"cmd": "y" * 4097}), "params.cmd"),
    (_spec(params={"bad name": 1}), "params.bad name"),
    (_spec(params={"1x": 1}), "params.1x"),
    (_spec(params={"x" * 65: 1}), "params." + "x" * 65),
    (_spec(params={"n": math.nan}), "params.n"),
    (_spec(params={"n": [1.0, math.inf]}), "params.n[1]"),
    (_spec(params={"n": 2**63}), "params.n"),
    (_spec(params={"n": -(2**63)}), "params.n"),
    (_spec(params={"a": list(range(1000)), "b": list(range(11))}), "params"),
    (_spec(labels=[]), "labels"),
    (_spec(labels={"version": 12}), "labels.version"),
    (_spec(labels={"v": "x" * 257}), "labels.v"),
    (_spec(labels={"bad name": "x"}), "labels.bad name"),
    (_spec(repetitions=0), "repetitions"),
    (_spec(repetitions=1001), "repetitions"),
    (_spec(repetitions="3"), "repetitions"),
    (_spec(repetitions=2.0), "repetitions"),
    (_spec(repetitions=True), "repetitions"),
    (_spec(min_seconds=-1), "min_seconds"),
    (_spec(min_seconds=3600.5), "min_seconds"),
    (_spec(min_seconds="1"), "min_seconds"),
    (_spec(min_seconds=True), "min_seconds"),
    (_spec(min_seconds=math.nan), "min_seconds"),
    (_spec(warmup="maybe"), "warmup"),
    (_spec(warmup=1), "warmup"),
    (_spec(warmup=None), "warmup"),
]


@pytest.mark.parametrize(("spec", "field"), CASES, ids=[repr(c[0])[:70] for c in CASES])
def test_the_agent_refuses_what_the_server_refuses(spec: Any, field: str | None) -> None:
    try:
        server = ServerSpec.model_validate(spec, strict=True)
    except ValidationError:
        server = None
    if field is None:
        assert server is not None, "the server refuses a spec the case says is good"
        mine = agent_spec.parse_spec(spec)
        assert dataclasses.asdict(mine) == server.model_dump()
        assert mine.points() == server.points()
    else:
        assert server is None, "the server takes a spec the agent refuses"
        with pytest.raises(SpecError) as caught:
            agent_spec.parse_spec(spec)
        assert caught.value.field == field
        assert str(caught.value).startswith(f"spec field {field}: ")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ([], "spec field (spec): expected a JSON object"),
        (
            _spec(target="/t"),
            "spec field target: unknown field; known: workload, targets, "
            "params, repetitions, labels, min_seconds, warmup",
        ),
        (_without("targets"), "spec field targets: missing (required)"),
        (
            _spec(workload="Small File"),
            "spec field workload: expected a workload name, not 'Small File'",
        ),
        (_spec(targets=[]), "spec field targets: expected a list of 1 to 64 folders"),
        (_spec(targets=["/t", ""]), "spec field targets[1]: expected a folder path, not ''"),
        (_spec(params=[]), "spec field params: expected an object of name: value or [values]"),
        (_spec(params={"n": []}), "spec field params.n: expected a list of 1 to 1000 values"),
        (
            _spec(params={"n": {"a": 1}}),
            "spec field params.n: expected a string, number, boolean or list, not dict",
        ),
        (
            _spec(params={"n": [1, None]}),
            "spec field params.n[1]: expected a string, number or boolean, not NoneType",
        ),
        (_spec(params={"cmd": "y" * 4097}), "spec field params.cmd: longer than 4096 characters"),
        (_spec(params={"n": 2**63}), f"spec field params.n: {2**63} is out of range"),
        (_spec(params={"n": math.inf}), "spec field params.n: inf is not a finite number"),
        (
            _spec(params={"bad name": 1}),
            "spec field params.bad name: bad name 'bad name': letters, digits, . _ - (at most 64)",
        ),
        (
            _spec(labels={"version": 12}),
            "spec field labels.version: expected a text of at most 256 characters, not 12",
        ),
        (
            _spec(repetitions=0),
            "spec field repetitions: expected a whole number from 1 to 1000, not 0",
        ),
        (_spec(min_seconds=-1), "spec field min_seconds: expected seconds from 0 to 3600, not -1"),
        (_spec(warmup="maybe"), "spec field warmup: expected true or false, not 'maybe'"),
        (
            _spec(params={"a": list(range(1000)), "b": list(range(11))}),
            "spec field params: the sweep expands to 11000 runs; at most 10000",
        ),
    ],
)
def test_messages_name_the_field_and_what_it_takes(spec: Any, message: str) -> None:
    with pytest.raises(SpecError) as caught:
        agent_spec.parse_spec(spec)
    assert str(caught.value) == message


def test_the_defaults_are_the_schemas() -> None:
    spec = agent_spec.parse_spec(_spec())
    assert (spec.params, spec.repetitions, spec.labels, spec.min_seconds, spec.warmup) == (
        {}, 3, {}, 0.5, True,
    )  # fmt: skip


def _write_the_servers_schema() -> None:
    os.environ.setdefault(
        "PERFATLAS_DATABASE_URL",
        "sqlite:///" + os.path.join(tempfile.gettempdir(), "perfatlas-spec.db"),
    )
    from perfatlas.main import create_app

    published = create_app().openapi()["components"]["schemas"]["WorkloadSpec"]
    SCHEMA_PATH.write_text(json.dumps(published, indent=1) + "\n")  # in the server's order
    print(f"wrote {SCHEMA_PATH}")


if __name__ == "__main__":
    _write_the_servers_schema()
