"""The detector's tuning: how sure, how local and how patient it is (one place to read them)."""

from __future__ import annotations

# A change is tentative until this many points follow it; its "after" level is the median of
# exactly these points, so once it is confirmed its level never moves again.
CONFIRM_POINTS = 6
# The "before" level: up to this many points just before the change (all in the past).
BEFORE_POINTS = 10
# Significance of each split, after the scan over every split of the segment is accounted for.
DEFAULT_MIN_CONFIDENCE = 0.99
# The step must stand out from a local straight line through both sides by this many standard
# errors; otherwise it is a drift, and a drift cut into steps is the classic false alarm.
DRIFT_T = 3.5
# Points each side of a split that the drift check looks at: local, so a trend elsewhere in a
# long history does not hide a step, and a step elsewhere does not bend the line.
DRIFT_WINDOW = 30
# Binary segmentation cannot see a short excursion (a regression fixed 15 runs later) in a
# long segment: the two steps cancel in the whole-segment scan. Segments of two windows or more
# are also scanned in windows of this many points, overlapping by half, each at alpha / count.
WINDOW = 32
# A split found only in a window is the best of many looks at a short stretch, and a drift
# offers plenty of those: it must stand out from the local line by more.
WINDOW_DRIFT_T = 5.0
# Candidate splits tried per segment when the best one turns out to be a drift.
CANDIDATES = 3
# The null table is simulated: past 1e-4 more digits of confidence would be noise.
CONFIDENCE_CAP = 0.9999
# How far (points) the final pass may move a change once its neighbours are known.
REFINE = 4
