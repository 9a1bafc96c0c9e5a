import Foundation
import Quire
import QuireApp
import QuireSync
import Testing

/// The SimpleiCloudDocument case: an album of many large images opens on a device that
/// downloads on demand with its list of images only; each image arrives when it is read (and
/// the few after it with it); edits made there upload without the rest.
@Suite("Packages that download member by member", .timeLimit(.minutes(4)))
struct SyncMemberOnDemandTests {
  static let imageSize = 300 << 10
  static let names = (1...12).map { String(format: "img%02d.jpg", $0) }

  static func image(_ index: Int, version: UInt8 = 0) -> Data {
    var data = Data(repeating: UInt8(index) &+ version &* 31, count: imageSize)
    data.replaceSubrange(0..<8, with: Array("IMG\(index)-\(version)".utf8.prefix(8)))
    return data
  }

  @Test(
    "opening an album in the cloud brings its list; an image read brings that image and the next; other programs never see a partial file"
  )
  @MainActor
  func albumOpensBeforeItsImages() async throws {
    let (server, _, a, b) = try await onThread { try SyncOnDemandTests.devices() }
    defer { withExtendedLifetime(server) {} }  // the server runs until the test ends
    // Made outside the folder and moved in whole, so it arrives as one revision.
    let staging = a.home.url.appendingPathComponent("Trip.album")
    try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
    for (index, name) in Self.names.enumerated() {
      try Self.image(index).write(to: staging.appendingPathComponent(name))
    }
    try FileManager.default.createDirectory(
      at: staging.appendingPathComponent("Meta"), withIntermediateDirectories: true)
    try Data("{\"title\":\"Trip\"}".utf8).write(
      to: staging.appendingPathComponent("Meta/Info.json"))
    try FileManager.default.moveItem(at: staging, to: a.url("Trip.album"))
    try await SyncDevice.syncOffMain(a, b)
    #expect(b.isPlaceholder("Trip.album"))
    let before = try await onThread { try b.report() }.downloadedBytes

    // The open brings the package with its small members; each image is a placeholder in it.
    let album = AlbumDocument(fileURL: b.url("Trip.album"))
    try await album.open()
    #expect(album.imageNames == Self.names)
    #expect(b.text("Trip.album/Meta/Info.json") == "{\"title\":\"Trip\"}")
    for name in Self.names {
      #expect(!b.exists("Trip.album/\(name)"), "\(name) came with the list")
      #expect(
        FileManager.default.fileExists(
          atPath: CloudPlaceholder.url(for: b.url("Trip.album/\(name)")).path))
    }
    #expect(try await onThread { try b.report() }.downloadedBytes - before < Self.imageSize)
    // The images' placeholders are one file under twelve names: one inode, not one each.
    let inodes = Set(
      try Self.names.map { name in
        try #require(
          try FileManager.default.attributesOfItem(
            atPath: CloudPlaceholder.url(for: b.url("Trip.album/\(name)")).path)[.systemFileNumber]
            as? Int)
      })
    #expect(inodes.count == 1, "\(inodes.count) inodes for \(Self.names.count) placeholders")
    #expect(
      try CloudPlaceholder.read(at: CloudPlaceholder.url(for: b.url("Trip.album/img03.jpg"))).name
        == "img03.jpg", "each name reads as its own member's placeholder")

    // Reading the fifth image brings it (and the ones after it), not the ones before.
    let fifth = try await album.image(named: Self.names[4])
    #expect(fifth == Self.image(4))
    #expect(b.exists("Trip.album/\(Self.names[4])"))
    #expect(b.exists("Trip.album/\(Self.names[5])"))
    for name in Self.names[0..<4] { #expect(!b.exists("Trip.album/\(name)")) }
    #expect(try await onThread { try b.report() }.downloadedBytes - before < 9 * Self.imageSize)
    // The download is not a change of the open document.
    #expect(!album.documentState.contains(.inConflict))
    #expect(try await album.image(named: Self.names[5]) == Self.image(5))

    // Any other program sees each image whole or not at all.
    let package = b.url("Trip.album")
    for name in try FileManager.default.contentsOfDirectory(atPath: package.path)
    where !name.hasPrefix(".") && name != "Meta" {
      let index = try #require(Self.names.firstIndex(of: name), "\(name)")
      #expect(
        FileManager.default.contents(atPath: package.appendingPathComponent(name).path)
          == Self.image(index))
    }
    #expect(try b.hiddenLeftovers().isEmpty)

    // An image added on B goes up without the images still in the cloud; nothing is deleted.
    let added = try album.addImage(Self.image(99), preferredName: "new.jpg")
    try await album.save(to: album.fileURL, for: .forOverwriting)
    try await SyncDevice.syncOffMain(b, a)
    #expect(
      FileManager.default.contents(atPath: a.url("Trip.album/\(added)").path) == Self.image(99),
      "not on A")
    for (index, name) in Self.names.enumerated() {
      #expect(
        FileManager.default.contents(atPath: a.url("Trip.album/\(name)").path)
          == Self.image(index))
    }
    #expect(!b.exists("Trip.album/\(Self.names[1])"))

    // Removing an image that is still in the cloud removes it on A too.
    try album.removeImage(named: Self.names[2])
    try await album.save(to: album.fileURL, for: .forOverwriting)
    try await SyncDevice.syncOffMain(b, a)
    #expect(!a.exists("Trip.album/\(Self.names[2])"), "still on A")
    #expect(
      !FileManager.default.fileExists(
        atPath: CloudPlaceholder.url(for: b.url("Trip.album/\(Self.names[2])")).path))

    // A change on A of an image B has not downloaded reaches B; the others stay in the cloud.
    try Self.image(1, version: 1).write(to: a.url("Trip.album/\(Self.names[1])"))
    try await SyncDevice.syncOffMain(a, b)
    #expect(
      FileManager.default.contents(atPath: b.url("Trip.album/\(Self.names[1])").path)
        == Self.image(1, version: 1))
    #expect(!b.exists("Trip.album/\(Self.names[3])"))
    // A second image in the cloud, read while the document hears of the first downloads: its
    // download is answered by the agent alone (the document, itself waiting for the read, is
    // not asked — asking it once held every read for the 120 s download timeout).
    let started = ContinuousClock.now
    #expect(try await album.image(named: Self.names[0]) == Self.image(0))
    #expect(ContinuousClock.now - started < .seconds(60), "the read waited for a timeout")
    try await album.close()

    // A switch to download everything brings the rest.
    var settings = try #require(try SyncSettings.load(from: b.settingsFile))
    settings.setDownloadPolicy(.all, for: b.folder)
    try settings.save(to: b.settingsFile)
    #expect(
      await eventually {
        FileManager.default.contents(atPath: b.url("Trip.album/\(Self.names[3])").path)
          == Self.image(3)
      })
    let leftover = try FileManager.default.contentsOfDirectory(atPath: package.path).filter {
      CloudPlaceholder.isPlaceholderName($0)
    }
    #expect(leftover.isEmpty, "\(leftover)")
  }
}
