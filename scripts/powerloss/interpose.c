// An LD_PRELOAD library that records, in order, every call by which a process changes files
// under one directory (LINEUP_TRACE_ROOT): creates, writes with their bytes and offsets,
// truncations, fsyncs, renames, unlinks, mkdirs. `replay.py` rebuilds from the trace what a
// power cut at any point would leave on disk: only what an fsync made durable (file contents
// by the file's fsync, names by their directory's), as ALICE and CrashMonkey model it.
//
// The calls pass through unchanged; the trace is written with the real `write` under a mutex,
// one record per call, after the call succeeded. Only calls through the C library's exported
// symbols are seen: SQLite, Foundation and the spool's own calls (including `renameat2`, which
// the spool looks up with `dlsym` and so finds here first) all go through them.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum {
    OP_CREATE = 1,    // path: a new empty file
    OP_TRUNCATE = 2,  // path, a = length (open with O_TRUNC, or ftruncate)
    OP_WRITE = 3,     // path, a = offset, data
    OP_FSYNC = 4,     // path (a file or a directory)
    OP_RENAME = 5,    // path -> path2 (replacing path2 unless a = 1: RENAME_NOREPLACE)
    OP_UNLINK = 6,    // path
    OP_MKDIR = 7,     // path
    OP_RMDIR = 8,     // path
    OP_LINK = 9,      // path -> path2
    OP_CONTENT = 10,  // path, data: what a renamed file holds, for the replay to use when it never
                      // saw the file written (a file made by a call it does not see, e.g. mkstemp)
};

struct record {
    uint32_t op;
    uint32_t path_length;
    uint32_t path2_length;
    uint32_t data_length;
    int64_t a;
};

#define MAX_TRACKED_FD 65536
static char *tracked[MAX_TRACKED_FD];  // the path of each fd opened under the root
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int trace_fd = -1;
static char root[PATH_MAX];
static size_t root_length;

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_close)(int);
static int (*real_ftruncate)(int, off_t);
static int (*real_ftruncate64)(int, off_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static int (*real_renameat2)(int, const char *, int, const char *, unsigned int);
static int (*real_unlink)(const char *);
static int (*real_unlinkat)(int, const char *, int);
static int (*real_mkdir)(const char *, mode_t);
static int (*real_mkdirat)(int, const char *, mode_t);
static int (*real_rmdir)(const char *);
static int (*real_link)(const char *, const char *);

#define RESOLVE(name) real_##name = dlsym(RTLD_NEXT, #name)

__attribute__((constructor)) static void start(void) {
    RESOLVE(write); RESOLVE(pwrite); RESOLVE(pwrite64); RESOLVE(writev);
    RESOLVE(open); RESOLVE(open64); RESOLVE(openat); RESOLVE(openat64); RESOLVE(close);
    RESOLVE(ftruncate); RESOLVE(ftruncate64); RESOLVE(fsync); RESOLVE(fdatasync);
    RESOLVE(rename); RESOLVE(renameat); RESOLVE(renameat2);
    RESOLVE(unlink); RESOLVE(unlinkat); RESOLVE(mkdir); RESOLVE(mkdirat); RESOLVE(rmdir); RESOLVE(link);
    const char *trace = getenv("LINEUP_TRACE");
    const char *traced_root = getenv("LINEUP_TRACE_ROOT");
    if (!trace || !traced_root || !realpath(traced_root, root)) return;
    root_length = strlen(root);
    trace_fd = real_open(trace, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

// The absolute path of `name` relative to `directory_fd`, if it is under the root; else NULL
// (the caller frees it). The last component need not exist.
static char *resolve(int directory_fd, const char *name) {
    if (trace_fd < 0 || !name) return NULL;
    char base[PATH_MAX];
    if (name[0] == '/') {
        base[0] = 0;
    } else if (directory_fd == AT_FDCWD) {
        if (!getcwd(base, sizeof base)) return NULL;
    } else {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", directory_fd);
        ssize_t length = readlink(link, base, sizeof base - 1);
        if (length < 0) return NULL;
        base[length] = 0;
    }
    char joined[PATH_MAX * 2];
    snprintf(joined, sizeof joined, "%s%s%s", base, base[0] && name[0] != '/' ? "/" : "", name);
    // Resolve the directory part (it exists); keep the last component as it is.
    char *slash = strrchr(joined, '/');
    if (!slash) return NULL;
    char directory[PATH_MAX];
    *slash = 0;
    if (!realpath(joined[0] ? joined : "/", directory)) return NULL;
    const char *last = slash + 1;
    if (strcmp(last, ".") == 0 || last[0] == 0) last = NULL;
    char *result = malloc(PATH_MAX * 2);
    if (last) {
        snprintf(result, PATH_MAX * 2, "%s/%s", directory, last);
    } else {
        snprintf(result, PATH_MAX * 2, "%s", directory);
    }
    if (strncmp(result, root, root_length) != 0 || (result[root_length] != '/' && result[root_length] != 0)) {
        free(result);
        return NULL;
    }
    return result;
}

static void emit(uint32_t op, const char *path, const char *path2, int64_t a, const void *data, size_t length) {
    struct record header = {op, (uint32_t)strlen(path), path2 ? (uint32_t)strlen(path2) : 0, (uint32_t)length, a};
    size_t total = sizeof header + header.path_length + header.path2_length + length;
    char *buffer = malloc(total);
    char *cursor = buffer;
    memcpy(cursor, &header, sizeof header); cursor += sizeof header;
    memcpy(cursor, path, header.path_length); cursor += header.path_length;
    if (path2) { memcpy(cursor, path2, header.path2_length); cursor += header.path2_length; }
    if (length) memcpy(cursor, data, length);
    size_t written = 0;
    while (written < total) {
        ssize_t n = real_write(trace_fd, buffer + written, total - written);
        if (n <= 0) break;
        written += (size_t)n;
    }
    free(buffer);
}

static void track_open(int fd, int directory_fd, const char *name, int flags) {
    if (fd < 0 || fd >= MAX_TRACKED_FD) return;
    char *path = resolve(directory_fd, name);
    if (!path) return;
    pthread_mutex_lock(&lock);
    free(tracked[fd]);
    tracked[fd] = path;
    // `created` is decided by the caller before the call (see open_common).
    if (flags & O_TRUNC) emit(OP_TRUNCATE, path, NULL, 0, NULL, 0);
    pthread_mutex_unlock(&lock);
}

typedef int (*open_function)(const char *, int, ...);
typedef int (*openat_function)(int, const char *, int, ...);

// `open` (when `function` is set) or `openat` (when `at_function` is).
static int open_common(open_function function, openat_function at_function, int directory_fd, const char *name,
                       int flags, mode_t mode) {
    char *path = (flags & O_CREAT) ? resolve(directory_fd, name) : NULL;
    int existed = 1;
    if (path) {
        struct stat status;
        existed = stat(path, &status) == 0;
    }
    int fd = function ? function(name, flags, mode) : at_function(directory_fd, name, flags, mode);
    if (fd >= 0 && path && !existed) {
        pthread_mutex_lock(&lock);
        emit(OP_CREATE, path, NULL, 0, NULL, 0);
        pthread_mutex_unlock(&lock);
    }
    free(path);
    if (fd >= 0) track_open(fd, directory_fd, name, flags);
    return fd;
}

#define MODE_ARGUMENT                                  \
    mode_t mode = 0;                                   \
    if (flags & (O_CREAT | O_TMPFILE)) {               \
        va_list arguments;                             \
        va_start(arguments, flags);                    \
        mode = va_arg(arguments, mode_t);              \
        va_end(arguments);                             \
    }

int open(const char *name, int flags, ...) { MODE_ARGUMENT return open_common(real_open, NULL, AT_FDCWD, name, flags, mode); }
int open64(const char *name, int flags, ...) { MODE_ARGUMENT return open_common(real_open64, NULL, AT_FDCWD, name, flags, mode); }
int openat(int directory_fd, const char *name, int flags, ...) { MODE_ARGUMENT return open_common(NULL, real_openat, directory_fd, name, flags, mode); }
int openat64(int directory_fd, const char *name, int flags, ...) { MODE_ARGUMENT return open_common(NULL, real_openat64, directory_fd, name, flags, mode); }

int close(int fd) {
    if (fd >= 0 && fd < MAX_TRACKED_FD && tracked[fd]) {
        pthread_mutex_lock(&lock);
        free(tracked[fd]);
        tracked[fd] = NULL;
        pthread_mutex_unlock(&lock);
    }
    return real_close(fd);
}

static void record_write(int fd, int64_t offset, const void *data, ssize_t written) {
    if (written <= 0 || fd < 0 || fd >= MAX_TRACKED_FD || !tracked[fd]) return;
    pthread_mutex_lock(&lock);
    if (tracked[fd]) emit(OP_WRITE, tracked[fd], NULL, offset, data, (size_t)written);
    pthread_mutex_unlock(&lock);
}

static int64_t position_before_write(int fd) {
    if (fd < 0 || fd >= MAX_TRACKED_FD || !tracked[fd]) return 0;
    if (fcntl(fd, F_GETFL) & O_APPEND) {
        struct stat status;
        return fstat(fd, &status) == 0 ? status.st_size : 0;
    }
    return lseek(fd, 0, SEEK_CUR);
}

ssize_t write(int fd, const void *data, size_t length) {
    int64_t offset = position_before_write(fd);
    ssize_t written = real_write(fd, data, length);
    record_write(fd, offset, data, written);
    return written;
}

ssize_t pwrite(int fd, const void *data, size_t length, off_t offset) {
    ssize_t written = real_pwrite(fd, data, length, offset);
    record_write(fd, offset, data, written);
    return written;
}

ssize_t pwrite64(int fd, const void *data, size_t length, off_t offset) {
    ssize_t written = real_pwrite64(fd, data, length, offset);
    record_write(fd, offset, data, written);
    return written;
}

ssize_t writev(int fd, const struct iovec *vectors, int count) {
    int64_t offset = position_before_write(fd);
    ssize_t written = real_writev(fd, vectors, count);
    if (written > 0 && fd >= 0 && fd < MAX_TRACKED_FD && tracked[fd]) {
        char *joined = malloc((size_t)written);
        size_t copied = 0;
        for (int index = 0; index < count && copied < (size_t)written; index++) {
            size_t part = vectors[index].iov_len;
            if (part > (size_t)written - copied) part = (size_t)written - copied;
            memcpy(joined + copied, vectors[index].iov_base, part);
            copied += part;
        }
        record_write(fd, offset, joined, written);
        free(joined);
    }
    return written;
}

static void record_fd(uint32_t op, int fd, int64_t a) {
    if (fd < 0 || fd >= MAX_TRACKED_FD || !tracked[fd]) return;
    pthread_mutex_lock(&lock);
    if (tracked[fd]) emit(op, tracked[fd], NULL, a, NULL, 0);
    pthread_mutex_unlock(&lock);
}

int ftruncate(int fd, off_t length) {
    int result = real_ftruncate(fd, length);
    if (result == 0) record_fd(OP_TRUNCATE, fd, length);
    return result;
}

int ftruncate64(int fd, off_t length) {
    int result = real_ftruncate64(fd, length);
    if (result == 0) record_fd(OP_TRUNCATE, fd, length);
    return result;
}

int fsync(int fd) {
    int result = real_fsync(fd);
    if (result == 0) record_fd(OP_FSYNC, fd, 0);
    return result;
}

int fdatasync(int fd) {
    int result = real_fdatasync(fd);
    if (result == 0) record_fd(OP_FSYNC, fd, 0);
    return result;
}

static void record_paths(uint32_t op, int from_fd, const char *from, int to_fd, const char *to, int64_t a) {
    char *source = resolve(from_fd, from);
    char *destination = to ? resolve(to_fd, to) : NULL;
    if (source && (!to || destination)) {
        pthread_mutex_lock(&lock);
        emit(op, source, destination, a, NULL, 0);
        if (op == OP_RENAME) {
            struct stat status;
            if (stat(destination, &status) == 0 && S_ISREG(status.st_mode) && status.st_size <= (4 << 20)) {
                char *contents = malloc((size_t)status.st_size + 1);
                int fd = real_open(destination, O_RDONLY | O_CLOEXEC);
                ssize_t length = fd >= 0 ? read(fd, contents, (size_t)status.st_size) : -1;
                if (fd >= 0) real_close(fd);
                if (length >= 0) emit(OP_CONTENT, destination, NULL, 0, contents, (size_t)length);
                free(contents);
            }
        }
        pthread_mutex_unlock(&lock);
    }
    free(source);
    free(destination);
}

int rename(const char *from, const char *to) {
    int result = real_rename(from, to);
    if (result == 0) record_paths(OP_RENAME, AT_FDCWD, from, AT_FDCWD, to, 0);
    return result;
}

int renameat(int from_fd, const char *from, int to_fd, const char *to) {
    int result = real_renameat(from_fd, from, to_fd, to);
    if (result == 0) record_paths(OP_RENAME, from_fd, from, to_fd, to, 0);
    return result;
}

int renameat2(int from_fd, const char *from, int to_fd, const char *to, unsigned int flags) {
    int result = real_renameat2 ? real_renameat2(from_fd, from, to_fd, to, flags) : (errno = ENOSYS, -1);
    if (result == 0) record_paths(OP_RENAME, from_fd, from, to_fd, to, 1);
    return result;
}

int unlink(const char *name) {
    char *path = resolve(AT_FDCWD, name);
    int result = real_unlink(name);
    if (result == 0 && path) {
        pthread_mutex_lock(&lock);
        emit(OP_UNLINK, path, NULL, 0, NULL, 0);
        pthread_mutex_unlock(&lock);
    }
    free(path);
    return result;
}

int unlinkat(int directory_fd, const char *name, int flags) {
    char *path = resolve(directory_fd, name);
    int result = real_unlinkat(directory_fd, name, flags);
    if (result == 0 && path) {
        pthread_mutex_lock(&lock);
        emit((flags & AT_REMOVEDIR) ? OP_RMDIR : OP_UNLINK, path, NULL, 0, NULL, 0);
        pthread_mutex_unlock(&lock);
    }
    free(path);
    return result;
}

int mkdir(const char *name, mode_t mode) {
    int result = real_mkdir(name, mode);
    if (result == 0) record_paths(OP_MKDIR, AT_FDCWD, name, 0, NULL, 0);
    return result;
}

int mkdirat(int directory_fd, const char *name, mode_t mode) {
    int result = real_mkdirat(directory_fd, name, mode);
    if (result == 0) record_paths(OP_MKDIR, directory_fd, name, 0, NULL, 0);
    return result;
}

int rmdir(const char *name) {
    char *path = resolve(AT_FDCWD, name);
    int result = real_rmdir(name);
    if (result == 0 && path) {
        pthread_mutex_lock(&lock);
        emit(OP_RMDIR, path, NULL, 0, NULL, 0);
        pthread_mutex_unlock(&lock);
    }
    free(path);
    return result;
}

int link(const char *from, const char *to) {
    int result = real_link(from, to);
    if (result == 0) record_paths(OP_LINK, AT_FDCWD, from, AT_FDCWD, to, 0);
    return result;
}
