import Foundation
import QuireSyncProtocol

extension SyncAgent {
  /// What the push's decision needs from the disk and from the shares' agents, about the
  /// scanned `items`: which a share's agent syncs, and which are copies that kept another
  /// item's identity.
  ///
  /// The shares' agents are asked one item after another, and the agent may do other work
  /// while it waits for them; so what that work may change (the items shared with the account,
  /// the put-backs under way) is read last, with no wait after it. A put-back that ended
  /// meanwhile lets its item be uploaded now (its end asks for a push anyway). The identities
  /// are written after the decision, once every share's agent was asked: until then a copy
  /// of a shared document still carries the document's identity, as it did until its own
  /// turn before.
  func pushFacts(_ items: [LocalItem], scopes: ChangedScopes?) async -> PushDecision.Facts {
    var facts = PushDecision.Facts(isDrive: share == nil)
    for (index, item) in items.enumerated() {
      if share == nil, !synced.contains(item.id), shareLocations[item.id] != nil,
        await isSharedDocument(item)
      {
        facts.sharesAgents.insert(index)  // a shared document, wherever the participant moved it
        continue
      }
      if share == nil, !synced.contains(item.id), !shareLocations.isEmpty,
        let moved = await isMovedWithSharedFolder(item.id, at: item.path)
      {
        if moved {
          facts.sharesAgents.insert(index)  // in a shared folder the participant moved
          continue
        }
        facts.copies.insert(index)  // a copy of a document of a shared folder
      }
      if let scopes, let known = synced.record(item.id), !known.hasPath(item.path),
        !scopes.contains(known), LocalScanner.item(at: known.path, root: root)?.id == item.id
      {
        // Its identity's item is still where it was synced, a place this push does not look
        // (its move would have named it): this is a copy that kept the identity.
        facts.copies.insert(index)
      }
    }
    facts.sharedItems = share == nil ? sharedItems : []
    facts.puttingBack = Set(putBacksPending.filter { $0.value > 0 }.keys)
    return facts
  }
}
