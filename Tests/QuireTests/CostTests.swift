import Foundation
import Testing

/// "Cost follows the change", guarded by counting: each path that must not grow with the
/// document runs at two sizes in a real process under `strace -f`, and the larger one may make
/// only a few more system calls than the smaller. Counts, not clocks, so the check is the same
/// on a loaded machine; a path that becomes O(members) fails here, naming the calls that grew.
@Suite("Cost follows the change", .serialized, .timeLimit(.minutes(5)))
struct CostTests {
  static let small = 10
  static let large = 10_000
  /// How many more calls the large run may make: room for scheduling noise (a watch's extra
  /// read, an allocation's file mapping), far below any O(members) growth.
  static let slack = 40

  /// A package of `count` 4 KiB members (`member-N.txt`) plus a MyDoc `text.txt`.
  private func makePackage(members count: Int, in folder: TemporaryDirectory) throws -> URL {
    let package = folder.file("Package-\(count).mydoc")
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
    let bytes = Data(repeating: 0x61, count: 4096)
    for index in 0..<count {
      try bytes.write(to: package.appendingPathComponent("member-\(index).txt"))
    }
    try Data("text".utf8).write(to: package.appendingPathComponent("text.txt"))
    return package
  }

  /// A folder of `count` small text documents.
  private func makeFolder(documents count: Int, in folder: TemporaryDirectory) throws -> URL {
    let scope = folder.file("Scope-\(count)")
    try FileManager.default.createDirectory(at: scope, withIntermediateDirectories: true)
    for index in 0..<count {
      try Data("\(index)".utf8).write(to: scope.appendingPathComponent("document-\(index).txt"))
    }
    return scope
  }

  /// Measures `scenario` at both sizes and checks that the large run made at most `slack` more
  /// calls than the small one (only the calls `counted` names, when given).
  /// Returns the large run's count (`nil` without strace).
  @discardableResult
  private func expectConstant(
    _ scenario: String, what: String, counted: [String]? = nil,
    make: (Int, TemporaryDirectory) throws -> URL
  ) throws -> SyscallCount? {
    guard SyscallCount.strace != nil else {
      Issue.record("strace is not installed; scripts/test installs Debian's strace")
      return nil
    }
    let folder = try TemporaryDirectory()
    let environment = ["XDG_DATA_HOME": folder.file("data").path]
    let smallCount = try SyscallCount.measure(
      scenario, try make(Self.small, folder), environment: environment)
    let largeCount = try SyscallCount.measure(
      scenario, try make(Self.large, folder), environment: environment)
    let pick = { (count: SyscallCount) in
      counted.map { names in names.reduce(0) { $0 + (count.calls[$1] ?? 0) } } ?? count.total
    }
    let grown = largeCount.calls.compactMap { name, calls -> String? in
      let before = smallCount.calls[name] ?? 0
      return calls > before ? "\(name) +\(calls - before)" : nil
    }.sorted()
    #expect(
      pick(largeCount) <= pick(smallCount) + Self.slack,
      """
      \(what) grew with the document: \(pick(largeCount)) calls at \(Self.large) members against \
      \(pick(smallCount)) at \(Self.small) (allowed: +\(Self.slack)). Grew: \
      \(grown.joined(separator: ", ")). Large run: \(largeCount)
      """)
    return largeCount
  }

  @Test("a one-member incremental save does not grow with the package")
  func packageSave() throws {
    try expectConstant("package-save", what: "A one-member save of a package") {
      try makePackage(members: $0, in: $1)
    }
  }

  /// The most file-system calls of each kind a Document's save of one edited member (and of
  /// its new thumbnail) may make, whatever the package's size. What the save needs: a stage
  /// for each of the two members (create, write, fsync, rename into place), the journal that
  /// makes their two renames one step, the package's fsyncs after each step, one lookup of
  /// the presenters and the coordination locks. A change that adds a call of these kinds
  /// (another look at the presenter registry, another stat) must say why here.
  /// (`fcntl`: the lock protocol's 19, and room for one more round of it: when another test's
  /// coordination holds a gate at that instant, the save gives up its first try and takes the
  /// locks again on a worker thread.)
  static let documentSaveCalls: [String: Int] = [
    "openat": 19, "newfstatat": 20, "fcntl": 38, "fsync": 7, "renameat": 2, "getdents64": 6,
    "readlink": 3, "access": 2, "flock": 1, "mkdirat": 1, "unlinkat": 1,
  ]

  @Test("a Document's one-member save makes the calls it needs, whatever the package's size")
  func documentSave() throws {
    // The file-system calls only: the process's file monitor reads its events in as many
    // batches as the scheduler makes of them (one `poll` and a few `read`s each), which says
    // how busy the machine was, not how large the package is. Under load a run measured 13
    // more polls and 21 more reads at 10 000 members than at 10 (and 5 more of the calls
    // counted here, within the slack): the total went over.
    let count = try expectConstant(
      "document-save", what: "Document.save of one edited member",
      counted: Array(Self.documentSaveCalls.keys)
    ) { try makePackage(members: $0, in: $1) }
    guard let count else { return }
    for (call, most) in Self.documentSaveCalls.sorted(by: { $0.key < $1.key }) {
      #expect(
        count[call] <= most,
        "Document.save made \(count[call]) \(call) calls, against at most \(most): \(count)")
    }
  }

  @Test("a Document's save keeping a version does not grow with the package")
  func documentSaveWithVersions() throws {
    try expectConstant(
      "document-save-versions", what: "Document.save of one edited member, keeping a version"
    ) { try makePackage(members: $0, in: $1) }
  }

  @Test("a coordinated write of one member, with a presenter told, does not grow with the package")
  func coordinatedWrite() throws {
    try expectConstant("coordinated-write", what: "A coordinated write with a presenter") {
      try makePackage(members: $0, in: $1)
    }
  }

  @Test("one query update does not grow with the number of documents")
  func queryUpdate() throws {
    try expectConstant("query-update", what: "One DocumentQuery update") {
      try makeFolder(documents: $0, in: $1)
    }
  }

  @Test("opening a package lazily opens and reads no member: only its listing grows")
  func packageOpen() throws {
    try expectConstant(
      "package-open", what: "Opening a package (opens, reads and file mappings)",
      counted: ["openat", "open", "read", "pread64", "readv", "mmap"]
    ) { try makePackage(members: $0, in: $1) }
  }
}
