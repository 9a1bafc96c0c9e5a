import Testing

@testable import QuireSync

/// Where a shared folder the participant moved went: a function of paths.
@Suite("Quire Sync: finding where a participant moved a shared folder")
struct MovedFolderLocationTests {
  @Test("the documents looked for are inside the folder, however many synced elsewhere come first")
  func probes() {
    // Synced under the folder's old name (an owner's rename not read yet): passed over.
    let paths = ["Old/a", "Old/b", "Old/c", "Old/d", "Old/e", "P/x", "P/S/y", "PQ/z", "P/w", "P/v"]
    let probes = MovedFolderLocation.probes(paths, path: { $0 }, folder: "P")
    #expect(probes.map(\.inner) == ["x", "S/y", "w", "v"])
    #expect(probes.map(\.item) == ["P/x", "P/S/y", "P/w", "P/v"])
    #expect(MovedFolderLocation.probes(paths, path: { $0 }, folder: "P", limit: 1).count == 1)
    #expect(MovedFolderLocation.probes(["Old/a"], path: { $0 }, folder: "P").isEmpty)
  }

  @Test(
    "the folder is where the document is, less its path inside; moved on its own, it says nothing")
  func folder() {
    #expect(MovedFolderLocation.folder(inner: "S/y", foundAt: "Work/P/S/y") == "Work/P")
    #expect(MovedFolderLocation.folder(inner: "S/y", foundAt: "Work/Renamed/S/y") == "Work/Renamed")
    #expect(MovedFolderLocation.folder(inner: "S/y", foundAt: "Work/y") == nil)
    #expect(MovedFolderLocation.folder(inner: "y", foundAt: "Work/xy") == nil)
    #expect(MovedFolderLocation.folder(inner: "y", foundAt: "y") == nil)
  }
}
