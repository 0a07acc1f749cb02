"""Which dimension a disagreeing headline is split by (compare/split.py), on plain pairs."""

from __future__ import annotations

from perfatlas.compare import split


def attrs(*rows: dict[str, str]) -> list[dict[str, str]]:
    return list(rows)


def test_the_dimension_that_separates_the_verdicts_is_chosen():
    pairs = attrs({"agent": "a", "fsync": "file", "fsync_policy": "file"},
                  {"agent": "b", "fsync": "file", "fsync_policy": "file"},
                  {"agent": "a", "fsync": "none", "fsync_policy": "none"},
                  {"agent": "b", "fsync": "none", "fsync_policy": "none"})  # fmt: skip
    verdicts = [["worse"], ["worse"], ["noise"], ["noise"]]
    # The parameter and the durability fact part the pairs alike: the parameter is named.
    assert split.choose(pairs, verdicts) == "fsync"
    assert split.varying(pairs) == ["agent", "fsync", "fsync_policy"]
    # Without the parameter, the fact; never the agent, which separates nothing.
    no_param = [{k: v for k, v in p.items() if k != "fsync"} for p in pairs]
    assert split.choose(no_param, verdicts) == "fsync_policy"


def test_no_split_when_the_pairs_agree_or_nothing_separates_them():
    pairs = attrs({"agent": "a", "fsync": "file"}, {"agent": "b", "fsync": "none"})
    assert split.choose(pairs, [["worse"], ["worse"]]) is None
    # Untested verdicts do not make a disagreement.
    assert split.choose(pairs, [["worse"], ["few"]]) is None
    assert split.choose(pairs[:1], [["worse"]]) is None
    same = attrs({"agent": "a"}, {"agent": "a"})
    assert split.choose(same, [["worse"], ["noise"]]) is None


def test_a_value_per_pair_does_not_win_by_cutting_into_ones():
    pairs = [{"agent": f"m{i}", "fsync": "file" if i < 3 else "none"} for i in range(6)]
    verdicts = [["worse"]] * 3 + [["noise"]] * 3
    assert split.choose(pairs, verdicts) == "fsync"
    # A split no purer than none is no split: 3 of 4 worse already read "worse".
    four = [{"agent": f"m{i}", "fsync": "file" if i < 2 else "none"} for i in range(4)]
    assert split.choose(four, [["worse"], ["worse"], ["worse"], ["noise"]]) is None


def test_not_comparable_pairs_are_split_from_the_judged_ones_over_every_column():
    pairs = attrs({"fsync": "file", "memory_backed": "false"},
                  {"fsync": "none", "memory_backed": "false"},
                  {"fsync": "file", "memory_backed": "false/true"},
                  {"fsync": "none", "memory_backed": "false/true"})  # fmt: skip
    verdicts = [
        ["worse", None],
        ["noise", None],
        [None, "not_comparable"],
        [None, "not_comparable"],
    ]
    assert split.choose(pairs, verdicts) == "fsync"


def test_subset_values_in_natural_order_absent_last():
    assert split.ordered(["2.1.10", split.ABSENT, "2.1.9", "2.2.0"]) == [
        "2.1.9", "2.1.10", "2.2.0", split.ABSENT
    ]  # fmt: skip
