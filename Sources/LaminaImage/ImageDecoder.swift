import CLaminaImage
#if canImport(Glibc)
import Glibc
#endif

/// The formats `ImageDecoder` reads, told apart by their first bytes.
public enum ImageFormat: String, Hashable, Sendable, CaseIterable {
    case png, jpeg, webp

    /// The format whose signature `bytes` starts with, or nil.
    public static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageFormat? {
        let head = Array(bytes.prefix(12))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.count >= 12, head[0..<4] == [0x52, 0x49, 0x46, 0x46], head[8..<12] == [0x57, 0x45, 0x42, 0x50] {
            return .webp  // "RIFF" size "WEBP"
        }
        return nil
    }

    /// "PNG", "JPEG", "WebP".
    public var name: String {
        switch self { case .png: "PNG"; case .jpeg: "JPEG"; case .webp: "WebP" }
    }
}

/// Decodes PNG, JPEG and WebP bytes (libpng, libjpeg-turbo, libwebp), or takes raw
/// premultiplied RGBA, into an `Image`: the format is sniffed from the bytes, the encoded size
/// and the header's width and height are checked against `ImageLimits` before the pixels are
/// allocated, and every bad input is an `ImageError` naming the problem — never a crash.
/// Any thread may call these.
public enum ImageDecoder {
    /// Decodes `bytes` (PNG, JPEG or WebP, sniffed) into premultiplied sRGB-encoded RGBA.
    public static func decode(_ bytes: [UInt8], limits: ImageLimits = .standard) throws(ImageError) -> Image {
        guard !bytes.isEmpty else { throw ImageError(.empty, "no bytes") }
        guard bytes.count <= limits.maxBytes else {
            throw ImageError(.tooLarge, "\(bytes.count) bytes (at most \(limits.maxBytes))")
        }
        guard let format = ImageFormat.sniff(bytes) else {
            if bytes.count < 12 { throw ImageError(.empty, "\(bytes.count) bytes are too few to be an image") }
            throw ImageError(.unsupported, "not a PNG, JPEG or WebP image")
        }
        let name = format.name
        typealias Info = (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<lamina_image_result>?) -> lamina_image_status
        typealias Decode = (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?, Int,
                            UnsafeMutablePointer<lamina_image_result>?) -> lamina_image_status
        let (info, decode, premultiplied): (Info, Decode, Bool) = switch format {
        case .png: (lamina_png_info, lamina_png_decode, false)
        case .jpeg: (lamina_jpeg_info, lamina_jpeg_decode, true)  // opaque: premultiplied as it is
        case .webp: (lamina_webp_info, lamina_webp_decode, false)
        }
        var result = lamina_image_result()
        let status = bytes.withUnsafeBufferPointer { info($0.baseAddress, $0.count, &result) }
        try check(status, result, name)
        let width = Int(result.width), height = Int(result.height)
        try limits.check(width: width, height: height, what: "\(name) image")
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let decoded = bytes.withUnsafeBufferPointer { input in
            pixels.withUnsafeMutableBufferPointer { output in
                decode(input.baseAddress, input.count, output.baseAddress, output.count, &result)
            }
        }
        try check(decoded, result, name)
        if !premultiplied { premultiply(&pixels) }
        return Image(width: width, height: height, premultipliedPixels: pixels)
    }

    /// Reads the file at `path` (at most `limits.maxBytes`) and decodes it.
    public static func read(path: String, limits: ImageLimits = .standard) throws(ImageError) -> Image {
        guard let file = fopen(path, "rb") else { throw ImageError(.empty, "cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
            guard bytes.count <= limits.maxBytes else {
                throw ImageError(.tooLarge, "\(path) has more than \(limits.maxBytes) bytes")
            }
        }
        do { return try decode(bytes, limits: limits) } catch {
            throw ImageError(error.kind, "\(path): \(error.message)")
        }
    }

    /// Takes raw premultiplied RGBA8 (`width × height × 4` bytes, rows top first) as it is,
    /// after checking the size and that no color channel exceeds its alpha.
    public static func raw(_ bytes: [UInt8], width: Int, height: Int,
                           limits: ImageLimits = .standard) throws(ImageError) -> Image {
        try limits.check(width: width, height: height, what: "raw RGBA image")
        guard bytes.count == width * height * 4 else {
            let kind: ImageError.Kind = bytes.count < width * height * 4 ? .truncated : .corrupt
            throw ImageError(kind, "raw RGBA image of \(width)×\(height) needs \(width * height * 4) bytes, got \(bytes.count)")
        }
        var i = 0
        while i < bytes.count {
            let a = bytes[i + 3]
            guard bytes[i] <= a, bytes[i + 1] <= a, bytes[i + 2] <= a else {
                throw ImageError(.corrupt, "raw RGBA pixel \(i / 4) is not premultiplied (a color channel above its alpha)")
            }
            i += 4
        }
        return Image(width: width, height: height, premultipliedPixels: bytes)
    }

    /// Straight → premultiplied, rounding to nearest: c × a / 255.
    static func premultiply(_ pixels: inout [UInt8]) {
        pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count {
                let a = UInt32(p[i + 3])
                if a != 255 {
                    p[i] = UInt8((UInt32(p[i]) * a + 127) / 255)
                    p[i + 1] = UInt8((UInt32(p[i + 1]) * a + 127) / 255)
                    p[i + 2] = UInt8((UInt32(p[i + 2]) * a + 127) / 255)
                }
                i += 4
            }
        }
    }

    private static func check(_ status: lamina_image_status, _ result: lamina_image_result, _ name: String) throws(ImageError) {
        guard status != LAMINA_IMAGE_OK else { return }
        let message = withUnsafeBytes(of: result.message) { raw in
            String(decoding: raw.prefix(raw.firstIndex(of: 0) ?? raw.count), as: UTF8.self)
        }
        switch status {
        case LAMINA_IMAGE_TRUNCATED: throw ImageError(.truncated, "\(name) truncated: \(message)")
        case LAMINA_IMAGE_UNSUPPORTED: throw ImageError(.unsupported, "\(name) not supported: \(message)")
        default: throw ImageError(.corrupt, "\(name) corrupt: \(message)")
        }
    }
}
