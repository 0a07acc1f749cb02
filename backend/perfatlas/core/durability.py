"""Durability and cache facts of a run: what a flush meant where it ran (seed 004).

Two runs that differ in any of these are not comparable as equals: a fast result that never
reached stable storage, or read from cache, is not the same measurement as a safe, cold one."""

from __future__ import annotations

from typing import Any

DURABILITY_FIELDS = (
    "fsync_policy",
    "o_direct",
    "sync_mount",
    "write_cache",
    "flush_to_device",
    "memory_backed",
    "cold_method",
)
MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs"})
# Agents before 0.2 recorded the kernel's write-cache mode as enabled/disabled.
_LEGACY_WRITE_CACHE = {"enabled": "write back", "disabled": "write through"}


def stored_facts(
    *,
    write_cache: str | None,
    memory_backed: bool | None,
    flush_to_device: bool | None,
    environment: dict[str, Any],
) -> dict[str, Any]:
    """The facts as stored: the kernel's words for the cache mode, and memory-backed media
    known from the filesystem type when the uploader did not say."""
    fs_type = environment.get("fs_type")
    if memory_backed is None and isinstance(fs_type, str) and fs_type in MEMORY_FILESYSTEMS:
        memory_backed = True
    if memory_backed and flush_to_device is None:
        # An fsync on memory returns without reaching any stable storage.
        flush_to_device = False
    if write_cache is not None:
        write_cache = _LEGACY_WRITE_CACHE.get(write_cache, write_cache)
    return {
        "write_cache": write_cache,
        "memory_backed": memory_backed,
        "flush_to_device": flush_to_device,
    }
