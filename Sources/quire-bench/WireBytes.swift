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

  /// The change's bytes through Quire Sync and, if it is installed, through Syncthing (with
  /// `fsWatcherDelayS=1`): table rows and `key=value` figures for the RESULT line.
  static func quireAndSyncthing(
    scratch: URL, place: (URL) throws -> Void, placed: (URL) -> Bool,
    change: (URL) throws -> Void, changed: (URL) -> Bool
  ) throws -> (rows: [[String]], figures: String) {
    let rig = try SyncRig(scratch: scratch.appendingPathComponent("rig"))
    let quire = try count(
      a: rig.a, b: rig.b, proxy: rig.proxy, place: place, placed: placed, change: change,
      changed: changed)
    rig.stop()
    var rows = [["Quire Sync", "\(quire)"]]
    var figures = "quire_bytes=\(quire)"
    if SyncthingPeer.isInstalled {
      let peer = try SyncthingPeer(
        scratch: scratch.appendingPathComponent("syncthing"), watcherDelay: 1)
      defer { peer.stop() }
      let bytes = try count(
        a: peer.a, b: peer.b, proxy: peer.proxy, place: place, placed: placed, change: change,
        changed: changed)
      rows.append(["Syncthing", "\(bytes)"])
      figures += " syncthing_bytes=\(bytes)"
    }
    return (rows, figures)
  }
}
