import Foundation
import Quire
import QuireApp
import Testing

/// The promise the agent exists for: an edit on one device appears in a document open on the
/// other, reloaded in place, because the agent writes through file coordination.
@Suite("Quire Sync reaches open documents")
@MainActor
struct SyncOpenDocumentTests {
  @Test(
    "an edit on device A reloads the document open on device B, without losing B's own later edits")
  func openDocumentReloads() async throws {
    let (server, a, b) = try await SyncDevice.startedPair()
    defer { withExtendedLifetime(server) {} }  // the server runs until the test ends
    try a.write("first", to: "Shared.mydoc/text.txt")
    #expect(await eventually { b.text("Shared.mydoc/text.txt") == "first" })

    let document = MyDocDocument(fileURL: b.url("Shared.mydoc"))
    try await document.open()
    defer { Task { try? await document.close() } }
    #expect(document.text == "first")

    try a.write("typed on A", to: "Shared.mydoc/text.txt")
    #expect(
      await eventually { document.text == "typed on A" },
      "the open document did not reload; on disk: \(b.text("Shared.mydoc/text.txt") ?? "nothing")")

    document.setText("typed on B")
    document.undoManager.endEvent()
    try await document.save(to: document.fileURL, for: .forOverwriting)
    // The document saves the moment it has reloaded: the agent must have recorded what it
    // downloaded inside its coordinated write, or it takes this save for the download.
    #expect(
      await eventually { a.text("Shared.mydoc/text.txt") == "typed on B" },
      "B's save did not reach A; on A: \(a.text("Shared.mydoc/text.txt") ?? "nothing")")
  }
}
