import Foundation

/// A device signed in to an account, as `quire server devices` lists it.
public struct DeviceRecord: Sendable, Codable, Equatable {
  /// The device's identifier (what `quire server revoke` takes).
  public var id: String
  /// The name the device gave when it signed in.
  public var name: String
  /// When it signed in.
  public var created: Date
  /// Whether its token was revoked.
  public var revoked: Bool
}
