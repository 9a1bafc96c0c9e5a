import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The limits a benchmark of tens of thousands of connections needs from this machine, raised
/// for the run as a deployment would raise them (systemd's `LimitNOFILE`, a wider
/// `net.ipv4.ip_local_port_range` on the machine the clients run on). Raising the hard file
/// limit and the port range needs root; without it the run goes on with what it has.
enum SystemLimits {
  /// Raises this process's open-file limit (soft, and hard as root, up to the kernel's
  /// `fs.nr_open`) to at least `count`; processes started after inherit it. Returns the soft
  /// limit in force.
  static func raiseOpenFiles(to count: Int) -> Int {
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    var limit = rlimit()
    guard getrlimit(resource, &limit) == 0 else { return 1024 }
    let ceiling = read("/proc/sys/fs/nr_open").flatMap { Int($0) } ?? Int(limit.rlim_max)
    let wanted = rlim_t(max(0, min(count, ceiling)))
    if wanted > limit.rlim_max {
      var raised = rlimit(rlim_cur: wanted, rlim_max: wanted)
      if setrlimit(resource, &raised) == 0 { limit = raised }
    }
    if limit.rlim_cur < min(wanted, limit.rlim_max) {
      var raised = limit
      raised.rlim_cur = min(wanted, limit.rlim_max)
      if setrlimit(resource, &raised) == 0 { limit = raised }
    }
    return Int(clamping: min(limit.rlim_cur, UInt(Int.max / 2)))
  }

  /// The local ports one address connects from to one server. When the range holds fewer than
  /// `count`, it is widened to 1024–65535 (as root) until `restore` is called; returns the
  /// range in force and the way to put the old one back.
  static func widenEphemeralPorts(toHold count: Int) -> (ports: Int, restore: () -> Void) {
    let file = "/proc/sys/net/ipv4/ip_local_port_range"
    guard let text = read(file) else { return (0, {}) }
    let bounds = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Int($0) }
    guard bounds.count == 2 else { return (0, {}) }
    let ports = bounds[1] - bounds[0] + 1
    guard ports < count,
      (try? "1024 65535".write(toFile: file, atomically: false, encoding: .utf8)) != nil
    else { return (ports, {}) }
    return (
      65535 - 1024 + 1,
      { try? "\(bounds[0]) \(bounds[1])".write(toFile: file, atomically: false, encoding: .utf8) }
    )
  }

  private static func read(_ path: String) -> String? {
    (try? String(contentsOfFile: path, encoding: .utf8))?
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
