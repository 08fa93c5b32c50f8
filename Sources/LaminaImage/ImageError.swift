/// Why bytes could not become an `Image`: what kind of problem, and a message naming it.
public struct ImageError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// No bytes, or too few to tell the format.
        case empty
        /// Not PNG, JPEG or WebP, or a feature of one that is not read (animated WebP, CMYK JPEG).
        case unsupported
        /// The data ends before the image does.
        case truncated
        /// Larger than the limits allow (bytes, width, height or pixels).
        case tooLarge
        /// Not a valid image of its format.
        case corrupt
    }

    public var kind: Kind
    /// What is wrong, e.g. "JPEG truncated: Premature end of JPEG file".
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "image \(kind.rawValue): \(message)" }
}

/// The largest image a decoder accepts; each is checked before anything is allocated for the
/// pixels (the encoded size first, then the header's width and height).
public struct ImageLimits: Hashable, Sendable {
    /// Encoded bytes.
    public var maxBytes: Int
    public var maxWidth: Int
    public var maxHeight: Int
    /// width × height.
    public var maxPixels: Int

    public init(maxBytes: Int = 64 << 20, maxWidth: Int = 16384, maxHeight: Int = 16384, maxPixels: Int = 64 << 20) {
        self.maxBytes = maxBytes
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxPixels = maxPixels
    }

    /// 64 MiB encoded, 16384 pixels a side, 64 Mi pixels (256 MiB decoded).
    public static let standard = ImageLimits()

    /// Throws `.tooLarge` naming the first limit `width × height` exceeds; `.corrupt` for a
    /// size that is not positive.
    public func check(width: Int, height: Int, what: String) throws(ImageError) {
        guard width > 0, height > 0 else { throw ImageError(.corrupt, "\(what) has no pixels (\(width)×\(height))") }
        guard width <= maxWidth else { throw ImageError(.tooLarge, "\(what) is \(width) pixels wide (at most \(maxWidth))") }
        guard height <= maxHeight else {
            throw ImageError(.tooLarge, "\(what) is \(height) pixels high (at most \(maxHeight))")
        }
        guard width * height <= maxPixels else {
            throw ImageError(.tooLarge, "\(what) has \(width)×\(height) pixels (at most \(maxPixels))")
        }
    }
}
