"""The /api/v1 router: every domain's routes."""

from __future__ import annotations

from fastapi import APIRouter

from perfatlas.agents.router import router as agents_router
from perfatlas.alerts.router import router as alerts_router
from perfatlas.attachments.router import router as attachments_router
from perfatlas.auth.router import router as auth_router
from perfatlas.compare.router import router as compare_router
from perfatlas.confirm.router import router as confirm_router
from perfatlas.explore.router import router as explore_router
from perfatlas.health.router import router as health_router
from perfatlas.imports.router import router as imports_router
from perfatlas.jobs.router import router as jobs_router
from perfatlas.metrics.router import router as metrics_router
from perfatlas.notifications.router import router as channels_router
from perfatlas.references.router import router as references_router
from perfatlas.reports.router import router as reports_router
from perfatlas.runs.router import router as runs_router
from perfatlas.schedules.router import router as schedules_router
from perfatlas.series.router import router as series_router

api_router = APIRouter(prefix="/api/v1")
api_router.include_router(runs_router)
api_router.include_router(series_router)
api_router.include_router(attachments_router)
api_router.include_router(explore_router)
api_router.include_router(compare_router)
api_router.include_router(imports_router)
api_router.include_router(references_router)
api_router.include_router(alerts_router)
api_router.include_router(channels_router)
api_router.include_router(auth_router)
api_router.include_router(agents_router)
api_router.include_router(jobs_router)
api_router.include_router(confirm_router)
api_router.include_router(schedules_router)
api_router.include_router(reports_router)
api_router.include_router(health_router)
api_router.include_router(metrics_router)
