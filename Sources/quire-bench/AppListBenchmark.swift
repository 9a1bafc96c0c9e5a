import ArgumentParser
import Foundation
import Quire
import QuireApp

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The app's browser listing and thumbnails over HTTP, against a running `AppServer` on a library
/// of N documents in one folder: the first page of the listing (what the browser asks for on
/// every change), and thumbnails of documents not yet in memory. Beside them, the floor (readdir
/// and fstatat of the folder, what any listing needs without an index) and a peer (Python's
/// `http.server` listing the same folder).
struct AppListBenchmark: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "app-list",
    abstract: "Time the app's listing and thumbnail requests, beside readdir and http.server.")

  @Option(help: "Documents in the library.") var documents = 10_000
  @Option(help: "Listing requests to time.") var requests = 300
  @Option(help: "Thumbnail requests to time (each a different document).") var thumbnails = 200
  @Option(help: "Folder to work in (default: the temporary folder).") var directory: String?

  func run() async throws {
    let root = try Measurement.scratch(directory, "app-list")
    defer { try? RawFiles.removeTree(root.path) }
    let library = root.appendingPathComponent("Library")
    try Self.makeLibrary(library, documents: documents)

    let app = try await BenchApp.start(library)
    defer { app.serving.cancel() }
    let client = Client(base: "http://127.0.0.1:\(app.address.port!)/", token: app.token)

    // The first listing waits for the gather; then every request is timed.
    let first = try await client.get("api/list?limit=200")
    guard first.contains("\"total\":\(documents)") else {
      throw RawFiles.Failure(description: "the listing does not show \(documents) documents")
    }
    var byName: [Double] = []
    var byDate: [Double] = []
    for index in 0..<requests {
      let sort = index % 2 == 0 ? "name" : "date"
      let time = try await Measurement.milliseconds {
        _ = try await client.get("api/list?limit=200&sort=\(sort)")
      }
      if sort == "name" { byName.append(time) } else { byDate.append(time) }
    }
    let listing = byName + byDate
    var thumbTimes: [Double] = []
    for index in 0..<min(thumbnails, documents / 2) {
      let path = "Doc%20\(index * 2).mydoc"
      thumbTimes.append(
        try await Measurement.milliseconds {
          _ = try await client.get("api/thumbnail?path=\(path)")
        }
      )
    }

    var floor: [Double] = []
    for _ in 0..<9 { floor.append(try Measurement.milliseconds { try listFolder(library.path) }) }
    let peer = try await peerListing(library)

    Measurement.table(
      ["\(documents) documents in one folder", "p50 ms", "p99 ms"],
      [
        row("app: list, first page of 200, by name", byName),
        row("app: list, first page of 200, by date", byDate),
        row("app: thumbnail not in memory", thumbTimes),
        row("floor: readdir + fstatat of the folder", floor),
        row("peer: python3 http.server listing", peer),
      ])
    print(
      "RESULT app-list documents=\(documents) "
        + "list_p50_ms=\(Measurement.format(Measurement.median(listing))) "
        + "list_p99_ms=\(Measurement.format(Measurement.percentile(listing, 0.99))) "
        + "thumb_p50_ms=\(Measurement.format(Measurement.median(thumbTimes))) "
        + "floor_p50_ms=\(Measurement.format(Measurement.median(floor))) "
        + "peer_p50_ms=\(Measurement.format(Measurement.median(peer)))")
  }

  private func row(_ label: String, _ values: [Double]) -> [String] {
    [
      label, Measurement.format(Measurement.median(values)),
      Measurement.format(Measurement.percentile(values, 0.99)),
    ]
  }

  /// A library of `documents` in one folder: every other one a MyDoc package with its
  /// thumbnail, the rest text files.
  static func makeLibrary(_ library: URL, documents: Int) throws {
    try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
    let thumbnail = Array(
      try RasterImage(width: 64, height: 64, pixels: [UInt8](repeating: 180, count: 64 * 64 * 4))
        .pngData())
    for index in 0..<documents {
      if index % 2 == 0 {
        let package = library.path + "/Doc \(index).mydoc"
        try RawFiles.check(mkdir(package, 0o755), "mkdir")
        try RawFiles.check(mkdir(package + "/QuickLook", 0o755), "mkdir")
        try RawFiles.create(package + "/text.txt", Array("text \(index)".utf8), sync: false)
        try RawFiles.create(package + "/image.png", thumbnail, sync: false)
        try RawFiles.create(package + "/QuickLook/Thumbnail.png", thumbnail, sync: false)
      } else {
        try RawFiles.create(
          library.path + "/Note \(index).txt", Array("note \(index)".utf8), sync: false)
      }
    }
  }

  private func listFolder(_ path: String) throws {
    let names = try RawFiles.names(path)
    var info = stat()
    for name in names { try RawFiles.check(lstat(path + "/" + name, &info), "lstat") }
  }

  /// Python's http.server serving the library: its directory listing, timed like ours.
  private func peerListing(_ library: URL) async throws -> [Double] {
    try await BenchApp.withPythonServer(library) { port in
      let client = Client(base: "http://127.0.0.1:\(port)/", token: "")
      var times: [Double] = []
      for _ in 0..<max(20, requests / 10) {
        times.append(try await Measurement.milliseconds { _ = try await client.get("") })
      }
      return times
    }
  }

  /// A keep-alive HTTP client for the benchmark.
  struct Client: Sendable {
    let base: String
    let token: String
    let session: URLSession = {
      let configuration = URLSessionConfiguration.ephemeral
      configuration.httpMaximumConnectionsPerHost = 1
      return URLSession(configuration: configuration)
    }()

    func get(_ path: String) async throws -> String {
      var request = URLRequest(url: URL(string: base + path)!)
      if !token.isEmpty { request.setValue(token, forHTTPHeaderField: "X-Quire-Token") }
      let (data, response) = try await session.data(for: request)
      guard let http = response as? HTTPURLResponse, http.statusCode == 200 else {
        throw RawFiles.Failure(description: "GET \(path) failed: \(response)")
      }
      return String(decoding: data, as: UTF8.self)
    }
  }
}
