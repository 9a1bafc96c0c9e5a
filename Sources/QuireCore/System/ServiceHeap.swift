import CQuireShims

#if canImport(Glibc)
  import Glibc
#endif

/// How a long-running process (`quire server`, `quire sync run`, `quire app`) asks glibc's
/// allocator to keep its memory near what it uses.
///
/// Moving a large file, each process allocates and frees many buffers of a few MiB (request
/// bodies, chunk batches) on many threads. By default glibc gives each thread its own arena (up
/// to eight per core) and, once it has freed a buffer that large, serves the next ones from the
/// arenas too, which keep what was freed. A server that moved a 1 GiB file then held 350 MiB
/// (`quire-bench sync-big-file`). Two arenas keep the same work at about 110 MiB, as fast. There
/// is no Swift package for allocator tuning; this is glibc's own documented knob (`mallopt`, as
/// `MALLOC_ARENA_MAX` sets it from the environment), which a user's environment still overrides.
package enum ServiceHeap {
  /// Limits the allocator to two arenas, unless `MALLOC_ARENA_MAX` says otherwise.
  package static func limitArenas() {
    guard getenv("MALLOC_ARENA_MAX") == nil else { return }
    cquire_limit_arenas(2)
  }
}
