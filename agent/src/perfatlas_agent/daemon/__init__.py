"""The enrolled agent: the job protocol (protocol.py), the daemon's loop (loop.py), one job
(job.py, confirm.py), its progress (progress.py) and the stop flag (stopping.py)."""
