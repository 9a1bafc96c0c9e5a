import Foundation

/// The system calls a `quire-test-helper cost …` run made between its begin and end marks,
/// counted by name from a real `strace -f` log: every thread, every call, whether it goes
/// through Quire's syscall layer or not.
struct SyscallCount: CustomStringConvertible {
  /// Calls by name. Thread parking and anonymous memory are left out: they follow scheduling and
  /// allocation, not the file system.
  var calls: [String: Int] = [:]

  static let ignored: Set<String> = [
    "futex", "sched_yield", "madvise", "mprotect", "munmap", "brk", "membarrier", "rseq",
    "set_robust_list", "clock_nanosleep", "nanosleep", "getpid", "gettid", "rt_sigprocmask",
    "rt_sigaction", "sigaltstack", "clone3", "clone", "exit", "prctl", "sched_getaffinity",
    "epoll_wait", "epoll_pwait", "eventfd2", "mremap",
  ]

  var total: Int { calls.values.reduce(0, +) }

  subscript(_ names: String...) -> Int { names.reduce(0) { $0 + (calls[$1] ?? 0) } }

  var description: String {
    calls.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
  }

  /// Parses an `strace -f` log: lines between the `/quire-cost-begin` and `/quire-cost-end`
  /// marks, each counted once by its call's name (a call split into "unfinished" and
  /// "resumed" halves counts once).
  init(log: String) {
    var inside = false
    for line in log.split(separator: "\n") {
      if line.contains("\"/quire-cost-begin\"") {
        inside = true
        continue
      }
      if line.contains("\"/quire-cost-end\"") { break }
      guard inside, !line.contains("resumed>"), !line.contains("+++"), !line.contains("---")
      else { continue }
      var rest = line.drop { $0.isNumber || $0 == " " }
      if rest.hasPrefix("[pid") { rest = rest.drop { $0 != "]" }.dropFirst().drop { $0 == " " } }
      guard let open = rest.firstIndex(of: "(") else { continue }
      let name = String(rest[..<open])
      guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
        continue
      }
      if Self.ignored.contains(name) { continue }
      if name == "mmap" && line.contains("MAP_ANONYMOUS") { continue }
      calls[name, default: 0] += 1
    }
  }

  /// Runs `quire-test-helper cost SCENARIO PATH` under `strace -f` and counts its calls.
  static func measure(_ scenario: String, _ path: URL, environment: [String: String] = [:]) throws
    -> SyscallCount
  {
    let log = FileManager.default.temporaryDirectory
      .appendingPathComponent("quire-strace-\(UUID().uuidString).log")
    defer { try? FileManager.default.removeItem(at: log) }
    let run = try Executables.runCommand(
      strace!,
      [
        "-f", "-qq", "-o", log.path, Executables.url("quire-test-helper").path, "cost", scenario,
        path.path,
      ],
      environment: environment)
    guard run.status == 0 else {
      throw CostTestFailure("cost \(scenario) failed (\(run.status)): \(run.stderr)")
    }
    let text = try String(contentsOf: log, encoding: .utf8)
    guard text.contains("/quire-cost-begin"), text.contains("/quire-cost-end") else {
      throw CostTestFailure("cost \(scenario): the strace log has no begin and end marks")
    }
    return SyscallCount(log: text)
  }

  /// Debian's strace (`scripts/test` installs it).
  static let strace = Executables.which("strace")
}

struct CostTestFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
