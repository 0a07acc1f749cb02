"""Trees for treeops: build one of exactly N inodes, walk and delete it with T threads."""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

# One unit of work: a directory path and an int (its level, or its index in the tree); returns the subdirectories to visit next.
Handler = Callable[[str, int], list[tuple[str, int]]]


def parallel_tree(root: str, threads: int, handle: Handler) -> None:
    """Visit the tree from root with `threads` workers pulling directories from one queue."""
    if threads <= 1:
        stack = [(root, 0)]
        while stack:
            d, level = stack.pop()
            stack.extend(handle(d, level))
        return
    q: queue.Queue[tuple[str, int] | None] = queue.Queue()
    errors: list[BaseException] = []

    def worker() -> None:
        while True:
            item = q.get()
            if item is None:
                q.task_done()
                return
            try:
                if not errors:
                    for child in handle(*item):
                        q.put(child)
            except BaseException as exc:
                errors.append(exc)
            finally:
                q.task_done()

    workers = [threading.Thread(target=worker, daemon=True) for _ in range(threads)]
    for w in workers:
        w.start()
    q.put((root, 0))
    interrupted: KeyboardInterrupt | None = None
    try:
        q.join()
    except KeyboardInterrupt as exc:
        # Workers skip what is left once an error is recorded; wait for them, then clean up.
        interrupted = exc
        errors.append(exc)
        q.join()
    for _ in workers:
        q.put(None)
    for w in workers:
        w.join()
    if interrupted is not None:
        raise interrupted
    if errors:
        raise errors[0]


def _parallel_list(items: list[str], threads: int, fn: Callable[[str], None]) -> None:
    if threads <= 1 or len(items) < 2:
        for item in items:
            fn(item)
        return
    chunks = [items[i::threads] for i in range(threads)]
    errors: list[BaseException] = []

    def run(chunk: list[str]) -> None:
        try:
            for item in chunk:
                fn(item)
        except BaseException as exc:
            errors.append(exc)

    ts = [threading.Thread(target=run, args=(c,), daemon=True) for c in chunks if c]
    for t in ts:
        t.start()
    try:
        for t in ts:
            t.join()
    except KeyboardInterrupt:
        for t in ts:
            t.join()
        raise
    if errors:
        raise errors[0]


@dataclass(frozen=True)
class TreeShape:
    """A tree of exactly `inodes` inodes (the root included): `dirs` directories numbered
    breadth first, directory i holding directories i*fanout+1 .. i*fanout+fanout (those below
    `dirs`) and `files_per_dir` files, the last ones fewer, so that the count comes out exact."""

    inodes: int
    fanout: int
    files_per_dir: int

    @property
    def dirs(self) -> int:
        return -(-self.inodes // (self.files_per_dir + 1))

    @property
    def files(self) -> int:
        return self.inodes - self.dirs

    @property
    def depth(self) -> int:
        """Levels below the root."""
        depth, level_size, seen = 0, 1, 1
        while seen < self.dirs:
            level_size *= self.fanout
            seen += level_size
            depth += 1
        return depth

    def files_in(self, index: int) -> int:
        return max(0, min(self.files_per_dir, self.files - index * self.files_per_dir))

    def describe(self) -> dict[str, int]:
        return {"inodes": self.inodes, "dirs": self.dirs, "files": self.files,
                "depth": self.depth, "fanout": self.fanout,
                "files_per_dir": self.files_per_dir}  # fmt: skip


def regular_shape(*, depth: int, fanout: int, files: int) -> TreeShape:
    """depth levels below the root, fanout directories in each, files in every directory."""
    return TreeShape(tree_inodes(depth=depth, fanout=fanout, files=files), fanout, files)


def build_tree(root: str, shape: TreeShape, *, size: int, threads: int) -> int:
    """Make the tree; returns the number of inodes made (directories and files)."""
    payload = b"t" * size
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    os.mkdir(root)
    fanout, dirs = shape.fanout, shape.dirs

    def handle(d: str, index: int) -> list[tuple[str, int]]:
        op, wr, cl = os.open, os.write, os.close
        for i in range(shape.files_in(index)):
            fd = op(f"{d}/f{i}", flags, 0o644)
            if payload:
                wr(fd, payload)
            cl(fd)
        subs: list[tuple[str, int]] = []
        first = index * fanout + 1
        for j in range(max(0, min(fanout, dirs - first))):
            sub = f"{d}/d{j}"
            os.mkdir(sub)
            subs.append((sub, first + j))
        return subs

    parallel_tree(root, threads, handle)
    return shape.inodes


def tree_inodes(*, depth: int, fanout: int, files: int) -> int:
    dirs: int = sum(fanout**level for level in range(depth + 1))
    return dirs * (files + 1)


def walk_tree(root: str, threads: int) -> int:
    """readdir + lstat of every entry (what `find -printf %s` does); returns inodes seen."""
    counts = [1]
    lock = threading.Lock()

    def handle(d: str, level: int) -> list[tuple[str, int]]:
        subs: list[tuple[str, int]] = []
        n = 0
        with os.scandir(d) as it:
            for entry in it:
                st = os.lstat(entry.path)
                n += 1
                if (st.st_mode & 0o170000) == 0o040000:
                    subs.append((entry.path, level + 1))
        with lock:
            counts[0] += n
        return subs

    parallel_tree(root, threads, handle)
    return counts[0]


def delete_tree(root: str, threads: int) -> int:
    """Unlink files with T threads across directories, then remove directories deepest first."""
    dirs: list[tuple[str, int]] = []
    counts = [0]
    lock = threading.Lock()

    def handle(d: str, level: int) -> list[tuple[str, int]]:
        subs: list[tuple[str, int]] = []
        n = 0
        ul = os.unlink
        with os.scandir(d) as it:
            for entry in it:
                if entry.is_dir(follow_symlinks=False):
                    subs.append((entry.path, level + 1))
                else:
                    ul(entry.path)
                    n += 1
        with lock:
            counts[0] += n
            dirs.append((d, level))
        return subs

    parallel_tree(root, threads, handle)
    by_level: dict[int, list[str]] = {}
    for d, level in dirs:
        by_level.setdefault(level, []).append(d)
    for level in sorted(by_level, reverse=True):
        _parallel_list(by_level[level], threads, os.rmdir)
    return counts[0] + len(dirs)
