/// How many event streams one device may hold open: a few per stream (a reconnect overlaps the
/// stream it replaces) and a bound in all. Past either, the device's oldest such stream ends, so
/// a token cannot pile up thousands of streams, and a device that reconnects is never locked
/// out by its own half-open connections. A plain value: the caller holds it under its lock.
struct StreamQuota: Sendable {
  /// Streams one device may hold for one key (one container's journal, one share's).
  var perKey = 4
  /// Streams one device may hold in all: a container's, the shares', and one per share it
  /// takes part in, which may be hundreds of documents.
  var perDevice = 1024
  /// One open stream: its id, what counts as the same stream, and the signal key it listens on.
  struct Stream: Sendable, Equatable {
    var id: Int
    var key: String
    var signal: String
  }
  /// Each device's open streams, oldest first.
  private var open: [String: [Stream]] = [:]

  /// A quota of `perKey` streams per stream and `perDevice` in all.
  init(perKey: Int = 4, perDevice: Int = 1024) {
    self.perKey = perKey
    self.perDevice = perDevice
  }

  /// Records stream `id` of `device` for `key` (listening on `signal`, the key unless given);
  /// returns the streams to end (the device's oldest past the limits), no longer counted.
  mutating func admit(_ id: Int, key: String, signal: String? = nil, device: String) -> [Stream] {
    var streams = open[device, default: []]
    streams.append(Stream(id: id, key: key, signal: signal ?? key))
    var evicted: [Stream] = []
    if streams.count(where: { $0.key == key }) > perKey,
      let oldest = streams.firstIndex(where: { $0.key == key })
    {
      evicted.append(streams.remove(at: oldest))
    }
    while streams.count > perDevice { evicted.append(streams.removeFirst()) }
    open[device] = streams
    return evicted
  }

  /// Forgets stream `id` of `device` (it ended).
  mutating func remove(_ id: Int, device: String) {
    open[device]?.removeAll { $0.id == id }
    if open[device]?.isEmpty == true { open[device] = nil }
  }

  /// How many streams `device` holds.
  func count(of device: String) -> Int { open[device]?.count ?? 0 }
}
