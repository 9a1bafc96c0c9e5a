#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A failed system call: which call, and the `errno` it returned.
///
/// Quire wraps these as the ``QuireError/cause`` of the error it throws, so a caller
/// can tell "no space left" from "permission denied" without parsing messages.
public struct SystemCallError: Error, Hashable, CustomStringConvertible {
  /// The name of the system call, such as `fsync` or `renameat`.
  public var call: String
  /// The `errno` value the call set.
  public var errno: Int32

  /// Makes an error for `call` failing with `errno`.
  public init(call: String, errno: Int32) {
    self.call = call
    self.errno = errno
  }

  /// The system's text for the `errno`, such as "No space left on device".
  public var reason: String { String(cString: strerror(errno)) }

  /// The call and the reason, such as `fsync: No space left on device (errno 28)`.
  public var description: String { "\(call): \(reason) (errno \(errno))" }
}
