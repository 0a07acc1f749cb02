"""Schedules: a workload spec, an agent selector and when to run it; each firing makes jobs."""
