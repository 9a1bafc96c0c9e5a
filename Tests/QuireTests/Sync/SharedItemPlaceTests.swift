import Testing

@testable import QuireSync

/// What the drive's agent makes of an item carrying a shared item's identity: a function of
/// where the share was last known to be and one look at the disk, asked only when needed.
@Suite("Quire Sync: a shared item moved anywhere, or copied")
struct SharedItemPlaceTests {
  @Test(
    "a shared document where it was is its share's; moved, its share follows it; a copy is the account's own"
  )
  func document() {
    var looked = false
    let here = SharedItemPlace.document(
      at: "Shared with me/a.txt", location: "Shared with me/a.txt"
    ) {
      looked = true
      return true
    }
    #expect(here == .withItsShare)
    #expect(!looked, "the disk was read for a document where its share is")
    #expect(
      SharedItemPlace.document(at: "Work/a.txt", location: "Shared with me/a.txt") { false }
        == .movedWithItsShare)
    #expect(
      SharedItemPlace.document(at: "Work/a.txt", location: "Shared with me/a.txt") { true }
        == .copy)
  }

  @Test(
    "a document in a shared folder where the folder is is its share's; the folder moved, it follows; else a copy"
  )
  func folder() {
    let folder = "Shared with me/Project"
    var looked = false
    let inside = SharedItemPlace.inSharedFolder(at: folder + "/Sub/a.txt", folder: folder) {
      looked = true
      return true
    }
    #expect(inside == .withItsShare)
    #expect(!looked)
    #expect(
      SharedItemPlace.inSharedFolder(at: "Work/Project/a.txt", folder: folder) { false }
        == .movedWithItsShare)
    #expect(
      SharedItemPlace.inSharedFolder(at: "Work/Project/a.txt", folder: folder) { true } == .copy)
    // A sibling whose name starts with the folder's is not inside it, nor is the folder itself.
    #expect(
      SharedItemPlace.inSharedFolder(at: folder + "2/a.txt", folder: folder) { true } == .copy)
    #expect(SharedItemPlace.inSharedFolder(at: folder, folder: folder) { true } == .copy)
  }
}

/// Which folders a shared folder's agent tries to remove after an item left them.
@Suite("Quire Sync: the folders an item of a shared folder leaves behind")
struct FoldersLeftTests {
  @Test(
    "from the item's old folder up to the shared folder, which stays; none if it stayed in its folder"
  )
  func folders() {
    let left = SyncAgent.foldersLeft(by: "P/A/B/x.txt", now: "P/C/x.txt", shareFolder: "P")
    #expect(left == ["P/A/B", "P/A"])
    #expect(
      SyncAgent.foldersLeft(by: "P/A/B/x.txt", now: nil, shareFolder: "P") == ["P/A/B", "P/A"])
    #expect(SyncAgent.foldersLeft(by: "P/A/x.txt", now: "P/A/y.txt", shareFolder: "P").isEmpty)
    #expect(SyncAgent.foldersLeft(by: "P/x.txt", now: nil, shareFolder: "P").isEmpty)
    // Moved deeper inside its own folder: it is still there.
    #expect(SyncAgent.foldersLeft(by: "P/A/x.txt", now: "P/A/S/x.txt", shareFolder: "P").isEmpty)
  }
}
