import QuireSyncProtocol
import Testing

@testable import QuireSync

/// What a device does with a folder move from the journal: a function of its records and two
/// looks at the disk, asked about many generated trees.
@Suite("Quire Sync: applying a folder move from the journal")
struct FolderMoveStepsTests {
  typealias Item = (id: String, path: String, revision: Int64, isPlaceholder: Bool)

  @Test("a folder here is renamed whole; a device's later item in it keeps the move to items")
  func examples() {
    let move = FolderMove(from: "A", to: "B/A")
    let items: [Item] = [
      ("1", "A/x.txt", 3, false), ("2", "A/S/y.txt", 5, true), ("3", "C/z.txt", 1, false),
    ]
    let whole = FolderMoveSteps.decide(
      move, revisionsBefore: 5, synced: items, folderHere: true, targetFree: true)
    #expect(whole?.files == .renameFolder(from: "A", to: "B/A"))
    #expect(whole?.records == ["1": "B/A/x.txt", "2": "B/A/S/y.txt"])
    // Committed here into the folder after the move (revision 5 > 4): it stays, so the folder
    // is not renamed whole; the other item moves on its own.
    let partial = FolderMoveSteps.decide(
      move, revisionsBefore: 4, synced: items, folderHere: true, targetFree: true)
    #expect(
      partial?.files
        == .each(
          [.init(id: "1", from: "A/x.txt", to: "B/A/x.txt", isPlaceholder: false)], husks: ["A"]))
    #expect(partial?.records == ["1": "B/A/x.txt"])
    // The folder is not here, or something is at the new name: item by item.
    for (here, free) in [(false, true), (true, false)] {
      let steps = FolderMoveSteps.decide(
        move, revisionsBefore: 5, synced: items, folderHere: here, targetFree: free)
      guard case .each(let moves, _) = steps?.files else {
        Issue.record("not item by item: \(String(describing: steps))")
        continue
      }
      #expect(moves.map(\.id) == ["2", "1"])  // in order of their paths: "A/S/…" before "A/x…"
      #expect(moves.map(\.isPlaceholder) == [true, false])
    }
    // Nothing of this device's in the folder, or all of it newer: nothing to do.
    #expect(
      FolderMoveSteps.decide(
        FolderMove(from: "D", to: "E"), revisionsBefore: 9, synced: items, folderHere: false,
        targetFree: true) == nil)
    #expect(
      FolderMoveSteps.decide(
        move, revisionsBefore: 2, synced: items, folderHere: true, targetFree: true) == nil)
    // "AB/…" is not inside "A".
    #expect(
      FolderMoveSteps.decide(
        move, revisionsBefore: 9, synced: [("9", "AB/w.txt", 1, false)], folderHere: true,
        targetFree: true) == nil)
  }

  @Test(
    "on generated trees, exactly the items the move took get their moved paths, each once, and the folder is renamed whole only when it takes all of them",
    arguments: 0..<300)
  func generated(seed: UInt64) {
    var random = SplitMix(seed: seed)
    let folders = ["A", "AB", "A/S", "A/S/T", "B", "B/A"]
    var items: [Item] = []
    for index in 0..<Int.random(in: 0...25, using: &random) {
      let folder = folders.randomElement(using: &random)!
      items.append(
        (
          "id\(index)", folder + "/f\(index)", Int64.random(in: 1...20, using: &random),
          Bool.random(using: &random)
        ))
    }
    let move = FolderMove(
      from: ["A", "A/S", "B"].randomElement(using: &random)!,
      to: ["R", "B/R", "A/S/T/R"].randomElement(using: &random)!)
    let before = Int64.random(in: 0...20, using: &random)
    let here = Bool.random(using: &random)
    let free = Bool.random(using: &random)
    let steps = FolderMoveSteps.decide(
      move, revisionsBefore: before, synced: items.shuffled(using: &random), folderHere: here,
      targetFree: free)
    let inside = items.filter { move.relative($0.path) != nil }
    let taken = inside.filter { $0.revision <= before }
    guard let steps else {
      #expect(taken.isEmpty, "seed \(seed): a move that took \(taken.count) items was dropped")
      return
    }
    #expect(
      steps.records == Dictionary(uniqueKeysWithValues: taken.map { ($0.id, move.moved($0.path)) }),
      "seed \(seed)")
    switch steps.files {
    case .renameFolder(let from, let to):
      #expect(here && free && taken.count == inside.count, "seed \(seed): renamed over a stayer")
      #expect(from == move.from && to == move.to)
    case .each(let moves, let husks):
      #expect(!(here && free && taken.count == inside.count), "seed \(seed): one by one for none")
      // Every folder a moved item leaves, up to the old folder itself (last), each after the
      // folders inside it, and nothing outside the old folder.
      #expect(husks.last == move.from, "seed \(seed): \(husks)")
      for item in moves {
        for folder in FolderMoveFinder.ancestors(of: item.from) where move.relative(folder) != nil {
          #expect(husks.contains(folder), "seed \(seed): \(folder) left behind")
        }
      }
      for (index, husk) in husks.enumerated() {
        #expect(husk == move.from || move.relative(husk) != nil, "seed \(seed): \(husk)")
        for later in husks[(index + 1)...] {
          #expect(
            FolderMove(from: husk, to: "").relative(later) == nil,
            "seed \(seed): \(later) before what is in it")
        }
      }
      #expect(Set(moves.map(\.id)) == Set(taken.map(\.id)) && moves.count == taken.count)
      for itemMove in moves {
        let item = taken.first { $0.id == itemMove.id }
        #expect(itemMove.from == item?.path && itemMove.to == steps.records[itemMove.id])
        #expect(itemMove.isPlaceholder == item?.isPlaceholder)
      }
    }
  }
}
