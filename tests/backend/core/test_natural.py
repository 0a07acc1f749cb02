"""The natural order of dimension values (core/natural.py): the issue's examples, and the
properties a sort key needs (a total order: every pair compares one way, transitively; a sort
by it the same whatever the input order)."""

from __future__ import annotations

import itertools
import random

import pytest

from perfatlas.core.errors import Invalid
from perfatlas.core.natural import (
    natural_key,
    natural_sorted,
    order_for,
    ordered,
    parse_orders,
    plain_number,
)

EXPECTED = [
    "2.1.9", "2.1.10", "2.1.11", "2.2.0-rc1", "2.2.0-rc2", "2.2.0", "2.2.0-1", "2.2.2",
    "6.1", "6.1.0-18-amd64", "6.1.0-25-amd64", "6.10", "6.10.0-1-amd64",
    "head", "latest", "main", "master", "trunk",
]  # fmt: skip
# The same, as the text order (what explore drew before) has them: the trap.
assert sorted(EXPECTED) != EXPECTED


def test_the_examples_in_natural_order() -> None:
    for seed in range(20):
        shuffled = EXPECTED[:]
        random.Random(seed).shuffle(shuffled)
        assert natural_sorted(shuffled) == EXPECTED
        assert sorted(shuffled, key=natural_key) == EXPECTED


@pytest.mark.parametrize(
    ("low", "high"),
    [
        ("2.1.9", "2.1.10"), ("2.2.0-rc1", "2.2.0"), ("2.2.0rc1", "2.2.0"), ("2.2.0-beta", "2.2.0-rc1"),
        ("2.2.0-alpha2", "2.2.0-beta1"), ("6.1", "6.10"), ("6.1.0-18-amd64", "6.1.0-25-amd64"),
        ("6.1.0-25-amd64", "6.10.0-1-amd64"), ("v1.9", "v1.10"), ("1.9", "v1.10"), ("9", "10"),
        ("2.2.0", "trunk"), ("99", "main"), ("Main", "trunk"), ("release9", "release10"),
    ],
)  # fmt: skip
def test_pairs(low: str, high: str) -> None:
    assert natural_key(low) < natural_key(high)
    assert natural_sorted([high, low]) == [low, high]


def test_numbers_as_numbers_and_none_last() -> None:
    assert natural_sorted(["0.5", "0.25", "10", "2", None]) == ["0.25", "0.5", "2", "10", None]
    assert natural_sorted([10, 2.5, 131072, 4096]) == [2.5, 10, 4096, 131072]
    assert natural_sorted(["10", "9", None, "trunk"]) == ["9", "10", "trunk", None]
    # As JSON writes numbers, 6.10 is not one: it is a version, after 6.9.
    assert plain_number("6.10") is None and plain_number("6.1") == 6.1
    assert plain_number("3600.0") == 3600.0 and plain_number(True) is None
    assert natural_sorted(["6.9", "6.10", "6.1"]) == ["6.1", "6.9", "6.10"]


def test_a_total_order_over_mixed_values() -> None:
    rng = random.Random(40)
    pool: list[object] = [*EXPECTED, "", "v", "a", "2", "2.0", "2-0", "2_0", 2, 2.5, True, False,
                          None, "TRUNK", "rc1", "1.0.0-rc1", "1.0.0~rc1", "abc-1", "abc-01"]  # fmt: skip
    keys = {repr(v): natural_key(v) for v in pool}
    # Distinct values never tie (the text breaks ties), and comparisons are transitive.
    assert len(set(map(repr, keys.values()))) == len(pool)
    for a, b, c in itertools.permutations(pool, 3):
        ka, kb, kc = natural_key(a), natural_key(b), natural_key(c)
        assert (ka < kb) != (kb < ka) or a == b
        if ka < kb and kb < kc:
            assert ka < kc
    first = sorted(pool, key=natural_key)
    for _ in range(20):
        rng.shuffle(pool)
        assert sorted(pool, key=natural_key) == first


def test_an_explicit_order() -> None:
    values = ["trunk", "2.1.10", "2.1.9", "main", "2.2.0"]
    assert ordered(values) == ["2.1.9", "2.1.10", "2.2.0", "main", "trunk"]
    # The listed values in their place; `*` the rest in natural order; left out, they follow.
    assert ordered(values, ["trunk", "*"]) == ["trunk", "2.1.9", "2.1.10", "2.2.0", "main"]
    assert ordered(values, ["*", "main"]) == ["2.1.9", "2.1.10", "2.2.0", "trunk", "main"]
    assert ordered(values, ["2.2.0", "2.1.9"]) == ["2.2.0", "2.1.9", "2.1.10", "main", "trunk"]
    assert ordered([None, "b", "a"], ["b", "*"]) == ["b", "a", None]
    # Stable over objects with a key.
    rows = [{"v": v, "i": i} for i, v in enumerate(["2.1.10", "2.1.9", "2.1.10"])]
    assert [r["i"] for r in ordered(rows, None, key=lambda r: r["v"])] == [1, 0, 2]


def test_orders_parse_and_refuse_with_the_field() -> None:
    orders = parse_orders(["label.version:1.7.1,1.8.2,trunk", "fs:*,tmpfs"])
    assert orders == {"label.version": ["1.7.1", "1.8.2", "trunk"], "fs": ["*", "tmpfs"]}
    assert order_for(orders, "version") == ["1.7.1", "1.8.2", "trunk"]
    assert order_for(orders, "label.fs") == ["*", "tmpfs"]
    assert order_for(orders, "kernel") is None and order_for(orders, None) is None
    for bad in (["version"], [":a"], ["version:"], ["v:a,a"], ["v:a", "v:b"]):
        with pytest.raises(Invalid) as raised:
            parse_orders(bad)
        assert raised.value.extra["errors"][0]["field"] == "order"
