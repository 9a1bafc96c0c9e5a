import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension Date {
  /// The time a `timespec` names.
  package init(_ time: timespec) {
    self.init(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000)
  }

  /// The time as a `timespec`, brought into ``clampedSeconds``'s range first (NaN as 1970): a
  /// date from a file, an archive or a peer (`1e300` seconds) must not trap the conversion to
  /// integers.
  package var timespec: Glibc.timespec {
    let seconds = clampedSeconds.rounded(.down)
    let nanoseconds = ((clampedSeconds - seconds) * 1_000_000_000).rounded()
    return Glibc.timespec(tv_sec: Int(seconds), tv_nsec: min(Int(nanoseconds), 999_999_999))
  }

  /// Seconds since 1970, brought into years 1 to 9999 (NaN as 0): safe to convert to `Int`.
  /// Times past 2262 stay as they are here (files may hold them); what turns a file's time
  /// into nanoseconds saturates instead (`timespec.saturatingNanoseconds`).
  package var clampedSeconds: Double {
    let seconds = timeIntervalSince1970
    guard !seconds.isNaN else { return 0 }
    return min(max(seconds, -62_135_596_800), 253_402_300_799)
  }
}

extension timespec {
  /// Nanoseconds since 1970, saturating: a file's time beyond what an `Int64` of nanoseconds
  /// holds (`touch -d 2300-01-01`, a time a peer wrote) must not trap.
  package var saturatingNanoseconds: Int64 {
    let (product, overflow) = Int64(tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return tv_sec < 0 ? .min : .max }
    let (sum, overflowed) = product.addingReportingOverflow(Int64(tv_nsec))
    return overflowed ? .max : sum
  }
}
