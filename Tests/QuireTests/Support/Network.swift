import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Loopback ports for the servers tests start.
enum Network {
  /// `count` distinct loopback ports no one listens on now.
  static func freePorts(_ count: Int) throws -> [Int] {
    var sockets: [Int32] = []
    defer { sockets.forEach { close($0) } }
    var ports: [Int] = []
    for _ in 0..<count {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
      }
      guard fd >= 0, bound else { throw SeaweedFS.Failure("no free loopback port") }
      sockets.append(fd)
      ports.append(Int(UInt16(bigEndian: address.sin_port)))
    }
    return ports
  }
}
