import Foundation

/// The bytes one change costs on the wire, for any engine whose two devices talk through a
/// ``ByteCountingProxy``: the first state is placed on A and synced, the wire goes quiet, then
/// the change is made on A and counted until B has it and the wire is quiet again.
enum WireBytes {
  static func count(
    a: URL, b: URL, proxy: ByteCountingProxy,
    place: (URL) throws -> Void, placed: (URL) -> Bool,
    change: (URL) throws -> Void, changed: (URL) -> Bool
  ) throws -> Int {
    try place(a)
    guard SyncRig.waitFor(seconds: 600, every: .milliseconds(10), { placed(b) }) else {
      throw RawFiles.Failure(description: "the first state never reached device B")
    }
    proxy.waitQuiet()
    try change(a)
    guard SyncRig.waitFor(seconds: 120, { changed(b) }) else {
      throw RawFiles.Failure(description: "the change never reached device B")
    }
    return proxy.bytesUntilQuiet()
  }
}
