"""A FUSE passthrough that adds a fixed delay to every metadata operation.

It emulates a filesystem whose metadata operations wait on a network round trip (seed 002's
Gluster), so that parallel tree deletion can be measured against `rm -rf` honestly: the delay
is a real wait in the filesystem, not in the client. Data reads and writes are not delayed.

usage: python3 agent_fuse_latency.py BACKING_DIR MOUNT_POINT [--delay-ms 1.0]
Runs in the foreground, multithreaded (libfuse 2 through fusepy: Debian python3-fusepy);
unmount with `fusermount -u MOUNT_POINT`.
"""

from __future__ import annotations

import argparse
import errno
import os
import time
from typing import Any

try:
    from fusepy import FUSE, FuseOSError, Operations  # Debian's python3-fusepy
except ImportError:  # pragma: no cover - PyPI's fusepy names its module `fuse`
    from fuse import FUSE, FuseOSError, Operations  # type: ignore[no-redef]


class LatencyPassthrough(Operations):  # type: ignore[misc]
    def __init__(self, root: str, delay_s: float) -> None:
        self.root = os.path.realpath(root)
        self.delay_s = delay_s

    def _p(self, path: str) -> str:
        return self.root + path

    def _wait(self) -> None:
        if self.delay_s > 0:
            time.sleep(self.delay_s)

    def __call__(self, op: str, *args: Any) -> Any:
        try:
            return super().__call__(op, *args)
        except OSError as exc:
            raise FuseOSError(exc.errno or errno.EIO) from exc

    # metadata: delayed
    def getattr(self, path: str, fh: int | None = None) -> dict[str, Any]:
        self._wait()
        st = os.lstat(self._p(path))
        keys = ("st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_atime", "st_mtime",
                "st_ctime", "st_ino")  # fmt: skip
        return {k: getattr(st, k) for k in keys}

    def readdir(self, path: str, fh: int) -> list[str]:
        self._wait()
        return [".", "..", *os.listdir(self._p(path))]

    def mkdir(self, path: str, mode: int) -> None:
        self._wait()
        os.mkdir(self._p(path), mode)

    def rmdir(self, path: str) -> None:
        self._wait()
        os.rmdir(self._p(path))

    def unlink(self, path: str) -> None:
        self._wait()
        os.unlink(self._p(path))

    def rename(self, old: str, new: str) -> None:
        self._wait()
        os.rename(self._p(old), self._p(new))

    def chmod(self, path: str, mode: int) -> None:
        self._wait()
        os.chmod(self._p(path), mode)

    def chown(self, path: str, uid: int, gid: int) -> None:
        self._wait()
        os.chown(self._p(path), uid, gid)

    def utimens(self, path: str, times: tuple[float, float] | None = None) -> None:
        self._wait()
        os.utime(self._p(path), times)

    def access(self, path: str, amode: int) -> None:
        self._wait()
        if not os.access(self._p(path), amode):
            raise FuseOSError(errno.EACCES)

    def create(self, path: str, mode: int, fi: Any = None) -> int:
        self._wait()
        return os.open(self._p(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)

    def open(self, path: str, flags: int) -> int:
        self._wait()
        return os.open(self._p(path), flags)

    def truncate(self, path: str, length: int, fh: int | None = None) -> None:
        self._wait()
        os.truncate(self._p(path), length)

    def statfs(self, path: str) -> dict[str, Any]:
        st = os.statvfs(self._p(path))
        keys = ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files",
                "f_flag", "f_frsize", "f_namemax")  # fmt: skip
        return {k: getattr(st, k) for k in keys}

    # data: not delayed
    def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
        return os.pread(fh, size, offset)

    def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
        return os.pwrite(fh, data, offset)

    def flush(self, path: str, fh: int) -> None:
        return None

    def release(self, path: str, fh: int) -> None:
        os.close(fh)

    def fsync(self, path: str, datasync: bool, fh: int) -> None:
        os.fsync(fh)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("backing")
    ap.add_argument("mount_point")
    ap.add_argument("--delay-ms", type=float, default=1.0)
    args = ap.parse_args()
    FUSE(
        LatencyPassthrough(args.backing, args.delay_ms / 1000.0),
        args.mount_point,
        foreground=True,
        nothreads=False,
        fsname="latencyfs",
        subtype="latencyfs",
    )


if __name__ == "__main__":
    main()
