"""core.memory: after a request that read a lot, the pages it freed go back to the system."""

from __future__ import annotations

import psutil

from perfatlas.core import memory


def test_freed_pages_go_back_after_a_big_read() -> None:
    process = psutil.Process()
    # What an exact explore leaves: many buffers freed between a few that stay, so the heap
    # cannot shrink from its top.
    kept, freed = [], []
    for i in range(40_000):
        (kept if i % 64 == 0 else freed).append(bytes(2048) + i.to_bytes(4, "little"))
    before = process.memory_info().rss
    del freed
    memory.release_after(memory.RELEASE_AFTER - 1)  # too little read: nothing is released
    untouched = process.memory_info().rss
    memory.release_after(80 * 2**20)
    after = process.memory_info().rss
    assert before - untouched < 16 * 2**20
    assert untouched - after > 40 * 2**20, (before, untouched, after)
    assert len(kept) == 625
