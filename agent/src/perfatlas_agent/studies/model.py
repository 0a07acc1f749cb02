"""What a study is: the seed it reproduces, the filesystem variants it needs (mount options,
the device's write cache) and its parts, each a WorkloadSpec (without targets) run on some of
those variants. The specs are the agent's spec shape (measure/spec.py), so a study's runs go through the same
code as `perfatlas-agent run --spec`, and `study spec` prints them for a schedule."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from perfatlas_agent.measure.spec import WorkloadSpec, parse_spec

DEFAULT = "default"


@dataclass(frozen=True)
class Variant:
    """A way to mount a filesystem: `mount` is `default` or `sync` (mount -o sync), and
    `write_cache` the loop device's /sys/block/<dev>/queue/write_cache while it runs."""

    name: str
    mount: str = "default"
    write_cache: str = "write back"

    def describe(self) -> str:
        bits = [] if self.mount == "default" else [f"mount -o {self.mount}"]
        if self.write_cache != "write back":
            bits.append(f"write cache {self.write_cache}")
        return ", ".join(bits) or "default mount"


@dataclass(frozen=True)
class Options:
    quick: bool
    archive: str | None = None  # a tarball to extract instead of a generated one
    ram_bytes: int = 0

    @staticmethod
    def here(*, quick: bool, archive: str | None = None) -> Options:
        return Options(quick=quick, archive=archive, ram_bytes=machine_ram())


@dataclass(frozen=True)
class Part:
    """One spec of a study (WorkloadSpec fields but `targets`), run on these variants. On a
    memory-backed filesystem (tmpfs) `memory_params` replace some parameters (a file larger
    than memory cannot be written there); None there skips the part on memory."""

    spec: dict[str, Any]
    variants: tuple[str, ...] = (DEFAULT,)
    memory_params: dict[str, Any] | None = field(default_factory=dict)


@dataclass(frozen=True)
class Study:
    name: str
    seed: str
    title: str
    measures: str
    variants: tuple[Variant, ...]
    build: Callable[[Options], list[Part]]
    estimate: tuple[str, str]  # per filesystem: quick, full
    # Label each run with the device's write cache (the study varies it).
    label_write_cache: bool = False
    image_bytes: Callable[[Options], int] = lambda o: (1 << 30) if o.quick else (8 << 30)

    def variant(self, name: str) -> Variant:
        return next(v for v in self.variants if v.name == name)

    def labels(self, variant: Variant, *, memory: bool = False) -> dict[str, str]:
        out = {"study": self.name, "mount": variant.mount}
        if self.label_write_cache:
            out["write_cache"] = "memory" if memory else variant.write_cache.replace(" ", "-")
        return out

    def specs(
        self, options: Options, variant: str, targets: list[str], *, memory: bool = False,
        labels: dict[str, str] | None = None,
    ) -> list[WorkloadSpec]:  # fmt: skip
        """The specs of the parts run on `variant`, checked as `run --spec` checks a file.
        `labels` (the user's) come first: the study's own labels win over them."""
        out: list[WorkloadSpec] = []
        for part in self.build(options):
            if variant not in part.variants:
                continue
            data = dict(part.spec)
            if memory:
                if part.memory_params is None:
                    continue
                data["params"] = {**data.get("params", {}), **part.memory_params}
            data["targets"] = targets
            data["labels"] = {
                **(labels or {}), **data.get("labels", {}),
                **self.labels(self.variant(variant), memory=memory),
            }  # fmt: skip
            out.append(parse_spec(data))
        return out

    def runs_per_filesystem(self, options: Options, *, memory: bool = False) -> int:
        """Runs on one filesystem: every variant (a memory filesystem has only the default)."""
        names = [DEFAULT] if memory else [v.name for v in self.variants]
        return sum(
            s.points() for name in names for s in self.specs(options, name, ["/x"], memory=memory)
        )


def machine_ram() -> int:
    """Bytes of RAM (the page cache can grow to about this)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 1 << 30


def size_text(nbytes: int) -> str:
    """A size the agent parses, in whole MiB (or GiB when it divides)."""
    mib = max(1, nbytes >> 20)
    return f"{mib >> 10}G" if mib % 1024 == 0 else f"{mib}M"
