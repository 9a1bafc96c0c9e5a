import Foundation
import Quire
import QuireSync

extension AppConfiguration {
  /// Registers where documents' versions are kept, as the app and `quire edit` see them: a
  /// synced library's on the sync server (when this device is signed in), every other
  /// document's on this device (``Quire/LocalVersionStore``), kept on each save.
  public static func registerVersionStores(library: URL) {
    FileVersion.register(LocalVersionStore())
    FileVersion.register(SyncVersionStore(folder: library))
  }
}
