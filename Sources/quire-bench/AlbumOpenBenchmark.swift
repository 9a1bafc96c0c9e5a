import ArgumentParser
import Foundation
import Quire
import QuireApp

/// Opening an album of N large images through AlbumDocument: the image list only, no image bytes.
struct AlbumOpenBenchmark: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "album-open",
    abstract: "Time opening an album of N images of 1 MiB through AlbumDocument.")

  @Option(help: "Images in the album.") var images = 2000
  @Option(help: "Bytes per image.") var imageSize = 1 << 20
  @Option(help: "Runs (the median is reported).") var runs = 5
  @Option(help: "Folder to build the album in (default: the temporary folder).") var directory:
    String?

  @MainActor
  func run() async throws {
    let root = try Measurement.scratch(directory, "album")
    defer { try? FileManager.default.removeItem(at: root) }
    let album = root.appendingPathComponent("Bench.album")
    print("building an album of \(images) images of \(imageSize) bytes…")
    _ = try RawFiles.makePackage(album.path, members: images, size: imageSize)
    _ = try RawFiles.walk(album.path)

    var opens: [Double] = []
    var walks: [Double] = []
    var peak = 0.0
    for _ in 0..<runs {
      walks.append(try Measurement.milliseconds { _ = try RawFiles.walk(album.path) })
      Measurement.resetPeakMemory()
      let document = AlbumDocument(fileURL: album)
      opens.append(try await Measurement.milliseconds { try await document.open() })
      peak = max(peak, Measurement.peakMemoryMiB())
      guard document.imageNames.count == images else {
        throw RawFiles.Failure(
          description: "the album lists \(document.imageNames.count) images, not \(images)")
      }
      guard
        case .fileWrapper(let wrapper) = try document.contents(
          forType: AlbumDocument.typeIdentifier),
        wrapper.fileWrappers?.values.allSatisfy({ !$0.hasLoadedContents }) == true
      else { throw RawFiles.Failure(description: "opening the album read image bytes") }
      try await document.close()
    }
    Measurement.table(
      ["approach", "median ms", "min ms"],
      [
        [
          "AlbumDocument.open()", Measurement.format(Measurement.median(opens)),
          Measurement.format(opens.min()!),
        ],
        [
          "floor: readdir + lstat", Measurement.format(Measurement.median(walks)),
          Measurement.format(walks.min()!),
        ],
      ])
    print(
      "peak resident memory during the open: \(Measurement.format(peak)) MiB (\(images) images, \(images * imageSize >> 20) MiB on disk)"
    )
    print(
      "RESULT album-open images=\(images) open_ms=\(Measurement.format(Measurement.median(opens))) "
        + "rss_mib=\(Measurement.format(peak))")
  }
}
