import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Whether a server answers on a loopback port: for the tests and benchmarks that start
/// `quire server` replicas and nginx in front of them, and wait until each listens.
package enum LoopbackProbe {
  /// Whether something accepts TCP connections on `127.0.0.1:port` now.
  package static func accepts(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }
}
