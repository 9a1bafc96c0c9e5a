/// Where a stored chunk's bytes are: in a pack at an offset, or loose (`pack` nil).
struct BlobLocation: Sendable {
  var pack: String?
  var offset: Int
  var size: Int
}
