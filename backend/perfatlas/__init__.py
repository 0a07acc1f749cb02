"""PerfAtlas server: storage and filesystem performance history."""

__version__ = "0.1.0"
