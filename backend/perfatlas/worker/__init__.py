"""The background worker: the Celery app and the beat schedule. The tasks and their periodic
entries live in their domains (`<domain>/tasks.py`)."""
