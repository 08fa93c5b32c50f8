/// How `uploadImage` carries its pixels.
public enum ImageUploadFormat: UInt8, Sendable, Hashable {
    /// PNG, JPEG or WebP file bytes, recognised by their first bytes; width and height are 0.
    case encoded = 0
    /// Premultiplied RGBA8, sRGB-encoded, rows top first: width × height × 4 bytes.
    case rawRGBA = 1
}

extension Request {
    /// Image names are 1…`maxImageName` bytes of UTF-8.
    public static let maxImageName = 200

    func encodeImageBody(_ w: inout ByteWriter) {
        switch self {
        case .uploadImage(let name, let format, let width, let height, let data):
            w.string(name); w.u8(format.rawValue); w.u32(width); w.u32(height); w.blob(data)
        case .releaseImage(let name), .openImageFile(let name): w.string(name)
        default: preconditionFailure("not an image request")
        }
    }

    static func decodeImageBody(opcode: UInt16, _ r: inout ByteReader) throws(WireError) -> Request {
        if opcode == 0x39 { return .releaseImage(name: try r.string("image name")) }
        if opcode == 0x44 { return .openImageFile(name: try r.string("image name")) }
        let name = try r.string("image name")
        let raw = try r.u8("image format")
        guard let format = ImageUploadFormat(rawValue: raw) else { throw .malformed("unknown image format \(raw)") }
        let width = try r.u32("width"), height = try r.u32("height")
        return .uploadImage(name: name, format: format, width: width, height: height, data: try r.blob("image data"))
    }
}
