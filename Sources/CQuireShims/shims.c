#define _GNU_SOURCE
#include "CQuireShims.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int cquire_rename_exchange(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
  return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, RENAME_EXCHANGE);
}

int cquire_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
  return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, RENAME_NOREPLACE);
}

ssize_t cquire_copy_file_range(int fd_in, int fd_out, size_t len) {
  return copy_file_range(fd_in, NULL, fd_out, NULL, len, 0);
}

int cquire_errno(void) { return errno; }

void cquire_set_errno(int value) { errno = value; }

const char *cquire_dirent_name(const void *entry) { return ((const struct dirent *)entry)->d_name; }

unsigned char cquire_dirent_type(const void *entry) { return ((const struct dirent *)entry)->d_type; }

int cquire_flock(int fd, int operation) { return flock(fd, operation); }

ssize_t cquire_llistxattr(const char *path, char *list, size_t size) { return llistxattr(path, list, size); }

ssize_t cquire_lgetxattr(const char *path, const char *name, void *value, size_t size) {
  return lgetxattr(path, name, value, size);
}

int cquire_fsetxattr(int fd, const char *name, const void *value, size_t size) {
  return fsetxattr(fd, name, value, size, 0);
}

int cquire_lsetxattr(const char *path, const char *name, const void *value, size_t size) {
  return lsetxattr(path, name, value, size, 0);
}

int cquire_syncfs(int fd) { return syncfs(fd); }

int cquire_has_writers(int fd) {
  if (fcntl(fd, F_SETSIG, SIGURG) != 0) return -1;
  if (fcntl(fd, F_SETLEASE, F_RDLCK) == 0) {
    fcntl(fd, F_SETLEASE, F_UNLCK);
    return 0;
  }
  return errno == EAGAIN ? 1 : -1;
}

int cquire_open_tmpfile(const char *directory, unsigned int mode) {
  return open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, (mode_t)mode);
}

ssize_t cquire_getxattr(const char *path, const char *name, void *value, size_t size) {
  return getxattr(path, name, value, size);
}

int cquire_setxattr(const char *path, const char *name, const void *value, size_t size) {
  return setxattr(path, name, value, size, 0);
}

int cquire_removexattr(const char *path, const char *name) { return removexattr(path, name); }

#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

int cquire_ofd_lock(int fd, int type, int64_t start, int64_t length, int wait) {
  struct flock lock;
  memset(&lock, 0, sizeof lock);
  lock.l_type = type == 0 ? F_UNLCK : (type == 1 ? F_RDLCK : F_WRLCK);
  lock.l_whence = SEEK_SET;
  lock.l_start = (off_t)start;
  lock.l_len = (off_t)length;
  lock.l_pid = 0;
  return fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &lock);
}

static int cquire_unix_address(const char *path, struct sockaddr_un *address) {
  memset(address, 0, sizeof *address);
  address->sun_family = AF_UNIX;
  if (strlen(path) >= sizeof address->sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  strcpy(address->sun_path, path);
  return 0;
}

int cquire_unix_listen(const char *path) {
  struct sockaddr_un address;
  if (cquire_unix_address(path, &address) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0 || listen(fd, 64) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

int cquire_unix_connect(const char *path) {
  struct sockaddr_un address;
  if (cquire_unix_address(path, &address) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

int cquire_lremovexattr(const char *path, const char *name) { return lremovexattr(path, name); }

void cquire_limit_arenas(int count) {
  mallopt(M_ARENA_MAX, count);
}

int cquire_link_open_file(int fd, const char *path) {
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  return linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

int cquire_start_writeback(int fd) {
  return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}
