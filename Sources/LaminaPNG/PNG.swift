import CPNG

/// An 8-bit RGBA image: `width × height × 4` bytes, row-major, top row first, straight
/// (not premultiplied) alpha, sRGB-encoded — what a PNG file holds.
public struct RGBAImage: Hashable, Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 4,
                     "RGBAImage needs width × height × 4 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The RGBA bytes of pixel (x, y).
    public subscript(x: Int, y: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }
}

/// Why a PNG could not be read or written; `message` is libpng's.
public struct PNGError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "PNG: \(message)" }
}

/// PNG encoding and decoding of `RGBAImage`s through libpng's simplified API
/// (`png_image_*`). Any thread may call these.
public enum PNG {
    /// Encodes `image` as an 8-bit RGBA PNG.
    public static func encode(_ image: RGBAImage) throws(PNGError) -> [UInt8] {
        guard image.width > 0, image.height > 0 else { throw PNGError("cannot encode an empty image") }
        var png = makeImage()
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.format = formatRGBA
        let stride = Int32(image.width * 4)
        var size = 0
        // First call with no buffer: libpng reports the size needed.
        let sized = image.pixels.withUnsafeBytes {
            png_image_write_to_memory(&png, nil, &size, 0, $0.baseAddress, stride, nil)
        }
        guard sized != 0, size > 0 else { throw failure(&png, "png_image_write_to_memory") }
        var out = [UInt8](repeating: 0, count: size)
        let written = out.withUnsafeMutableBytes { outBytes in
            image.pixels.withUnsafeBytes {
                png_image_write_to_memory(&png, outBytes.baseAddress, &size, 0, $0.baseAddress, stride, nil)
            }
        }
        guard written != 0 else { throw failure(&png, "png_image_write_to_memory") }
        out.removeSubrange(size...)
        return out
    }

    /// Decodes any PNG libpng reads, converted to 8-bit RGBA with straight alpha.
    public static func decode(_ bytes: [UInt8]) throws(PNGError) -> RGBAImage {
        var png = makeImage()
        let begun = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&png, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw failure(&png, "png_image_begin_read_from_memory") }
        png.format = formatRGBA
        let width = Int(png.width), height = Int(png.height)
        guard width > 0, height > 0, width * height <= 1 << 28 else {
            png_image_free(&png)
            throw PNGError("unreasonable size \(width)×\(height)")
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let finished = pixels.withUnsafeMutableBytes {
            png_image_finish_read(&png, nil, $0.baseAddress, Int32(width * 4), nil)
        }
        guard finished != 0 else { throw failure(&png, "png_image_finish_read") }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// Reads and decodes the PNG file at `path`.
    public static func read(path: String) throws(PNGError) -> RGBAImage {
        guard let file = fopen(path, "rb") else { throw PNGError("cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        return try decode(bytes)
    }

    /// Encodes `image` and writes it to `path`, replacing any file there.
    public static func write(_ image: RGBAImage, path: String) throws(PNGError) {
        let bytes = try encode(image)
        guard let file = fopen(path, "wb") else { throw PNGError("cannot create \(path)") }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file)
        guard written == bytes.count, closed == 0 else { throw PNGError("cannot write \(path)") }
    }

    /// `PNG_FORMAT_RGBA`, a macro built from other macros that Swift does not import.
    private static let formatRGBA = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)

    private static func makeImage() -> png_image {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        return png
    }

    /// libpng's message for a failed call; frees what the failed call held.
    private static func failure(_ png: inout png_image, _ call: String) -> PNGError {
        let message = string(fromMessage: png.message)
        png_image_free(&png)
        return PNGError("\(call) failed: \(message)")
    }

    private static func string<T>(fromMessage tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let length = raw.firstIndex(of: 0) ?? raw.count
            return String(decoding: raw.prefix(length), as: UTF8.self)
        }
    }
}
