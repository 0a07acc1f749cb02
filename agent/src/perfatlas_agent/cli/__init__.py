"""The command line: `perfatlas-agent` (main.py) and its `study` group (study.py)."""
