#ifndef CQUIRE_SHIMS_H
#define CQUIRE_SHIMS_H

#include <sys/types.h>
#include <stdint.h>

/// renameat2(2) with RENAME_EXCHANGE: atomically swaps two paths. Returns -1 and sets errno on failure.
int cquire_rename_exchange(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// renameat2(2) with RENAME_NOREPLACE: fails with EEXIST instead of replacing.
int cquire_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// copy_file_range(2): in-kernel copy (reflinks where the file system can).
ssize_t cquire_copy_file_range(int fd_in, int fd_out, size_t len);

/// mallopt(M_ARENA_MAX, count): glibc's allocator makes at most `count` arenas from now on.
void cquire_limit_arenas(int count);

/// Gives the open file `fd` (made with O_TMPFILE) the name `path`: linkat(2) of
/// /proc/self/fd/FD with AT_SYMLINK_FOLLOW, which needs no privilege.
int cquire_link_open_file(int fd, const char *path);

/// sync_file_range(2) with SYNC_FILE_RANGE_WRITE over the whole file: starts writing its dirty
/// pages to disk without waiting for them.
int cquire_start_writeback(int fd);

/// The errno of the calling thread.
int cquire_errno(void);

/// Sets errno of the calling thread.
void cquire_set_errno(int value);

/// The d_type and name of a dirent, so Swift need not lay out struct dirent.
const char *cquire_dirent_name(const void *entry);
unsigned char cquire_dirent_type(const void *entry);

/// flock(2), named apart from struct flock.
int cquire_flock(int fd, int operation);

/// Extended attributes, not following symbolic links (llistxattr, lgetxattr) and by descriptor (fsetxattr).
ssize_t cquire_llistxattr(const char *path, char *list, size_t size);
ssize_t cquire_lgetxattr(const char *path, const char *name, void *value, size_t size);
int cquire_fsetxattr(int fd, const char *name, const void *value, size_t size);
int cquire_lsetxattr(const char *path, const char *name, const void *value, size_t size);
/// Removes an extended attribute, not following a symbolic link.
int cquire_lremovexattr(const char *path, const char *name);

/// Extended attributes following symbolic links (getxattr, setxattr, removexattr).
ssize_t cquire_getxattr(const char *path, const char *name, void *value, size_t size);
int cquire_setxattr(const char *path, const char *name, const void *value, size_t size);
int cquire_removexattr(const char *path, const char *name);

/// syncfs(2): flushes the file system holding fd.
int cquire_syncfs(int fd);

/// Whether any process has the file behind `fd` (open read-only) open for writing: 1 if so, 0 if
/// not, -1 with errno set if the kernel cannot tell (no leases on this file system, or the file
/// is another user's). A read lease (F_SETLEASE) can be taken only when no writer has the file
/// open; it is let go at once, and a break in between is told with SIGURG, ignored by default.
int cquire_has_writers(int fd);

/// An unnamed regular file in `directory`'s file system (open(2) with O_TMPFILE), open for
/// reading and writing, with `mode` (less the umask) once it is linked;
/// -1 with errno set where the file system has no such files.
int cquire_open_tmpfile(const char *directory, unsigned int mode);

/// An open-file-description byte-range lock (fcntl F_OFD_SETLK / F_OFD_SETLKW). `type` is 0 to
/// unlock, 1 for a shared lock, 2 for an exclusive one. The lock belongs to the open file
/// description, so it dies with the descriptor (and with the process, even on SIGKILL).
int cquire_ofd_lock(int fd, int type, int64_t start, int64_t length, int wait);

/// A listening Unix-domain stream socket bound at `path` (close-on-exec, backlog 64).
int cquire_unix_listen(const char *path);

/// A Unix-domain stream socket connected to `path` (close-on-exec).
int cquire_unix_connect(const char *path);

#endif
