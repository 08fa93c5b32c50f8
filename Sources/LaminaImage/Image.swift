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
    /// `width × height × format.bytesPerPixel` bytes, rows top first.
    public let pixels: [UInt8]
    public let format: Format
    /// A surface layer's pixels (`SurfaceStorage`) at `surfaceVersion`, in place of `pixels`
    /// (empty then): each new version of a surface is a new `Image` over the same storage, so
    /// a frame redraws the layer while its GPU copy takes only the damaged rectangles.
    public let surface: SurfaceStorage?
    public let surfaceVersion: UInt64

    /// How `pixels` hold a pixel.
    public enum Format: Sendable, Hashable {
        /// Four bytes: premultiplied RGBA, sRGB-encoded (layer contents).
        case rgba8
        /// One byte: coverage or alpha (a glyph atlas), drawn as coverage × a color.
        case a8

        public var bytesPerPixel: Int { self == .rgba8 ? 4 : 1 }
    }

    /// - Precondition: `pixels.count == width × height × 4`, both sizes positive.
    public convenience init(width: Int, height: Int, premultipliedPixels pixels: [UInt8]) {
        self.init(width: width, height: height, format: .rgba8, pixels: pixels)
    }

    /// - Precondition: `pixels.count == width × height × format.bytesPerPixel`, both sizes positive.
    public init(width: Int, height: Int, format: Format, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * format.bytesPerPixel,
                     "an Image needs a positive size and width × height × bytesPerPixel bytes")
        id = Self.nextID()
        self.width = width
        self.height = height
        self.format = format
        self.pixels = pixels
        surface = nil
        surfaceVersion = 0
    }

    /// A blank image: its pixels are not held here (`pixels` is empty) but written where it
    /// is drawn — the shape atlas' frame page, whose texture the backend clears and then
    /// copies rectangles into. Both sizes positive.
    public init(blankWidth width: Int, height: Int, format: Format) {
        precondition(width > 0 && height > 0, "an Image needs a positive size")
        id = Self.nextID()
        self.width = width
        self.height = height
        self.format = format
        pixels = []
        surface = nil
        surfaceVersion = 0
    }

    /// Whether the image is blank (`init(blankWidth:height:format:)`).
    public var isBlank: Bool { pixels.isEmpty && surface == nil }

    /// The current version of a surface's pixels (see `surface`).
    public init(surface: SurfaceStorage) {
        id = Self.nextID()
        width = surface.width
        height = surface.height
        format = .rgba8
        pixels = []
        self.surface = surface
        surfaceVersion = surface.version
    }

    /// A new id from the counter of image ids.
    static func nextID() -> UInt64 { imageIDCounter.add(1, ordering: .relaxed).newValue }

    /// Bytes the pixels take (what a GPU copy without mipmaps takes too).
    public var byteCount: Int { surface?.byteCount ?? pixels.count }

    /// The RGBA bytes (premultiplied) of pixel (x, y) of an `.rgba8` image.
    public subscript(x: Int, y: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let i = (y * width + x) * 4
        if let s = surface {
            let p = s.pixels.assumingMemoryBound(to: UInt8.self)
            return (p[i], p[i + 1], p[i + 2], p[i + 3])
        }
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    public var description: String { "image#\(id) \(width)×\(height)" }
}

private let imageIDCounter = Atomic<UInt64>(0)
