import Synchronization

/// A decoded image as the compositor shows it: `width × height` pixels of premultiplied RGBA8,
/// sRGB-encoded (the renderer blends in sRGB-encoded space), rows top first. Immutable and
/// shared by reference: every layer showing it holds the same object, and a backend keeps its
/// GPU copy under `id`.
///
/// Any thread may read it.
public final class Image: Sendable, CustomStringConvertible {
    /// Distinct for every image made in this process (never reused), so a GPU copy kept under
    /// an id always belongs to one image.
    public let id: UInt64
    public let width: Int
    public let height: Int
    /// `width × height × 4` bytes, premultiplied RGBA, rows top first.
    public let pixels: [UInt8]

    /// - Precondition: `pixels.count == width × height × 4`, both sizes positive.
    public init(width: Int, height: Int, premultipliedPixels pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 4,
                     "an Image needs a positive size and width × height × 4 bytes")
        id = imageIDCounter.add(1, ordering: .relaxed).newValue
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Bytes the pixels take (what a GPU copy without mipmaps takes too).
    public var byteCount: Int { pixels.count }

    /// The RGBA bytes (premultiplied) of pixel (x, y).
    public subscript(x: Int, y: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    public var description: String { "image#\(id) \(width)×\(height)" }
}

private let imageIDCounter = Atomic<UInt64>(0)
