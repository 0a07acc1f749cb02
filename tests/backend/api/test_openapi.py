"""The OpenAPI document is the contract: every reference in it resolves, every operation has
a stable id, and the upload bodies are described."""

from __future__ import annotations

from typing import Any


def refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for value in node.values() for r in refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in refs(value)]
    return []


def test_openapi_document_is_complete(client) -> None:
    doc = client.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    for ref in refs(doc):
        assert ref.startswith("#/components/schemas/") and ref.rsplit("/", 1)[1] in schemas, ref
    operations = [op for path in doc["paths"].values() for op in path.values()]
    ids = [op["operationId"] for op in operations]
    assert len(ids) == len(set(ids))
    assert "__" not in "".join(ids)  # chosen, not FastAPI's generated names
    batch = doc["paths"]["/api/v1/runs/batch"]["post"]["requestBody"]
    assert batch["content"]["application/json"]["schema"]["$ref"].endswith("/RunBatchCreate")
    assert "samples" in schemas["ResultCreate"]["properties"]
