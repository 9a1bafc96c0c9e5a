import Foundation
import Testing

/// Two devices editing the same documents while offline, then reconnecting: the server merges,
/// both agents end with the same merged documents, and nothing is left beside them.
@Suite("Quire Sync agents merge concurrent edits")
struct SyncAgentMergeTests {
  @Test("offline edits of different lines and different members merge on both devices")
  func offlineEditsMerge() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    try a.start()
    try b.start()
    try a.write("one\ntwo\nthree\nfour\nfive\n", to: "Notes.txt")
    for name in ["1.jpg", "2.jpg", "3.jpg"] {
      try a.write("image \(name)", to: "Trip.album/\(name)")
    }
    try SyncDevice.sync(a, b)
    #expect(b.text("Notes.txt") != nil && b.exists("Trip.album/3.jpg"))
    #expect(try a.report().items.isEmpty)

    try a.pause()
    try b.pause()
    #expect(try a.report().connection == .paused)
    #expect(try b.report().connection == .paused)
    try a.write("ONE\ntwo\nthree\nfour\nfive\n", to: "Notes.txt")
    try a.write("image 4.jpg", to: "Trip.album/4.jpg")
    try FileManager.default.removeItem(at: a.url("Trip.album/1.jpg"))
    try b.write("one\ntwo\nthree\nfour\nFIVE\n", to: "Notes.txt")
    try b.write("image 5.jpg", to: "Trip.album/5.jpg")
    try FileManager.default.removeItem(at: b.url("Trip.album/2.jpg"))
    try a.pause(false)
    try b.pause(false)

    let merged = "ONE\ntwo\nthree\nfour\nFIVE\n"
    let members = ["3.jpg", "4.jpg", "5.jpg"]
    try SyncDevice.sync(a, b, a)
    for device in [a, b] {
      #expect(device.text("Notes.txt") == merged, "the merged note")
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: device.url("Trip.album").path)
          .sorted() == members, "the merged album")
    }
    #expect(a.text("Trip.album/5.jpg") == "image 5.jpg")
    #expect(b.text("Trip.album/4.jpg") == "image 4.jpg")
    #expect(try a.report().items.isEmpty)
    #expect(try b.report().items.isEmpty)
    #expect(try a.hiddenLeftovers() == [])
    #expect(try b.hiddenLeftovers() == [])
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: a.folder.path).sorted() == [
        "Notes.txt", "Trip.album",
      ], "no conflict copies")
  }

  @Test(
    "two devices that create the same name keep both, and every device names them alike",
    arguments: [true, false])
  func sameNameOnTwoDevices(bFirst: Bool) async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    let c = try SyncDevice("C", server: server)
    for device in [a, b, c] { try device.start() }
    try a.pause()
    try b.pause()
    #expect(try a.report().connection == .paused)
    #expect(try b.report().connection == .paused)
    try a.write("from A\n", to: "Plan.txt")
    try b.write("from B\n", to: "Plan.txt")
    // One device commits first and takes the name; the other's document becomes "Plan 2".
    let (first, second) = bFirst ? (b, a) : (a, b)
    try first.pause(false)
    try SyncDevice.sync(first, c)
    #expect(c.text("Plan.txt") != nil, "the first one reached C")
    try second.pause(false)
    try SyncDevice.sync(second, first, c)
    let firstText = bFirst ? "from B\n" : "from A\n"
    let secondText = bFirst ? "from A\n" : "from B\n"
    for device in [a, b, c] {
      #expect(
        device.text("Plan.txt") == firstText && device.text("Plan 2.txt") == secondText,
        "\(device.folder.lastPathComponent): the first keeps the name everywhere")
    }
    for device in [a, b, c] {
      #expect(try device.report().items.isEmpty)
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: device.folder.path).sorted() == [
          "Plan 2.txt", "Plan.txt",
        ])
    }
  }
}
