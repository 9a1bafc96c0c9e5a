import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A one-line progress display on a terminal; nothing at all when stderr is not a terminal, so
/// scripts and pipes see only the result.
struct ProgressLine: Sendable {
  private let isTerminal = isatty(2) == 1

  /// Shows `text` in place of the previous line.
  func show(_ text: String) {
    guard isTerminal else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
  }

  /// Shows a bar for `done` of `total` bytes.
  func bar(_ label: String, _ done: Int64, _ total: Int64) {
    guard isTerminal, total > 0 else { return }
    let fraction = min(1, Double(done) / Double(total))
    let width = 30
    let filled = Int(fraction * Double(width))
    let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    show("\(label) \(bar) \(Int(fraction * 100))%  \(done >> 20)/\(total >> 20) MiB")
  }

  /// Removes the line.
  func clear() {
    guard isTerminal else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
  }
}
