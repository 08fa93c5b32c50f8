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
        case .createTiledImage(let name, let width, let height): w.string(name); w.u32(width); w.u32(height)
        case .provideTile(let t):
            w.string(t.name); w.u32(UInt32(bitPattern: t.level)); w.u32(t.column); w.u32(t.row)
            w.u32(t.tileWidth); w.u32(t.tileHeight); w.u32(t.buffer)
        default: preconditionFailure("not an image request")
        }
    }

    static func decodeImageBody(opcode: UInt16, _ r: inout ByteReader) throws(WireError) -> Request {
        if opcode == 0x39 { return .releaseImage(name: try r.string("image name")) }
        if opcode == 0x44 { return .openImageFile(name: try r.string("image name")) }
        if opcode == 0x45 {
            return .createTiledImage(name: try r.string("image name"), width: try r.u32("width"), height: try r.u32("height"))
        }
        if opcode == 0x46 {
            let name = try r.string("image name"), level = Int32(bitPattern: try r.u32("level"))
            let column = try r.u32("column"), row = try r.u32("row")
            let tw = try r.u32("tile width"), th = try r.u32("tile height")
            return .provideTile(TileAnswer(name: name, level: level, column: column, row: row, tileWidth: tw, tileHeight: th,
                                           buffer: try r.u32("buffer id")))
        }
        let name = try r.string("image name")
        let raw = try r.u8("image format")
        guard let format = ImageUploadFormat(rawValue: raw) else { throw .malformed("unknown image format \(raw)") }
        let width = try r.u32("width"), height = try r.u32("height")
        return .uploadImage(name: name, format: format, width: width, height: height, data: try r.blob("image data"))
    }
}

/// One tile of a client-drawn tiled image (`createTiledImage`), as `tileWanted` and
/// `tileCancelled` name it: the image's name, the level of detail (ℓ ≥ 0: the image scaled by
/// 2^−ℓ; ℓ < 0: magnified 2^−ℓ times), the tile's column and row in that level's grid of
/// `tileWidth` × `tileHeight` tiles (the tiled layer's `tileSize`), and the level's pixels the
/// tile holds: x, y, width, height (cut at the level's right and bottom edges).
public struct TileRequest: Sendable, Hashable {
    public var name: String
    public var level: Int32
    public var column: UInt32, row: UInt32
    public var tileWidth: UInt32, tileHeight: UInt32
    public var x: UInt32, y: UInt32, width: UInt32, height: UInt32

    public init(name: String, level: Int32, column: UInt32, row: UInt32, tileWidth: UInt32, tileHeight: UInt32,
                x: UInt32, y: UInt32, width: UInt32, height: UInt32) {
        self.name = name; self.level = level; self.column = column; self.row = row
        self.tileWidth = tileWidth; self.tileHeight = tileHeight
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    func encode(_ w: inout ByteWriter) {
        w.string(name); w.u32(UInt32(bitPattern: level)); w.u32(column); w.u32(row); w.u32(tileWidth); w.u32(tileHeight)
        w.u32(x); w.u32(y); w.u32(width); w.u32(height)
    }

    static func decode(_ r: inout ByteReader) throws(WireError) -> TileRequest {
        let name = try r.string("image name"), level = Int32(bitPattern: try r.u32("level"))
        let column = try r.u32("column"), row = try r.u32("row"), tw = try r.u32("tile width"), th = try r.u32("tile height")
        return TileRequest(name: name, level: level, column: column, row: row, tileWidth: tw, tileHeight: th,
                           x: try r.u32("x"), y: try r.u32("y"), width: try r.u32("width"), height: try r.u32("height"))
    }

    /// The answer that provides this tile from `buffer`.
    public func answer(buffer: UInt32) -> TileAnswer {
        TileAnswer(name: name, level: level, column: column, row: row, tileWidth: tileWidth, tileHeight: tileHeight,
                   buffer: buffer)
    }
}

/// `provideTile`: the tile (as `TileRequest` names it) and the shared-memory buffer holding
/// its pixels, exactly the tile's width × height.
public struct TileAnswer: Sendable, Hashable {
    public var name: String
    public var level: Int32
    public var column: UInt32, row: UInt32
    public var tileWidth: UInt32, tileHeight: UInt32
    public var buffer: UInt32

    public init(name: String, level: Int32, column: UInt32, row: UInt32, tileWidth: UInt32, tileHeight: UInt32,
                buffer: UInt32) {
        self.name = name; self.level = level; self.column = column; self.row = row
        self.tileWidth = tileWidth; self.tileHeight = tileHeight; self.buffer = buffer
    }
}
