/// When a browser's session (``WebSession``) ends: once unused for its lifetime, as a bank's or
/// Nextcloud's does. Each use moves the end on, but the store writes the new end only once half
/// the lifetime has passed, so a page that reads all day writes a few times a week.
enum SessionLifetime {
  /// How long a session lasts unused unless the server is told otherwise: a week.
  static let standard: Duration = .seconds(7 * 86_400)

  /// Whether a session that ends at `expires` still holds at `now` (seconds since 1970).
  static func isLive(expires: Double, now: Double) -> Bool { now < expires }

  /// Whether a use at `now` should write a new end: when less than half the `lifetime` is left.
  static func needsRenewal(expires: Double, lifetime: Double, now: Double) -> Bool {
    expires - now < lifetime / 2
  }
}
