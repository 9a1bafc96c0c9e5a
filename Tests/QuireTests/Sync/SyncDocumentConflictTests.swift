import Foundation
import Quire
import QuireApp
import QuireSync
import Testing

/// A synced document open in an app when another device's concurrent edit loses to the current
/// version: the open `Document` goes `inConflict`, lists the conflict version, and leaves the
/// conflict when it is resolved — here, or on another device.
@Suite("Synced conflicts reach open documents")
@MainActor
struct SyncDocumentConflictTests {
  @Test("an open document goes inConflict on every device, and out of it when resolved")
  func openDocumentConflict() async throws {
    let (server, a, b) = try await SyncDevice.startedPair()
    defer { withExtendedLifetime(server) {} }  // the server runs until the test ends
    try a.write("first", to: "Shared.mydoc/text.txt")
    try SyncDevice.sync(a, b)
    #expect(b.text("Shared.mydoc/text.txt") == "first")
    FileVersion.register(SyncVersionStore(folder: a.folder, settingsFile: a.settingsFile))
    let document = MyDocDocument(fileURL: a.url("Shared.mydoc"))
    try await document.open()
    defer { Task { try? await document.close() } }
    #expect(!document.documentState.contains(.inConflict))

    // Both devices change the one line at once; A's change is older and loses.
    try await a.editAtOnce("Shared.mydoc/text.txt", "typed on A", with: b, "typed on B")
    #expect(
      await eventually { document.documentState.contains(.inConflict) },
      "the open document never went inConflict")
    #expect(await eventually { document.text == "typed on B" }, "the current version reloaded")
    #expect(document.unresolvedConflictVersions.count == 1)
    #expect(document.unresolvedConflictVersions.first?.localizedNameOfSavingComputer == "A")

    // Resolved on device B, from its command line: A's open document hears it.
    let resolved = try await Executables.runDetached(
      "quire", ["versions", "resolve", b.url("Shared.mydoc").path, "--keep", "current"],
      environment: b.environment)
    #expect(resolved.status == 0, "\(resolved.stderr)")
    #expect(
      await eventually { !document.documentState.contains(.inConflict) },
      "the resolution on B did not reach A's open document")
    #expect(document.unresolvedConflictVersions.isEmpty)

    // A second conflict, settled in the open document by keeping the other (losing) version:
    // it becomes current on both devices.
    try await a.editAtOnce("Shared.mydoc/text.txt", "again on A", with: b, "again on B")
    #expect(await eventually { document.documentState.contains(.inConflict) })
    try await document.resolveConflict(.keepOther)
    #expect(!document.documentState.contains(.inConflict))
    #expect(
      await eventually {
        a.text("Shared.mydoc/text.txt") == "again on A"
          && b.text("Shared.mydoc/text.txt") == "again on A"
      }, "the kept version is current everywhere")
    #expect(await eventually { document.text == "again on A" })
  }
}
