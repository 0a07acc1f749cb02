"""Measuring: one RunRequest's sweep (sweep.py) and what it is made of (the target guard,
environment capture, statistics, parameters, --min-seconds, a run's files), and specs. No
network and no spool: what is measured is handed to a callback."""
