"""Keeping and sending runs: the spool, the fallback spool and memory (keep.py), the upload
client, `run`'s measure, keep and send (deliver.py), `upload [FILE]` and what they print."""
