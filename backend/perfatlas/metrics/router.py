"""GET /metrics: Prometheus's text format, with a read token (a scrape config's
`authorization: {credentials: <token>}`), or none under PERFATLAS_PUBLIC_READ."""

from __future__ import annotations

from collections.abc import Iterator

from fastapi import APIRouter, Request, Response
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import Metric
from prometheus_client.registry import Collector

from perfatlas.api.deps import ReadPrincipal
from perfatlas.metrics.service import database_metrics

router = APIRouter(tags=["metrics"])
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class _Database(Collector):
    def __init__(self, request: Request) -> None:
        self.request = request

    def collect(self) -> Iterator[Metric]:
        state = self.request.app.state
        with state.session_factory() as session:
            yield from database_metrics(session, state.settings)


@router.get(
    "/metrics", operation_id="metrics", response_class=Response,
    responses={200: {"content": {CONTENT_TYPE: {}}, "description": "Prometheus text format"}},
)  # fmt: skip
def metrics(request: Request, _: ReadPrincipal) -> Response:
    """Prometheus metrics: this process's requests and uploads, and the database's backlogs,
    jobs, notifications and worker heartbeat."""
    scrape = CollectorRegistry(auto_describe=False)
    scrape.register(_Database(request))
    body = generate_latest(REGISTRY) + generate_latest(scrape)
    return Response(body, media_type=CONTENT_TYPE)
