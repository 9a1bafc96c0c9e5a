import ArgumentParser
import Foundation
import Quire
import QuireApp
import QuireSync

/// The SimpleiCloudDocument case: an album of many large images made on device A, opened on
/// device B, which downloads on demand, and its first grid page shown — timed, with the bytes
/// B fetched for it, beside downloading the whole album (B switched to download everything)
/// and rsync copying it.
struct SyncOpenCloudBenchmark: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync-open-cloud",
    abstract: "Time opening an album in the cloud and showing its first page of images.")

  @Option(help: "Images in the album.") var images = 2000
  @Option(help: "Bytes per image.") var imageSize = 1 << 20
  @Option(help: "Images on the first page of the grid.") var page = 40
  @Option(help: "Runs (the median is reported).") var runs = 3
  @Option(help: "Folder for the devices (default: the temporary folder).") var directory: String?

  @MainActor
  func run() async throws {
    let scratch = try Measurement.scratch(directory, "sync-open-cloud")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let staging = scratch.appendingPathComponent("staging/Bench.album")
    print("building an album of \(images) images of \(imageSize) bytes…")
    let names = try Self.makeAlbum(at: staging, images: images, size: imageSize)
    let firstPage = Array(names.prefix(page))
    let floor = try Measurement.milliseconds {
      for name in firstPage {
        _ = try Data(contentsOf: staging.appendingPathComponent(name), options: .uncached)
      }
    }
    let rsyncCopy = scratch.appendingPathComponent("rsync-copy")
    let rsync = try RsyncPeer.milliseconds(from: staging, to: rsyncCopy)
    try FileManager.default.removeItem(at: rsyncCopy)

    let rig = try SyncRig(
      scratch: scratch.appendingPathComponent("rig"), bArguments: ["--download", "on-demand"])
    defer { rig.stop() }
    print("syncing it from device A to the server…")
    let album = rig.b.appendingPathComponent("Bench.album")
    try FileManager.default.moveItem(at: staging, to: rig.a.appendingPathComponent("Bench.album"))
    guard
      SyncRig.waitFor(
        seconds: 3600, every: .milliseconds(50),
        {
          FileManager.default.fileExists(atPath: CloudPlaceholder.url(for: album).path)
        })
    else { throw RawFiles.Failure(description: "the album's placeholder never reached B") }
    rig.proxy.waitQuiet()

    var times: [Double] = []
    var opens: [Double] = []
    var fetched: [Double] = []
    for _ in 0..<runs {
      rig.proxy.reset()
      let document = AlbumDocument(fileURL: album)
      var shown = 0
      let start = ContinuousClock.now
      times.append(
        try await Measurement.milliseconds {
          try await document.open()
          opens.append(Measurement.milliseconds(since: start))
          for name in document.imageNames.prefix(page) {
            shown += try await document.image(named: name).count
          }
        })
      fetched.append(Double(rig.proxy.bytes.up + rig.proxy.bytes.down))
      try await document.close()
      guard shown == firstPage.count * imageSize else {
        throw RawFiles.Failure(description: "the first page showed \(shown) bytes")
      }
      try FileCoordinator.evictItem(at: album)  // in the cloud again for the next run
      rig.proxy.waitQuiet()
    }

    print("downloading the whole album on B…")
    rig.proxy.reset()
    guard var settings = try SyncSettings.load(from: rig.bSettings) else {
      throw RawFiles.Failure(description: "device B has no sync settings")
    }
    settings.setDownloadPolicy(.all, for: rig.b)
    var complete = false
    let whole = try Measurement.milliseconds {
      try settings.save(to: rig.bSettings)
      complete = SyncRig.waitFor(seconds: 3600, every: .milliseconds(20)) {
        let listed = (try? FileManager.default.contentsOfDirectory(atPath: album.path)) ?? []
        return listed.count == images && !listed.contains { $0.hasPrefix(".") }
      }
    }
    guard complete else { throw RawFiles.Failure(description: "B never held the whole album") }

    let packageBytes = images * imageSize
    let bytes = Measurement.median(fetched)
    Measurement.table(
      ["approach", "median ms", "bytes"],
      [
        [
          "Quire: open on B, first \(page) images", Measurement.format(Measurement.median(times)),
          String(Int(bytes)),
        ],
        ["  of which the open (its member list)", Measurement.format(Measurement.median(opens)), ""],
        ["Quire: whole album to B", Measurement.format(whole), String(packageBytes)],
        ["rsync -a: whole album (one machine)", Measurement.format(rsync), String(packageBytes)],
        ["floor: read the first page from disk", Measurement.format(floor), "0"],
      ])
    print(
      "RESULT sync-open-cloud images=\(images) first_page_ms=\(Measurement.format(Measurement.median(times))) "
        + "bytes_fetched=\(Int(bytes)) package_bytes=\(packageBytes) "
        + "fetched_percent=\(Measurement.format(bytes * 100 / Double(packageBytes))) "
        + "open_ms=\(Measurement.format(Measurement.median(opens))) "
        + "whole_download_ms=\(Measurement.format(whole)) rsync_ms=\(Measurement.format(rsync)) "
        + "floor_ms=\(Measurement.format(floor))")
  }

  /// An album of `images` distinct images of `size` random bytes each (incompressible, and no
  /// chunk shared between images, as photographs are); returns their names in order.
  static func makeAlbum(at url: URL, images: Int, size: Int) throws -> [String] {
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var words = [UInt64](repeating: 0, count: (size + 7) / 8)
    var names: [String] = []
    for index in 0..<images {
      for position in words.indices {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        words[position] = state
      }
      let name = String(format: "IMG_%06d.jpg", index)
      try words.withUnsafeBytes { Data($0.prefix(size)) }.write(
        to: url.appendingPathComponent(name))
      names.append(name)
    }
    return names
  }
}
