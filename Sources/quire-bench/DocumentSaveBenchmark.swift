import ArgumentParser
import Foundation
import Quire
import QuireApp

#if canImport(Glibc)
  import Glibc
#endif

/// Editing one member of an N-member package and saving it through Document (contents,
/// change token, file-access executor, incremental package save), against the floor.
struct DocumentSaveBenchmark: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "document-save",
    abstract: "Time a Document save of one edited member in an N-member package.")

  @Option(help: "Members in the package.") var members = 100_000
  @Option(help: "Runs (the median is reported).") var runs = 15
  @Option(help: "Folder to build the package in (default: the temporary folder).") var directory:
    String?
  @Flag(
    help:
      "Keep a version at each save, as the app and quire edit do (a LocalVersionStore in the scratch folder)."
  ) var versions = false

  @MainActor
  func run() async throws {
    let root = try Measurement.scratch(directory, "document")
    defer { try? FileManager.default.removeItem(at: root) }
    let package = root.appendingPathComponent("Bench.album")
    print("building a package of \(members) members of 4 KiB…")
    let names = try RawFiles.makePackage(package.path, members: members, size: 4096)
    if versions {
      FileVersion.register(
        LocalVersionStore(
          folder: root, directory: root.appendingPathComponent("versions"),
          cache: root.appendingPathComponent("version-cache")))
    }
    let document = AlbumDocument(fileURL: package)
    try await document.open()
    let name = names[members / 2]
    if versions {
      // The first version of a document stores every member once; the saves measured after
      // it keep versions of one changed member each.
      print("keeping the first version…")
      try document.removeImage(named: names[0])
      try document.addImage(Data(repeating: 0, count: 4096), preferredName: names[0])
      document.undoManager.endEvent()
      try await document.save(to: package, for: .forOverwriting)
    }
    // The floor writes a file of the member's size beside the package, not the member itself:
    // a write into the package is another program's change of the open document, which it
    // would reload (and a version would have to keep) before the next measured save.
    let floorFile = root.appendingPathComponent("floor.bin").path
    try RawFiles.create(floorFile, [UInt8](repeating: 0, count: 4096), sync: true)
    var saves: [Double] = []
    var floors: [Double] = []
    var replaces: [Double] = []
    for run in 0..<runs {
      let payload = Data(repeating: UInt8(truncatingIfNeeded: run + 1), count: 4096)
      try document.removeImage(named: name)
      try document.addImage(payload, preferredName: name)
      document.undoManager.endEvent()
      sync()
      saves.append(
        try await Measurement.milliseconds {
          try await document.save(to: package, for: .forOverwriting)
        })
      guard try Data(contentsOf: package.appendingPathComponent(name)) == payload,
        !document.hasUnsavedChanges
      else {
        throw RawFiles.Failure(description: "the save did not write the edit")
      }
      sync()
      floors.append(
        try Measurement.milliseconds {
          let fd = open(floorFile, O_WRONLY | O_CLOEXEC)
          try RawFiles.check(fd, "open")
          defer { close(fd) }
          try RawFiles.check(
            Int32(
              truncatingIfNeeded: payload.withUnsafeBytes { pwrite(fd, $0.baseAddress, 4096, 0) }),
            "pwrite")
          try RawFiles.check(fsync(fd), "fsync")
        })
    }
    for run in 0..<runs {
      let bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: run + 100), count: 4096)
      let temporary = package.appendingPathComponent(".bench-replace").path
      sync()
      replaces.append(
        try Measurement.milliseconds {
          try RawFiles.create(temporary, bytes, sync: true)
          try RawFiles.check(
            rename(temporary, package.appendingPathComponent(name).path), "rename")
          try RawFiles.fsyncDirectory(package.path)
        })
    }
    try await document.close()
    Measurement.table(
      ["approach", "median ms", "min ms", "max ms"],
      [
        [
          versions ? "Document.save, keeping a version" : "Document.save (one edited member)",
          Measurement.format(Measurement.median(saves)),
          Measurement.format(saves.min()!), Measurement.format(saves.max()!),
        ],
        [
          "floor: pwrite + fsync in place", Measurement.format(Measurement.median(floors)),
          Measurement.format(floors.min()!), Measurement.format(floors.max()!),
        ],
        [
          "safe replace: write + fsync, rename, fsync folder",
          Measurement.format(Measurement.median(replaces)),
          Measurement.format(replaces.min()!), Measurement.format(replaces.max()!),
        ],
      ])
    print(
      "RESULT document-save members=\(members) versions=\(versions ? 1 : 0) save_ms=\(Measurement.format(Measurement.median(saves))) "
        + "floor_ms=\(Measurement.format(Measurement.median(floors))) "
        + "replace_ms=\(Measurement.format(Measurement.median(replaces)))")
  }
}
