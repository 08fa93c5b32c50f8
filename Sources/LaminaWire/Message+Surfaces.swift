import LaminaModel

// Surfaces (docs/protocol.md, Surfaces): shared-memory pools and buffers, surface layers'
// staged requests, and their events.

extension Request {
    /// The most damage rectangles one `attachBuffer` carries.
    public static let maxDamageRects = 256

    /// The staged surface request this is, if it is one.
    public var surfaceOperation: SurfaceOperation? {
        switch self {
        case .attachBuffer(let layer, let buffer, let damage): .attach(layer: layer, buffer: buffer, damage: damage)
        case .frameCallback(let id): .frameCallback(id)
        case .presentationFeedback(let id): .presentationFeedback(id)
        default: nil
        }
    }

    func encodeSurfaceBody(_ w: inout ByteWriter) {
        switch self {
        case .createPool(let id, let size): w.u32(id); w.u64(size)
        case .destroyPool(let id), .destroyBuffer(let id), .frameCallback(let id), .presentationFeedback(let id): w.u32(id)
        case .createBuffer(let id, let pool, let offset, let width, let height, let stride, let format):
            w.u32(id); w.u32(pool); w.u64(offset); w.u32(width); w.u32(height); w.u32(stride); w.u8(format.rawValue)
        case .attachBuffer(let layer, let buffer, let damage):
            w.u32(layer); w.u32(buffer); w.u32(UInt32(damage.count))
            for d in damage { w.u32(UInt32(bitPattern: d.x)); w.u32(UInt32(bitPattern: d.y)); w.u32(d.width); w.u32(d.height) }
        case .createGpuBuffer(let g):
            w.u32(g.id); w.u32(g.width); w.u32(g.height); w.u32(g.format); w.u64(g.size); w.u32(g.memoryType)
            for b in g.deviceUUID { w.u8(b) }
        default: preconditionFailure("not a surface request")
        }
    }

    static func decodeSurfaceBody(opcode: UInt16, _ r: inout ByteReader) throws(WireError) -> Request {
        switch opcode {
        case 0x1B:
            let layer = try r.u32("layer id"), buffer = try r.u32("buffer id"), n = Int(try r.u32("damage count"))
            guard n <= Request.maxDamageRects else { throw .malformed("at most \(Request.maxDamageRects) damage rectangles (got \(n))") }
            guard n <= r.remaining / 16 else { throw .truncated("\(n) damage rectangles, \(r.remaining) bytes left") }
            var damage: [DamageRect] = []
            for _ in 0..<n {
                damage.append(DamageRect(x: Int32(bitPattern: try r.u32("damage x")), y: Int32(bitPattern: try r.u32("damage y")),
                                         width: try r.u32("damage width"), height: try r.u32("damage height")))
            }
            return .attachBuffer(layer: layer, buffer: buffer, damage: damage)
        case 0x1C: return .frameCallback(id: try r.u32("callback id"))
        case 0x1D: return .presentationFeedback(id: try r.u32("feedback id"))
        case 0x3E: return .createPool(id: try r.u32("pool id"), size: try r.u64("pool size"))
        case 0x3F: return .destroyPool(id: try r.u32("pool id"))
        case 0x40:
            let id = try r.u32("buffer id"), pool = try r.u32("pool id"), offset = try r.u64("offset")
            let width = try r.u32("width"), height = try r.u32("height"), stride = try r.u32("stride")
            let raw = try r.u8("format")
            guard let format = BufferFormat(rawValue: raw) else { throw .malformed("unknown buffer format \(raw) (0 BGRA8, 1 RGBA8)") }
            return .createBuffer(id: id, pool: pool, offset: offset, width: width, height: height, stride: stride, format: format)
        case 0x43:
            let id = try r.u32("buffer id"), width = try r.u32("width"), height = try r.u32("height")
            let format = try r.u32("format"), size = try r.u64("size"), memoryType = try r.u32("memory type")
            var uuid: [UInt8] = []
            for _ in 0..<16 { uuid.append(try r.u8("device UUID")) }
            return .createGpuBuffer(GpuBufferDescription(id: id, width: width, height: height, format: format, size: size,
                                                         memoryType: memoryType, deviceUUID: uuid))
        default: return .destroyBuffer(id: try r.u32("buffer id"))
        }
    }
}

/// A client's GPU image as `createGpuBuffer` describes it (docs/protocol.md, GPU buffers): a 2D
/// image of one level and one layer, optimal tiling, made with usage transfer-src, transfer-dst,
/// sampled and color-attachment, no flags, its memory (a whole allocation of `size` bytes of
/// memory type `memoryType`, exported as an opaque fd) on the device whose
/// `VkPhysicalDeviceIDProperties.deviceUUID` is `deviceUUID`.
public struct GpuBufferDescription: Sendable, Hashable {
    public var id: UInt32
    public var width: UInt32
    public var height: UInt32
    /// A `VkFormat` value: 37 (`VK_FORMAT_R8G8B8A8_UNORM`) or 44 (`VK_FORMAT_B8G8R8A8_UNORM`).
    public var format: UInt32
    /// Bytes of the exported allocation.
    public var size: UInt64
    public var memoryType: UInt32
    /// 16 bytes.
    public var deviceUUID: [UInt8]

    public init(id: UInt32, width: UInt32, height: UInt32, format: UInt32, size: UInt64, memoryType: UInt32,
                deviceUUID: [UInt8]) {
        precondition(deviceUUID.count == 16, "a device UUID is 16 bytes")
        self.id = id; self.width = width; self.height = height; self.format = format; self.size = size
        self.memoryType = memoryType; self.deviceUUID = deviceUUID
    }
}

/// A shared-memory buffer's pixel layout: 8 bits a channel, premultiplied, sRGB-encoded.
public enum BufferFormat: UInt8, Sendable, Hashable {
    /// B, G, R, A bytes (cairo's ARGB32 on a little-endian machine).
    case bgra8 = 0
    /// R, G, B, A bytes.
    case rgba8 = 1
}

extension Event {
    func encodeSurfaceBody(_ w: inout ByteWriter) {
        switch self {
        case .poolCreated(let id), .poolDestroyed(let id), .bufferCreated(let id), .bufferDestroyed(let id),
             .bufferReleased(let id):
            w.u32(id)
        case .frameDone(let id, let time, let target):
            w.u32(id); w.f64(time); w.f64(target)
        case .presented(let id, let discarded, let time, let refresh, let frame):
            w.u32(id); w.u8(discarded ? 1 : 0); w.f64(time); w.f64(refresh); w.u64(frame)
        default: preconditionFailure("not a surface event")
        }
    }

    static func decodeSurfaceBody(opcode: UInt16, _ r: inout ByteReader) throws(WireError) -> Event {
        switch opcode {
        case 0xA5: return .poolCreated(id: try r.u32("pool id"))
        case 0xA6: return .poolDestroyed(id: try r.u32("pool id"))
        case 0xA7: return .bufferCreated(id: try r.u32("buffer id"))
        case 0xA8: return .bufferDestroyed(id: try r.u32("buffer id"))
        case 0xA9: return .bufferReleased(id: try r.u32("buffer id"))
        case 0xAA: return .frameDone(id: try r.u32("callback id"), time: try r.f64("time"), targetTime: try r.f64("target time"))
        default:
            let id = try r.u32("feedback id"), d = try r.bool("discarded")
            return .presented(id: id, discarded: d, time: try r.f64("time"), refresh: try r.f64("refresh"),
                              frame: try r.u64("frame"))
        }
    }
}
