/* A FUSE passthrough that adds a fixed delay to every metadata operation.
 *
 * It emulates a filesystem whose metadata operations wait on a network round trip (seed 002's
 * Gluster), so that the agent's parallel tree delete can be measured against `rm -rf`
 * honestly: the delay is a real wait inside the filesystem. Data reads and writes are not
 * delayed. Written in C (libfuse 3, multithreaded) so that the daemon's own CPU time stays
 * small next to the delay even on a busy 2-core machine.
 *
 * build: gcc -O2 -o latencyfs agent_fuse_latency.c $(pkg-config --cflags --libs fuse3)
 * usage: latencyfs BACKING_DIR MOUNT_POINT [DELAY_US]   (runs in the foreground;
 *        unmount with `fusermount3 -u MOUNT_POINT`)
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static char backing[PATH_MAX];
static long delay_us = 1000;

static void wait_op(void) {
    if (delay_us > 0) {
        struct timespec ts = {delay_us / 1000000, (delay_us % 1000000) * 1000};
        while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {}
    }
}

static void full(char *out, const char *path) { snprintf(out, PATH_MAX, "%s%s", backing, path); }

#define FULL(p) char fp[PATH_MAX]; full(fp, p)

static void *lt_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
    (void)conn;
    cfg->use_ino = 1;
    return NULL;
}

static int lt_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
    (void)fi;
    wait_op();
    FULL(path);
    return lstat(fp, st) == -1 ? -errno : 0;
}

static int lt_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags) {
    (void)off; (void)fi; (void)flags;
    wait_op();
    FULL(path);
    DIR *dp = opendir(fp);
    if (!dp) return -errno;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        struct stat st;
        memset(&st, 0, sizeof st);
        st.st_ino = de->d_ino;
        st.st_mode = (mode_t)de->d_type << 12;
        if (filler(buf, de->d_name, &st, 0, 0)) break;
    }
    closedir(dp);
    return 0;
}

static int lt_mkdir(const char *path, mode_t mode) {
    wait_op(); FULL(path);
    return mkdir(fp, mode) == -1 ? -errno : 0;
}

static int lt_unlink(const char *path) {
    wait_op(); FULL(path);
    return unlink(fp) == -1 ? -errno : 0;
}

static int lt_rmdir(const char *path) {
    wait_op(); FULL(path);
    return rmdir(fp) == -1 ? -errno : 0;
}

static int lt_rename(const char *from, const char *to, unsigned int flags) {
    if (flags) return -EINVAL;
    wait_op();
    char a[PATH_MAX], b[PATH_MAX];
    full(a, from); full(b, to);
    return rename(a, b) == -1 ? -errno : 0;
}

static int lt_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
    (void)fi; wait_op(); FULL(path);
    return chmod(fp, mode) == -1 ? -errno : 0;
}

static int lt_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
    (void)fi; wait_op(); FULL(path);
    return lchown(fp, uid, gid) == -1 ? -errno : 0;
}

static int lt_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
    wait_op();
    if (fi) return ftruncate(fi->fh, size) == -1 ? -errno : 0;
    FULL(path);
    return truncate(fp, size) == -1 ? -errno : 0;
}

static int lt_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
    (void)fi; wait_op(); FULL(path);
    return utimensat(AT_FDCWD, fp, tv, AT_SYMLINK_NOFOLLOW) == -1 ? -errno : 0;
}

static int lt_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
    wait_op(); FULL(path);
    int fd = open(fp, fi->flags, mode);
    if (fd == -1) return -errno;
    fi->fh = fd;
    return 0;
}

static int lt_open(const char *path, struct fuse_file_info *fi) {
    wait_op(); FULL(path);
    int fd = open(fp, fi->flags);
    if (fd == -1) return -errno;
    fi->fh = fd;
    return 0;
}

static int lt_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
    (void)path;
    ssize_t n = pread(fi->fh, buf, size, off);
    return n == -1 ? -errno : (int)n;
}

static int lt_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi) {
    (void)path;
    ssize_t n = pwrite(fi->fh, buf, size, off);
    return n == -1 ? -errno : (int)n;
}

static int lt_statfs(const char *path, struct statvfs *st) {
    FULL(path);
    return statvfs(fp, st) == -1 ? -errno : 0;
}

static int lt_release(const char *path, struct fuse_file_info *fi) {
    (void)path;
    close(fi->fh);
    return 0;
}

static int lt_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
    (void)path;
    int r = datasync ? fdatasync(fi->fh) : fsync(fi->fh);
    return r == -1 ? -errno : 0;
}

static const struct fuse_operations ops = {
    .init = lt_init, .getattr = lt_getattr, .readdir = lt_readdir, .mkdir = lt_mkdir,
    .unlink = lt_unlink, .rmdir = lt_rmdir, .rename = lt_rename, .chmod = lt_chmod,
    .chown = lt_chown, .truncate = lt_truncate, .utimens = lt_utimens, .create = lt_create,
    .open = lt_open, .read = lt_read, .write = lt_write, .statfs = lt_statfs,
    .release = lt_release, .fsync = lt_fsync,
};

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s BACKING_DIR MOUNT_POINT [DELAY_US]\n", argv[0]);
        return 2;
    }
    if (!realpath(argv[1], backing)) { perror(argv[1]); return 2; }
    if (argc > 3) delay_us = atol(argv[3]);
    char *fargv[] = {argv[0], "-f", "-o", "fsname=latencyfs,subtype=latencyfs",
                     argv[2], NULL};
    return fuse_main(5, fargv, &ops, NULL);
}
