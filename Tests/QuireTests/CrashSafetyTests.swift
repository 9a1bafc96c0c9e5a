import Foundation
import Testing

@testable import Quire

#if canImport(Glibc)
  import Glibc
#endif

/// Real separate processes saving a package are killed with SIGKILL — at every system call of a
/// save, and at random moments — and the package must always read back as one whole version.
@Suite("Crash safety", .serialized)
struct CrashSafetyTests {
  /// Reads the package with Quire (which recovers an interrupted save) and checks it is exactly
  /// the version its manifest names: every member holds that version, the right marker exists,
  /// and nothing else is there. Returns the version.
  @discardableResult
  static func checkWholeVersion(_ package: URL, allowSingle: Bool = true) throws -> Int {
    let wrapper = try FileWrapper(url: package)
    let manifest = try #require(wrapper.fileWrappers?["manifest.txt"]?.regularFileContents)
    let lines = String(decoding: manifest, as: UTF8.self).split(separator: "\n")
    let version = try #require(Int(lines[0]))
    let expected = lines[1].split(separator: " ").map(String.init)
    for member in expected {
      let text = try Disk.read(package.appendingPathComponent(member))
      #expect(text == "\(version)", "\(member) holds \(text) in version \(version)")
    }
    var names = Set(try Disk.tree(package))
    names.remove("single.txt")
    #expect(names == Set(expected + ["manifest.txt", "nested/"]), "unexpected members: \(names)")
    return version
  }

  static func makePackage(_ folder: TemporaryDirectory) throws -> URL {
    let package = folder.file("Crash.mydoc")
    try Disk.write("1", to: package.appendingPathComponent("a.txt"))
    try Disk.write("1", to: package.appendingPathComponent("b.txt"))
    try Disk.write("1", to: package.appendingPathComponent("nested/c.txt"))
    try Disk.write("1", to: package.appendingPathComponent("marker-1"))
    try Disk.write(
      "1\na.txt b.txt nested/c.txt marker-1\n", to: package.appendingPathComponent("manifest.txt"))
    return package
  }

  @Test("a SIGKILL at each system call of a multi-member save leaves the old or the new version")
  func killAtEverySyscallOfAJournalledSave() throws {
    let folder = try TemporaryDirectory()
    let package = try Self.makePackage(folder)
    let calls = try Executables.run("quire-test-helper", ["count-calls", package.path, "multi"])
    let total = try #require(Int(calls.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(total > 20)
    var outcomes: [SaveRecovery: Int] = [:]
    for call in 1...total {
      let before = try Self.checkWholeVersion(package)
      let result = try Executables.run(
        "quire-test-helper", ["save-once", package.path, "\(call)", "multi"])
      #expect(
        result.status == 128 + SIGKILL || result.status == SIGKILL, "call \(call): \(result.stderr)"
      )
      outcomes[try SaveRecovery.recoverPackage(at: package), default: 0] += 1
      let after = try Self.checkWholeVersion(package)
      #expect(
        after == before || after == before + 1, "call \(call): version \(before) became \(after)")
      #expect(try !Disk.tree(package).contains { $0.hasPrefix(".quire-") })
    }
    // Kills before the commit roll back and kills after it roll forward: both must have happened.
    #expect(outcomes[.discardedUnfinishedSave, default: 0] > 0)
    #expect(outcomes[.finishedInterruptedSave, default: 0] > 0)
  }

  @Test("a SIGKILL at each system call of a one-member save leaves the old or the new member")
  func killAtEverySyscallOfASingleSave() throws {
    let folder = try TemporaryDirectory()
    let package = try Self.makePackage(folder)
    try Disk.write("0", to: package.appendingPathComponent("single.txt"))
    let calls = try Executables.run("quire-test-helper", ["count-calls", package.path, "single"])
    let total = try #require(Int(calls.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    for call in 1...total {
      let before = Int(try Disk.read(package.appendingPathComponent("single.txt")))!
      _ = try Executables.run(
        "quire-test-helper", ["save-once", package.path, "\(call)", "single"])
      try Self.checkWholeVersion(package)
      let after = Int(try Disk.read(package.appendingPathComponent("single.txt")))!
      #expect(after == before || after == before + 1)
    }
  }

  @Test(
    "100 SIGKILLs at random moments of a save loop always leave a whole version",
    .timeLimit(.minutes(5)))
  func randomKills() throws {
    let folder = try TemporaryDirectory()
    let package = try Self.makePackage(folder)
    var generator = SystemRandomNumberGenerator()
    var lastVersion = 1
    for round in 0..<100 {
      let process = Process()
      process.executableURL = Executables.url("quire-test-helper")
      process.arguments = ["save-loop", package.path]
      let output = Pipe()
      process.standardOutput = output
      try process.run()
      let reader = LineReader(output.fileHandleForReading)
      // Let a random number of saves start, then kill while the next one is in flight.
      let target = Int.random(in: 1...6, using: &generator)
      var started = 0
      while started < target, let line = reader.nextLine() {
        if line.hasPrefix("saving ") { started += 1 }
      }
      #expect(started == target, "round \(round): the helper stopped early")
      kill(process.processIdentifier, SIGKILL)
      process.waitForExit()
      let version = try Self.checkWholeVersion(package)
      #expect(version >= lastVersion, "round \(round): went back from \(lastVersion) to \(version)")
      lastVersion = version
    }
    #expect(lastVersion > 100)
  }
}
