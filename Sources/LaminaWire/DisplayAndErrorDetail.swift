// DISPLAY and an error event's detail fields (docs/protocol.md 1.0), and what a request names.

/// The display a client draws on: its canvas in points, the points-to-pixels scale and the
/// refresh rate (`welcome`, `displayChanged`).
public struct DisplayInfo: Hashable, Sendable {
    public var width: UInt32
    public var height: UInt32
    public var scale: Double
    /// Frames per second.
    public var refreshRate: Double

    public init(width: UInt32, height: UInt32, scale: Double, refreshRate: Double) {
        self.width = width; self.height = height; self.scale = scale; self.refreshRate = refreshRate
    }

    func encode(_ w: inout ByteWriter) { w.u32(width); w.u32(height); w.f64(scale); w.f64(refreshRate) }

    static func decode(_ r: inout ByteReader) throws(WireError) -> DisplayInfo {
        DisplayInfo(width: try r.u32("width"), height: try r.u32("height"), scale: try r.f64("scale"),
                    refreshRate: try r.f64("refresh rate"))
    }
}

/// What an error event says about the request that failed, as fields: its id and opcode (for
/// a rejected commit, the staged request that failed; otherwise the request answered), the
/// layer it names and its key path or animation key (0 and "" when it names none).
public struct ErrorDetail: Hashable, Sendable {
    public var request: UInt32
    public var opcode: UInt16
    public var layer: UInt32
    /// The key path of a `setProperty` or `getPresentation`, the key of an `addAnimation` or
    /// `removeAnimation`; empty otherwise.
    public var key: String

    public init(request: UInt32, opcode: UInt16, layer: UInt32 = 0, key: String = "") {
        self.request = request; self.opcode = opcode; self.layer = layer; self.key = key
    }
}

extension Request {
    /// The layer and the key path (or animation key) a request names, for error details.
    public var subject: (layer: UInt32, key: String) {
        switch self {
        case .createLayer(let id, _), .deleteLayer(let id), .removeFromSuperlayer(let id), .removeAllAnimations(let id),
             .setTransitions(let id, _), .transition(let id, _):
            (id, "")
        case .setProperty(let id, let k, _), .getPresentation(let id, let k): (id, k)
        case .addAnimation(let id, let k, _), .removeAnimation(let id, let k): (id, k)
        case .addSublayer(_, let child), .insertSublayer(_, let child, _), .match(_, let child): (child, "")
        case .uploadImage(let name, _, _, _, _), .releaseImage(let name), .openImageFile(let name),
             .createTiledImage(let name, _, _): (0, name)
        case .provideTile(let t): (0, t.name)
        case .attachBuffer(let layer, _, _): (layer, "")
        default: (0, "")
        }
    }
}
