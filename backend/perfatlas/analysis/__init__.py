"""Change-point detection on performance series: pure functions, no database."""
