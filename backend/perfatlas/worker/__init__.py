"""The background worker: the Celery app and the beat schedule. The tasks themselves live in
their domains (`alerts/tasks.py`, `notifications/tasks.py`,
`schedules/tasks.py`)."""
