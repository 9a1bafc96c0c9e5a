import CQuireImaging
import Foundation

/// An image as RGBA pixels (8 bits a channel): decoded from PNG or JPEG with the system's libpng
/// and libjpeg-turbo, scaled down for thumbnails, and encoded as PNG.
public struct RasterImage: Sendable, Hashable {
  /// Width in pixels.
  public let width: Int
  /// Height in pixels.
  public let height: Int
  /// Row-major RGBA bytes, `width * height * 4` of them.
  public let pixels: [UInt8]

  /// An image from raw RGBA pixels.
  public init(width: Int, height: Int, pixels: [UInt8]) {
    precondition(pixels.count == width * height * 4, "RGBA pixels must be width × height × 4 bytes")
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// Decodes PNG or JPEG bytes.
  ///
  /// - Throws: ``QuireError/Code-swift.struct/corruptDocument`` if the bytes are neither, or damaged.
  public init(decoding data: Data) throws(QuireError) {
    var pointer: UnsafeMutablePointer<UInt8>?
    var width: UInt32 = 0
    var height: UInt32 = 0
    var message = [CChar](repeating: 0, count: 200)
    let status = data.withUnsafeBytes { bytes -> Int32 in
      let base = bytes.bindMemory(to: UInt8.self).baseAddress
      if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
        return cquire_png_decode(base, data.count, &pointer, &width, &height)
      }
      if data.starts(with: [0xFF, 0xD8]) {
        return cquire_jpeg_decode(
          base, data.count, &pointer, &width, &height, &message, message.count)
      }
      return -2
    }
    guard status == 0, let pointer else {
      let text = String(
        decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      let detail = text.isEmpty ? "" : ": " + text
      throw QuireError(
        .corruptDocument,
        status == -2 ? "The image is neither PNG nor JPEG." : "The image is damaged\(detail).")
    }
    defer { free(pointer) }
    self.init(
      width: Int(width), height: Int(height),
      pixels: Array(UnsafeBufferPointer(start: pointer, count: Int(width) * Int(height) * 4)))
  }

  /// The image as PNG bytes.
  public func pngData() throws(QuireError) -> Data {
    var out: UnsafeMutablePointer<UInt8>?
    var size = 0
    let status = pixels.withUnsafeBufferPointer {
      cquire_png_encode($0.baseAddress, UInt32(width), UInt32(height), &out, &size)
    }
    guard status == 0, let out else {
      throw QuireError(.internalError, "libpng could not encode a \(width)×\(height) image.")
    }
    defer { free(out) }
    return Data(bytes: out, count: size)
  }

  /// The image as JPEG bytes at `quality` (1–100); transparency is dropped.
  public func jpegData(quality: Int = 85) throws(QuireError) -> Data {
    var out: UnsafeMutablePointer<UInt8>?
    var size = 0
    let status = pixels.withUnsafeBufferPointer {
      cquire_jpeg_encode(
        $0.baseAddress, UInt32(width), UInt32(height), Int32(max(1, min(100, quality))), &out, &size
      )
    }
    guard status == 0, let out else {
      throw QuireError(.internalError, "libjpeg could not encode a \(width)×\(height) image.")
    }
    defer { free(out) }
    return Data(bytes: out, count: size)
  }

  /// The image scaled down (never up) to fit in `side`×`side`, averaging the pixels each new
  /// pixel covers.
  public func scaled(toFit side: Int) -> RasterImage {
    let scale = min(1, Double(side) / Double(max(width, height)))
    guard scale < 1 else { return self }
    let newWidth = max(1, Int((Double(width) * scale).rounded()))
    let newHeight = max(1, Int((Double(height) * scale).rounded()))
    var result = [UInt8](repeating: 0, count: newWidth * newHeight * 4)
    for y in 0..<newHeight {
      let top = y * height / newHeight
      let bottom = max(top + 1, (y + 1) * height / newHeight)
      for x in 0..<newWidth {
        let left = x * width / newWidth
        let right = max(left + 1, (x + 1) * width / newWidth)
        var sums = (0, 0, 0, 0)
        for sourceY in top..<bottom {
          var index = (sourceY * width + left) * 4
          for _ in left..<right {
            sums.0 += Int(pixels[index])
            sums.1 += Int(pixels[index + 1])
            sums.2 += Int(pixels[index + 2])
            sums.3 += Int(pixels[index + 3])
            index += 4
          }
        }
        let count = (bottom - top) * (right - left)
        let target = (y * newWidth + x) * 4
        result[target] = UInt8(sums.0 / count)
        result[target + 1] = UInt8(sums.1 / count)
        result[target + 2] = UInt8(sums.2 / count)
        result[target + 3] = UInt8(sums.3 / count)
      }
    }
    return RasterImage(width: newWidth, height: newHeight, pixels: result)
  }
}
