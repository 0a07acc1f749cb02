/* The anchor for the agent's smallfile create/delete: the same system calls, no Python.
 * usage: agent_smallfile_loop DIR NFILES SIZE   (DIR must exist and be empty)
 * prints JSON: ops/s of each phase, in the agent's order and with its system calls:
 * create (open O_CREAT|O_EXCL, write, close), syncfs + drop_caches, read cold, read warm
 * (open, read, close), stat, delete (unlink). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: %s DIR NFILES SIZE\n", argv[0]); return 2; }
    const char *dir = argv[1];
    long n = atol(argv[2]);
    long size = atol(argv[3]);
    char *payload = malloc(size > 0 ? size : 1);
    memset(payload, 'x', size > 0 ? size : 1);
    char path[4096];
    double t0 = now();
    for (long i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/f%ld", dir, i);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) { perror(path); return 1; }
        if (size > 0 && write(fd, payload, size) != size) { perror("write"); return 1; }
        close(fd);
    }
    double create_s = now() - t0;
    /* as the agent's smallfile: syncfs + drop_caches, read cold, read warm, stat, delete */
    int dfd = open(dir, O_RDONLY);
    syncfs(dfd);
    close(dfd);
    FILE *dc = fopen("/proc/sys/vm/drop_caches", "w");
    if (dc) { fputs("3\n", dc); fclose(dc); }
    char *buf = malloc(size > 0 ? size : 1);
    double read_s[2];
    for (int pass = 0; pass < 2; pass++) {
        t0 = now();
        for (long i = 0; i < n; i++) {
            snprintf(path, sizeof path, "%s/f%ld", dir, i);
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) { perror(path); return 1; }
            if (read(fd, buf, size > 0 ? size : 1) < 0) { perror("read"); return 1; }
            close(fd);
        }
        read_s[pass] = now() - t0;
    }
    struct stat st;
    t0 = now();
    for (long i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/f%ld", dir, i);
        if (stat(path, &st) != 0) { perror(path); return 1; }
    }
    double stat_s = now() - t0;
    t0 = now();
    for (long i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/f%ld", dir, i);
        if (unlink(path) != 0) { perror(path); return 1; }
    }
    double delete_s = now() - t0;
    printf("{\"create_ops_per_s\": %.1f, \"read_cold_ops_per_s\": %.1f, "
           "\"read_warm_ops_per_s\": %.1f, \"stat_ops_per_s\": %.1f, "
           "\"delete_ops_per_s\": %.1f}\n",
           n / create_s, n / read_s[0], n / read_s[1], n / stat_s, n / delete_s);
    return 0;
}
