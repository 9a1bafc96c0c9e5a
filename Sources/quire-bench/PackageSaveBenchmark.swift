import ArgumentParser
import CQuireShims
import Foundation
import Quire

#if canImport(Glibc)
  import Glibc
#endif

/// Saving K changed members of an N-member package: Quire's incremental save against
/// Foundation's hard-link-and-swap, a whole copy-and-swap, and the floor (overwriting the
/// changed bytes in place and fsyncing them, with no atomicity at all).
struct PackageSaveBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "package-save",
    abstract: "Time saving K changed members of an N-member package (4 KiB each).")

  @Option(help: "Members in the package.") var members = 100_000
  @Option(help: "Members changed per save.") var changed = 1
  @Option(help: "Runs per approach (the median is reported).") var runs = 5
  @Option(help: "Folder to build the package in (default: the temporary folder).")
  var directory: String?

  func run() throws {
    let root = try Measurement.scratch(directory, "save")
    defer { try? FileManager.default.removeItem(at: root) }
    let package = root.appendingPathComponent("Bench.mydoc")
    print("building a package of \(members) members of 4 KiB…")
    let names = try RawFiles.makePackage(package.path, members: members, size: 4096)
    let step = max(1, members / max(1, changed))
    let changedNames = Set(stride(from: 0, to: members, by: step).prefix(changed).map { names[$0] })

    let wrapper = try FileWrapper(url: package)
    var timings: [String: [Double]] = [:]
    for run in 0..<runs {
      var payload = [UInt8](repeating: UInt8(truncatingIfNeeded: run + 1), count: 4096)
      payload[1] = 0x51
      for name in changedNames {
        if let old = wrapper.fileWrappers?[name] { wrapper.removeFileWrapper(old) }
        try wrapper.addRegularFile(withContents: Data(payload), preferredFilename: name)
      }
      // Each timed save starts from a flushed file system, so none pays for the writeback
      // of the approach before it (the baselines delete every member's old copy).
      sync()
      timings["quire", default: []].append(
        try Measurement.milliseconds {
          try wrapper.write(to: package, originalContentsURL: package)
        })
      sync()
      timings["hardlink", default: []].append(
        try Measurement.milliseconds {
          try swapSave(package.path, names, changedNames, payload, copyUnchanged: false)
        })
      sync()
      timings["rewrite", default: []].append(
        try Measurement.milliseconds {
          try swapSave(package.path, names, changedNames, payload, copyUnchanged: true)
        })
      sync()
      timings["floor", default: []].append(
        try Measurement.milliseconds { try overwriteInPlace(package.path, changedNames, payload) })
    }
    try verify(package, expectedMembers: members)

    let labels = [
      ("quire", "Quire incremental save"), ("hardlink", "hard-link every member and swap"),
      ("rewrite", "copy the whole tree and swap"), ("floor", "floor: pwrite + fsync in place"),
    ]
    Measurement.table(
      ["approach", "median ms", "min ms", "max ms"],
      labels.map { key, label in
        let values = timings[key]!
        return [
          label, Measurement.format(Measurement.median(values)),
          Measurement.format(values.min()!), Measurement.format(values.max()!),
        ]
      })
    let median = { (key: String) in Measurement.format(Measurement.median(timings[key]!)) }
    print(
      "RESULT package-save members=\(members) changed=\(changed) quire_ms=\(median("quire")) "
        + "hardlink_ms=\(median("hardlink")) rewrite_ms=\(median("rewrite")) floor_ms=\(median("floor"))"
    )
  }

  /// Foundation's approach (and, copying instead of linking, the naive one): build a new folder
  /// beside the package, write the changed members durably, link or copy the rest, swap the two
  /// folders atomically, and delete the old one.
  private func swapSave(
    _ package: String, _ names: [String], _ changed: Set<String>, _ payload: [UInt8],
    copyUnchanged: Bool
  ) throws {
    let temporary = package + ".new"
    try RawFiles.check(mkdir(temporary, 0o755), "mkdir")
    var buffer = [UInt8](repeating: 0, count: 4096)
    for name in names {
      let target = temporary + "/" + name
      if changed.contains(name) {
        try RawFiles.create(target, payload, sync: true)
      } else if copyUnchanged {
        let fd = open(package + "/" + name, O_RDONLY | O_CLOEXEC)
        try RawFiles.check(fd, "open")
        let count = read(fd, &buffer, buffer.count)
        close(fd)
        try RawFiles.create(target, Array(buffer[0..<max(0, count)]), sync: false)
      } else {
        try RawFiles.check(link(package + "/" + name, target), "link")
      }
    }
    try RawFiles.fsyncDirectory(temporary)
    try RawFiles.check(cquire_rename_exchange(AT_FDCWD, temporary, AT_FDCWD, package), "renameat2")
    try RawFiles.fsyncDirectory((package as NSString).deletingLastPathComponent)
    try RawFiles.removeTree(temporary)
  }

  /// The floor: overwrite each changed member's bytes in place and fsync them.
  private func overwriteInPlace(_ package: String, _ changed: Set<String>, _ payload: [UInt8])
    throws
  {
    for name in changed {
      let fd = open(package + "/" + name, O_WRONLY | O_CLOEXEC)
      try RawFiles.check(fd, "open")
      defer { close(fd) }
      try RawFiles.check(Int32(truncatingIfNeeded: pwrite(fd, payload, payload.count, 0)), "pwrite")
      try RawFiles.check(fsync(fd), "fsync")
    }
  }

  private func verify(_ package: URL, expectedMembers: Int) throws {
    let names = try RawFiles.names(package.path)
    guard names.count == expectedMembers, !names.contains(where: { $0.hasPrefix(".quire-") }) else {
      throw RawFiles.Failure(
        description:
          "package has \(names.count) entries after the runs, expected \(expectedMembers)")
    }
  }
}
