// Over ~500 lines, on purpose: the Request and Event enums and their one encode/decode switch
// each stay in one file, so that an opcode's body is written once, next to the enum case and its
// document row (image bodies are in Message+Images.swift, input events in InputEvent.swift).
import LaminaAnimation
import LaminaGeometry
import LaminaModel
#if canImport(Glibc)
import Glibc
#endif

/// Protocol constants (docs/protocol.md).
public enum Protocol {
    /// "LMNA" as a little-endian u32.
    public static let magic: UInt32 = 0x414E_4D4C
    public static let versionMajor: UInt16 = 1
    public static let versionMinor: UInt16 = 0
    /// Bytes in a message header: length u32, opcode u16, flags u16, request id u32.
    public static let headerSize = 12
    /// The default socket: `$XDG_RUNTIME_DIR/lamina-0`, or `/tmp/lamina-<uid>/lamina-0` when
    /// that variable is unset. The daemon and the client library both use it.
    public static var defaultSocketPath: String {
        if let raw = getenv("XDG_RUNTIME_DIR"), raw.pointee != 0 { return String(cString: raw) + "/lamina-0" }
        return "/tmp/lamina-\(getuid())/lamina-0"
    }
    /// Default limit on one message's total size.
    public static let defaultMaxMessageSize = 1 << 20
}

/// Which clock the daemon runs.
public enum ClockMode: UInt8, Sendable {
    case realtime = 0
    case manual = 1
}

/// A message from a client to the daemon.
public enum Request: Hashable, Sendable {
    case hello(magic: UInt32, major: UInt16, minor: UInt16, clientName: String)
    case ping(token: UInt64)
    case createLayer(id: UInt32, kind: LayerKind)
    case deleteLayer(id: UInt32)
    case setProperty(id: UInt32, keyPath: String, value: PropertyValue)
    case addSublayer(parent: UInt32, child: UInt32)
    case insertSublayer(parent: UInt32, child: UInt32, index: UInt32)
    case removeFromSuperlayer(id: UInt32)
    /// Transaction settings for the layer requests that follow until the commit.
    case setTransaction(TransactionSettings)
    /// An explicit animation, as docs/scene-format.md's ANIMATION JSON.
    case addAnimation(id: UInt32, key: String, json: String)
    case removeAnimation(id: UInt32, key: String)
    case removeAllAnimations(id: UInt32)
    /// Declares a transaction completion (see docs/protocol.md).
    case completion(id: UInt32)
    /// A layer's insertion and removal transitions for this commit, as TransitionJSON text.
    case setTransitions(id: UInt32, json: String)
    /// Matched geometry from one layer to another in this commit.
    case match(from: UInt32, to: UInt32)
    /// A CATransition on a layer in this commit (staged, though its opcode is 0x42).
    case transition(id: UInt32, ContentTransition)
    case commit
    /// Capture the frame at compositor time `time` (manual clock), or the current frame when nil.
    case capture(time: Double?)
    case advanceClock(seconds: Double)
    case getTree
    case getStats
    /// The presentation value of one of this client's layers at a key path, now.
    case getPresentation(id: UInt32, keyPath: String)
    /// The topmost layer under a canvas point in the presentation tree, now.
    case hitTest(x: Double, y: Double)
    /// Sets the Reduce Motion setting (tools and tests; the viewer sets it from the desktop).
    case setReduceMotion(Bool)
    /// Uploads an image under a client-chosen name (docs/protocol.md, Images).
    case uploadImage(name: String, format: ImageUploadFormat, width: UInt32, height: UInt32, data: [UInt8])
    /// Releases the client's image of this name.
    case releaseImage(name: String)
    /// Names a PNG file for tiled layers, its descriptor sent with the message (SCM_RIGHTS):
    /// read region by region, never whole (docs/protocol.md, Images).
    case openImageFile(name: String)
    /// Names a `width` × `height` image for tiled layers whose tiles the client draws on
    /// request (`tileWanted`), answering each with `provideTile` (docs/protocol.md, Images).
    case createTiledImage(name: String, width: UInt32, height: UInt32)
    /// The pixels of one tile of a `createTiledImage` image, from a shared-memory buffer of
    /// exactly the tile's size (copied at once). Answered by `bufferReleased(buffer)`.
    case provideTile(TileAnswer)
    /// The size `text` needs in `font` at `fontSize` (a text layer's attributes), wrapped at
    /// `width` (nil: one line per paragraph). Answered by `textMeasured`.
    case measureText(text: StyledText, font: String, fontSize: Double, width: Double?)
    /// Starts recording a frame trace of at most `maxFrames` frames (0: the most,
    /// `Request.maxTraceFrames`). Answered by `traceStarted`.
    case startTrace(maxFrames: UInt32)
    /// Stops this client's trace recording. Answered by `trace`.
    case stopTrace
    /// The compositor's clock now (the time a commit sent now would get). Answered by `time`.
    case getTime
    /// Surfaces (Message+Surfaces.swift, docs/protocol.md): a pool from the memfd sent with the
    /// message (SCM_RIGHTS), its end, a buffer carved from a pool, its end.
    case createPool(id: UInt32, size: UInt64)
    case destroyPool(id: UInt32)
    case createBuffer(id: UInt32, pool: UInt32, offset: UInt64, width: UInt32, height: UInt32, stride: UInt32,
                      format: BufferFormat)
    case destroyBuffer(id: UInt32)
    /// A buffer over a client's GPU image: its memory exported as an opaque fd
    /// (`VK_KHR_external_memory_fd`, sent with the message, SCM_RIGHTS) and the image's
    /// description (docs/protocol.md, GPU buffers). Answered by `bufferCreated`.
    case createGpuBuffer(GpuBufferDescription)
    /// Staged: shows a buffer (0: none) in a surface layer, with the damaged rectangles.
    case attachBuffer(layer: UInt32, buffer: UInt32, damage: [DamageRect])
    /// Staged: `frameDone(id)` once the frame showing the commit is made.
    case frameCallback(id: UInt32)
    /// Staged: `presented(id)` about the commit's content.
    case presentationFeedback(id: UInt32)

    /// The most frames one trace keeps (`startTrace`).
    public static let maxTraceFrames: UInt32 = 10_000

    public var opcode: UInt16 {
        switch self {
        case .hello: 0x01
        case .ping: 0x02
        case .createLayer: 0x10
        case .deleteLayer: 0x11
        case .setProperty: 0x12
        case .addSublayer: 0x13
        case .insertSublayer: 0x14
        case .removeFromSuperlayer: 0x15
        case .setTransaction: 0x16
        case .addAnimation: 0x17
        case .removeAnimation: 0x18
        case .removeAllAnimations: 0x19
        case .completion: 0x1A
        case .setTransitions: 0x1E
        case .match: 0x1F
        case .transition: 0x42
        case .commit: 0x20
        case .capture: 0x30
        case .advanceClock: 0x31
        case .getTree: 0x32
        case .getStats: 0x33
        case .getPresentation: 0x34
        case .hitTest: 0x35
        case .setReduceMotion: 0x36
        case .uploadImage: 0x38
        case .releaseImage: 0x39
        case .openImageFile: 0x44
        case .createTiledImage: 0x45
        case .provideTile: 0x46
        case .measureText: 0x3C
        case .startTrace: 0x3A
        case .stopTrace: 0x3B
        case .getTime: 0x3D
        case .attachBuffer: 0x1B
        case .frameCallback: 0x1C
        case .presentationFeedback: 0x1D
        case .createPool: 0x3E
        case .destroyPool: 0x3F
        case .createBuffer: 0x40
        case .destroyBuffer: 0x41
        case .createGpuBuffer: 0x43
        }
    }

    /// The request's name for error messages.
    public static func name(ofOpcode op: UInt16) -> String {
        switch op {
        case 0x01: "hello"; case 0x02: "ping"; case 0x10: "createLayer"; case 0x11: "deleteLayer"
        case 0x12: "setProperty"; case 0x13: "addSublayer"; case 0x14: "insertSublayer"
        case 0x15: "removeFromSuperlayer"; case 0x20: "commit"; case 0x30: "capture"
        case 0x31: "advanceClock"; case 0x32: "getTree"; case 0x33: "getStats"
        case 0x16: "setTransaction"; case 0x17: "addAnimation"; case 0x18: "removeAnimation"
        case 0x19: "removeAllAnimations"; case 0x1A: "completion"; case 0x1E: "setTransitions"; case 0x1F: "match"; case 0x34: "getPresentation"; case 0x35: "hitTest"
        case 0x36: "setReduceMotion"; case 0x38: "uploadImage"; case 0x39: "releaseImage"; case 0x3C: "measureText"
        case 0x3A: "startTrace"; case 0x3B: "stopTrace"; case 0x3D: "getTime"
        case 0x1B: "attachBuffer"; case 0x1C: "frameCallback"; case 0x1D: "presentationFeedback"
        case 0x3E: "createPool"; case 0x3F: "destroyPool"; case 0x40: "createBuffer"; case 0x41: "destroyBuffer"
        case 0x42: "transition"; case 0x43: "createGpuBuffer"; case 0x44: "openImageFile"
        case 0x45: "createTiledImage"; case 0x46: "provideTile"
        default: "opcode 0x\(String(op, radix: 16))"
        }
    }

    /// True for the opcodes that stage a layer operation (0x10…0x1F, and `transition`'s 0x42).
    public static func isLayerOpcode(_ op: UInt16) -> Bool { (0x10...0x1F).contains(op) || op == 0x42 }

    /// The layer operation this request stages, if it is one.
    public var operation: LayerChange? {
        switch self {
        case .createLayer(let id, let kind): .create(id, kind)
        case .deleteLayer(let id): .delete(id)
        case .setProperty(let id, let k, let v): .set(id, keyPath: k, value: v)
        case .addSublayer(let p, let c): .addSublayer(parent: p, child: c)
        case .insertSublayer(let p, let c, let i): .insertSublayer(parent: p, child: c, index: i)
        case .removeFromSuperlayer(let id): .removeFromSuperlayer(id)
        case .setTransaction(let s): .setTransaction(s)
        case .removeAnimation(let id, let key): .removeAnimation(id, key: key)
        case .removeAllAnimations(let id): .removeAllAnimations(id)
        case .completion(let id): .completion(id)
        case .match(let from, let to): .match(from: from, to: to)
        case .transition(let id, let t): .transition(id, t)
        default: nil
        }
    }

    func encodeBody(_ w: inout ByteWriter) {
        switch self {
        case .hello(let magic, let major, let minor, let name):
            w.u32(magic); w.u16(major); w.u16(minor); w.string(name)
        case .ping(let token): w.u64(token)
        case .createLayer(let id, let kind): w.u32(id); w.u8(kind.rawValue)
        case .deleteLayer(let id): w.u32(id)
        case .setProperty(let id, let keyPath, let value): w.u32(id); w.string(keyPath); value.encode(&w)
        case .addSublayer(let p, let c): w.u32(p); w.u32(c)
        case .insertSublayer(let p, let c, let i): w.u32(p); w.u32(c); w.u32(i)
        case .removeFromSuperlayer(let id): w.u32(id)
        case .setTransaction(let t):
            w.f64(t.duration); t.timingFunction.encode(&w); w.u8(t.disableActions ? 1 : 0)
            w.u32(UInt32(t.completionIDs.count)); for c in t.completionIDs { w.u32(c) }
        case .addAnimation(let id, let key, let json): w.u32(id); w.string(key); w.string(json)
        case .removeAnimation(let id, let key): w.u32(id); w.string(key)
        case .removeAllAnimations(let id): w.u32(id)
        case .completion(let id): w.u32(id)
        case .setTransitions(let id, let json): w.u32(id); w.string(json)
        case .match(let from, let to): w.u32(from); w.u32(to)
        case .transition(let id, let t):
            w.u32(id)
            w.u8(UInt8(ContentTransition.Kind.allCases.firstIndex(of: t.type)!))
            w.u8(UInt8(ContentTransition.Subtype.allCases.firstIndex(of: t.subtype)!))
            w.f64(t.duration); t.timingFunction.encode(&w)
        case .getPresentation(let id, let keyPath): w.u32(id); w.string(keyPath)
        case .hitTest(let x, let y): w.f64(x); w.f64(y)
        case .setReduceMotion(let on): w.u8(on ? 1 : 0)
        case .measureText(let text, let font, let size, let width):
            w.string(font); w.f64(size); w.f64(width ?? .nan)
            (text.isPlain ? PropertyValue.string(text.string) : .text(text)).encode(&w)
        case .commit, .getTree, .getStats, .stopTrace, .getTime: break
        case .startTrace(let n): w.u32(n)
        case .capture(let time): w.f64(time ?? .nan)
        case .advanceClock(let s): w.f64(s)
        case .uploadImage, .releaseImage, .openImageFile, .createTiledImage, .provideTile: encodeImageBody(&w)
        case .createPool, .destroyPool, .createBuffer, .destroyBuffer, .attachBuffer, .frameCallback, .presentationFeedback,
             .createGpuBuffer:
            encodeSurfaceBody(&w)
        }
    }

    static func decodeBody(opcode: UInt16, _ r: inout ByteReader) throws(WireError) -> Request {
        let request: Request
        switch opcode {
        case 0x01:
            request = .hello(magic: try r.u32("magic"), major: try r.u16("major"), minor: try r.u16("minor"),
                             clientName: try r.string("client name"))
        case 0x02: request = .ping(token: try r.u64("token"))
        case 0x10:
            let id = try r.u32("layer id")
            let k = try r.u8("kind")
            guard let kind = LayerKind(rawValue: k) else { throw .malformed("unknown layer kind \(k)") }
            request = .createLayer(id: id, kind: kind)
        case 0x11: request = .deleteLayer(id: try r.u32("layer id"))
        case 0x12:
            request = .setProperty(id: try r.u32("layer id"), keyPath: try r.string("key path"),
                                   value: try PropertyValue.decode(&r))
        case 0x13: request = .addSublayer(parent: try r.u32("parent id"), child: try r.u32("child id"))
        case 0x14:
            request = .insertSublayer(parent: try r.u32("parent id"), child: try r.u32("child id"), index: try r.u32("index"))
        case 0x15: request = .removeFromSuperlayer(id: try r.u32("layer id"))
        case 0x16:
            let d = try r.f64("duration")
            guard d.isFinite, d >= 0 else { throw .malformed("transaction duration must be finite and ≥ 0") }
            let f = try TimingFunction.decode(&r)
            let b = try r.u8("disableActions")
            guard b <= 1 else { throw .malformed("disableActions must be 0 or 1") }
            let n = Int(try r.u32("completion count"))
            guard n <= r.remaining / 4 else { throw .truncated("\(n) completion ids, \(r.remaining) bytes left") }
            var ids: [UInt32] = []
            for _ in 0..<n { ids.append(try r.u32("completion id")) }
            request = .setTransaction(TransactionSettings(duration: d, timingFunction: f, disableActions: b == 1, completionIDs: ids))
        case 0x17:
            request = .addAnimation(id: try r.u32("layer id"), key: try r.string("key"), json: try r.string("animation"))
        case 0x18: request = .removeAnimation(id: try r.u32("layer id"), key: try r.string("key"))
        case 0x19: request = .removeAllAnimations(id: try r.u32("layer id"))
        case 0x1A: request = .completion(id: try r.u32("completion id"))
        case 0x1F: request = .match(from: try r.u32("from layer id"), to: try r.u32("to layer id"))
        case 0x1E: request = .setTransitions(id: try r.u32("layer id"), json: try r.string("transitions"))
        case 0x42:
            let id = try r.u32("layer id")
            let type = Int(try r.u8("transition type")), subtype = Int(try r.u8("transition subtype"))
            let kinds = ContentTransition.Kind.allCases, subtypes = ContentTransition.Subtype.allCases
            guard type < kinds.count else { throw .malformed("unknown transition type \(type) (0 fade, 1 moveIn, 2 push, 3 reveal)") }
            guard subtype < subtypes.count else {
                throw .malformed("unknown transition subtype \(subtype) (0 fromLeft, 1 fromRight, 2 fromTop, 3 fromBottom)")
            }
            let d = try r.f64("duration")
            guard d.isFinite, d >= 0 else { throw .malformed("transition duration must be finite and ≥ 0") }
            let f = try TimingFunction.decode(&r)
            request = .transition(id: id, ContentTransition(type: kinds[type], subtype: subtypes[subtype], duration: d,
                                                            timingFunction: f))
        case 0x34: request = .getPresentation(id: try r.u32("layer id"), keyPath: try r.string("key path"))
        case 0x35:
            let x = try r.f64("x"), y = try r.f64("y")
            guard x.isFinite, y.isFinite else { throw .malformed("hit point must be finite") }
            request = .hitTest(x: x, y: y)
        case 0x36:
            let b = try r.u8("reduceMotion")
            guard b <= 1 else { throw .malformed("reduceMotion must be 0 or 1 (got \(b))") }
            request = .setReduceMotion(b == 1)
        case 0x3C:
            let font = try r.string("font"), size = try r.f64("font size"), width = try r.f64("width")
            guard size.isFinite, size >= 0 else { throw .malformed("font size must be finite and ≥ 0") }
            guard width.isNaN || (width.isFinite && width >= 0) else { throw .malformed("width must be ≥ 0 or NaN") }
            let text: StyledText
            switch try PropertyValue.decode(&r) {
            case .string(let s): text = StyledText(s)
            case .text(let t) where t.isValid: text = t
            case .text: throw .malformed("a run's font size must be finite and ≥ 0 and its color finite")
            case let other: throw .malformed("the text must be a string or styled text (got \(other.typeName))")
            }
            request = .measureText(text: text, font: font, fontSize: size, width: width.isNaN ? nil : width)
        case 0x20: request = .commit
        case 0x30:
            let t = try r.f64("time")
            guard t.isNaN || (t.isFinite && t >= 0) else { throw .malformed("capture time must be ≥ 0 or NaN") }
            request = .capture(time: t.isNaN ? nil : t)
        case 0x31:
            let s = try r.f64("seconds")
            guard s.isFinite, s >= 0 else { throw .malformed("advance seconds must be finite and ≥ 0") }
            request = .advanceClock(seconds: s)
        case 0x32: request = .getTree
        case 0x33: request = .getStats
        case 0x3A:
            let n = try r.u32("maxFrames")
            guard n <= Request.maxTraceFrames else { throw .malformed("startTrace maxFrames must be ≤ \(Request.maxTraceFrames) (0: that many)") }
            request = .startTrace(maxFrames: n)
        case 0x3B: request = .stopTrace
        case 0x3D: request = .getTime
        case 0x38, 0x39, 0x44...0x46: request = try decodeImageBody(opcode: opcode, &r)
        case 0x1B...0x1D, 0x3E...0x41, 0x43: request = try decodeSurfaceBody(opcode: opcode, &r)
        default: throw .unknownOpcode(opcode)
        }
        try r.expectEnd(Request.name(ofOpcode: opcode))
        return request
    }
}

/// A message from the daemon to a client.
public enum Event: Hashable, Sendable {
    case welcome(major: UInt16, minor: UInt16, clientID: UInt32, display: DisplayInfo, clock: ClockMode,
                 time: Double, reduceMotion: Bool)
    case pong(token: UInt64)
    /// `opcode` is the opcode of the request this error answers (the header's request id
    /// names it); `detail` names the request that failed (for a rejected commit, a staged one).
    case error(opcode: UInt16, code: ErrorCode, message: String, detail: ErrorDetail)
    case committed(sequence: UInt64)
    case captured(time: Double, width: UInt32, height: UInt32, png: [UInt8])
    case clockAdvanced(time: Double)
    case tree(json: String)
    case stats(json: String)
    /// Answers `getPresentation`.
    case presentation(value: PropertyValue)
    /// Answers `hitTest`: this client's layer, another client's layer (id 0), or nothing.
    case hitResult(HitResult, layer: UInt32)
    case animationStarted(layer: UInt32, key: String)
    case animationStopped(layer: UInt32, key: String, finished: Bool)
    case transactionCompleted(id: UInt32)
    /// The display's size, scale or refresh rate changed (request id 0).
    case displayChanged(DisplayInfo)
    /// The Reduce Motion setting: the answer to `setReduceMotion` (its request id), and to
    /// every client when it changes (request id 0).
    case reduceMotionChanged(Bool)
    /// Answers `uploadImage`: the image's name and size in pixels.
    case imageUploaded(name: String, width: UInt32, height: UInt32)
    /// Answers `releaseImage`.
    case imageReleased(name: String)
    /// Answers `measureText`: the widest line's width and the lines' height, in points.
    case textMeasured(width: Double, height: Double)
    /// Answers `startTrace`: the most frames the trace keeps.
    case traceStarted(maxFrames: UInt32)
    /// Answers `stopTrace`: the recording as Chrome trace-event JSON.
    case trace(json: String)
    /// Answers `getTime`: the compositor's clock, in seconds.
    case time(Double)
    /// A pointer or key event for one of the client's layers, or a pointer event's path
    /// (0x90…0x96, request id 0).
    case input(InputEvent)
    /// Surfaces (Message+Surfaces.swift): the answers to `createPool`, `destroyPool`,
    /// `createBuffer`, `destroyBuffer`; and, with request id 0, a buffer the daemon no longer
    /// reads, a frame callback (the frame's time and the next frame's target time), a
    /// presentation feedback (its frame's time, the refresh interval and the frame's number,
    /// or discarded: never shown).
    case poolCreated(id: UInt32)
    case poolDestroyed(id: UInt32)
    case bufferCreated(id: UInt32)
    case bufferDestroyed(id: UInt32)
    case bufferReleased(id: UInt32)
    case frameDone(id: UInt32, time: Double, targetTime: Double)
    case presented(id: UInt32, discarded: Bool, time: Double, refresh: Double, frame: UInt64)
    /// Tiles of a `createTiledImage` image (request id 0): one is wanted (it came into view and
    /// is not in the daemon's tile cache; answer with `provideTile`), or a wanted one is no
    /// longer needed (out of view before it came; an answer is still taken).
    case tileWanted(TileRequest)
    case tileCancelled(TileRequest)

    /// An error event for request `request` (opcode `opcode`) that failed itself.
    public static func error(opcode: UInt16, code: ErrorCode, message: String, request: UInt32,
                             layer: UInt32 = 0, key: String = "") -> Event {
        .error(opcode: opcode, code: code, message: message,
               detail: ErrorDetail(request: request, opcode: opcode, layer: layer, key: key))
    }

    public enum HitResult: UInt8, Sendable { case none = 0, ownLayer = 1, otherClient = 2 }

    public var opcode: UInt16 {
        switch self {
        case .welcome: 0x81
        case .pong: 0x82
        case .error: 0x83
        case .committed: 0x84
        case .captured: 0x85
        case .clockAdvanced: 0x86
        case .tree: 0x87
        case .stats: 0x88
        case .presentation: 0x89
        case .hitResult: 0x8A
        case .animationStarted: 0x8B
        case .animationStopped: 0x8C
        case .transactionCompleted: 0x8D
        case .displayChanged: 0x8E
        case .reduceMotionChanged: 0x8F
        case .imageUploaded: 0xA1
        case .imageReleased: 0xA2
        case .textMeasured: 0xAC
        case .traceStarted: 0xA3
        case .trace: 0xA4
        case .time: 0xAD
        case .input(let e): e.opcode
        case .poolCreated: 0xA5
        case .poolDestroyed: 0xA6
        case .bufferCreated: 0xA7
        case .bufferDestroyed: 0xA8
        case .bufferReleased: 0xA9
        case .frameDone: 0xAA
        case .presented: 0xAB
        case .tileWanted: 0xAE
        case .tileCancelled: 0xAF
        }
    }

    func encodeBody(_ w: inout ByteWriter) {
        switch self {
        case .welcome(let major, let minor, let id, let display, let clock, let time, let reduceMotion):
            w.u16(major); w.u16(minor); w.u32(id); display.encode(&w)
            w.u8(clock.rawValue); w.f64(time); w.u8(reduceMotion ? 1 : 0)
        case .pong(let t): w.u64(t)
        case .error(let op, let code, let message, let d):
            w.u16(op); w.u16(code.rawValue); w.u32(d.request); w.u16(d.opcode); w.u32(d.layer); w.string(d.key)
            w.string(message)
        case .committed(let s): w.u64(s)
        case .captured(let time, let width, let height, let png):
            w.f64(time); w.u32(width); w.u32(height); w.blob(png)
        case .clockAdvanced(let t), .time(let t): w.f64(t)
        case .tree(let j), .stats(let j), .trace(let j): w.string(j)
        case .traceStarted(let n): w.u32(n)
        case .presentation(let v): v.encode(&w)
        case .hitResult(let h, let layer): w.u8(h.rawValue); w.u32(layer)
        case .animationStarted(let layer, let key): w.u32(layer); w.string(key)
        case .animationStopped(let layer, let key, let finished): w.u32(layer); w.string(key); w.u8(finished ? 1 : 0)
        case .transactionCompleted(let id): w.u32(id)
        case .displayChanged(let d): d.encode(&w)
        case .reduceMotionChanged(let on): w.u8(on ? 1 : 0)
        case .imageUploaded(let name, let width, let height): w.string(name); w.u32(width); w.u32(height)
        case .imageReleased(let name): w.string(name)
        case .textMeasured(let width, let height): w.f64(width); w.f64(height)
        case .input(let e): e.encodeBody(&w)
        case .tileWanted(let t), .tileCancelled(let t): t.encode(&w)
        case .poolCreated, .poolDestroyed, .bufferCreated, .bufferDestroyed, .bufferReleased, .frameDone, .presented:
            encodeSurfaceBody(&w)
        }
    }

    static func decodeBody(opcode: UInt16, _ r: inout ByteReader) throws(WireError) -> Event {
        let event: Event
        switch opcode {
        case 0x81:
            let major = try r.u16(), minor = try r.u16(), id = try r.u32()
            let display = try DisplayInfo.decode(&r)
            guard let clock = ClockMode(rawValue: try r.u8("clock")) else { throw .malformed("unknown clock mode") }
            let time = try r.f64()
            event = .welcome(major: major, minor: minor, clientID: id, display: display, clock: clock, time: time,
                             reduceMotion: try r.bool("reduceMotion"))
        case 0x82: event = .pong(token: try r.u64())
        case 0x83:
            let op = try r.u16("opcode")
            let raw = try r.u16("code")
            let detail = ErrorDetail(request: try r.u32("failed request"), opcode: try r.u16("failed opcode"),
                                     layer: try r.u32("layer"), key: try r.string("key"))
            event = .error(opcode: op, code: ErrorCode(rawValue: raw) ?? .internalError, message: try r.string("message"),
                           detail: detail)
        case 0x84: event = .committed(sequence: try r.u64())
        case 0x85:
            event = .captured(time: try r.f64(), width: try r.u32(), height: try r.u32(), png: try r.blob("png"))
        case 0x86: event = .clockAdvanced(time: try r.f64())
        case 0x87: event = .tree(json: try r.string("json"))
        case 0x88: event = .stats(json: try r.string("json"))
        case 0x89: event = .presentation(value: try PropertyValue.decode(&r))
        case 0x8A:
            guard let h = Event.HitResult(rawValue: try r.u8("hit")) else { throw .malformed("unknown hit result") }
            event = .hitResult(h, layer: try r.u32("layer"))
        case 0x8B: event = .animationStarted(layer: try r.u32("layer"), key: try r.string("key"))
        case 0x8C:
            let layer = try r.u32("layer"), key = try r.string("key"), f = try r.u8("finished")
            guard f <= 1 else { throw .malformed("finished must be 0 or 1") }
            event = .animationStopped(layer: layer, key: key, finished: f == 1)
        case 0x8D: event = .transactionCompleted(id: try r.u32("completion id"))
        case 0x8E: event = .displayChanged(try DisplayInfo.decode(&r))
        case 0x8F: event = .reduceMotionChanged(try r.bool("reduceMotion"))
        case 0xA1: event = .imageUploaded(name: try r.string("image name"), width: try r.u32("width"), height: try r.u32("height"))
        case 0xA2: event = .imageReleased(name: try r.string("image name"))
        case 0xAC: event = .textMeasured(width: try r.f64("width"), height: try r.f64("height"))
        case 0xA3: event = .traceStarted(maxFrames: try r.u32("maxFrames"))
        case 0xA4: event = .trace(json: try r.string("json"))
        case 0xAD: event = .time(try r.f64("time"))
        case 0x90...0x96: event = .input(try InputEvent.decodeBody(opcode: opcode, &r))
        case 0xA5...0xAB: event = try decodeSurfaceBody(opcode: opcode, &r)
        case 0xAE: event = .tileWanted(try TileRequest.decode(&r))
        case 0xAF: event = .tileCancelled(try TileRequest.decode(&r))
        default: throw .unknownOpcode(opcode)
        }
        try r.expectEnd("event 0x\(String(opcode, radix: 16))")
        return event
    }
}

extension PropertyValue {
    /// Value type tags on the wire.
    enum Tag: UInt8 {
        case noColor = 0, number = 1, point = 2, size = 3, rect = 4, color = 5, transform = 6
        case bool = 7, string = 8, numbers = 9, noPath = 10, path = 11, colors = 12
        /// A path template's source (a string), for `path` and `shadowPath`.
        case template = 13
        /// A text layer's styled runs.
        case text = 14
        /// A filter list.
        case filters = 15
        /// An emitter cell list: its scene-format JSON as a string.
        case emitterCells = 16
    }

    /// Path element kinds on the wire.
    enum PathOp: UInt8 { case move = 0, line = 1, quad = 2, cubic = 3, close = 4 }

    func encode(_ w: inout ByteWriter) {
        switch self {
        case .number(let v): w.u8(Tag.number.rawValue); w.f64(v)
        case .point(let p): w.u8(Tag.point.rawValue); w.point(p)
        case .size(let s): w.u8(Tag.size.rawValue); w.f64(s.width); w.f64(s.height)
        case .rect(let r):
            w.u8(Tag.rect.rawValue); w.f64(r.origin.x); w.f64(r.origin.y); w.f64(r.size.width); w.f64(r.size.height)
        case .color(nil): w.u8(Tag.noColor.rawValue)
        case .color(let c?): w.u8(Tag.color.rawValue); w.f64(c.red); w.f64(c.green); w.f64(c.blue); w.f64(c.alpha)
        case .transform(let t): w.u8(Tag.transform.rawValue); for v in t.rowMajor { w.f64(v) }
        case .bool(let b): w.u8(Tag.bool.rawValue); w.u8(b ? 1 : 0)
        case .string(let s): w.u8(Tag.string.rawValue); w.string(s)
        case .numbers(let v): w.u8(Tag.numbers.rawValue); w.u32(UInt32(v.count)); for x in v { w.f64(x) }
        case .path(nil): w.u8(Tag.noPath.rawValue)
        case .path(let p?):
            w.u8(Tag.path.rawValue); w.u32(UInt32(p.elements.count))
            for e in p.elements {
                switch e {
                case .move(let a): w.u8(PathOp.move.rawValue); w.point(a)
                case .line(let a): w.u8(PathOp.line.rawValue); w.point(a)
                case .quad(let a, let b): w.u8(PathOp.quad.rawValue); w.point(a); w.point(b)
                case .cubic(let a, let b, let c): w.u8(PathOp.cubic.rawValue); w.point(a); w.point(b); w.point(c)
                case .close: w.u8(PathOp.close.rawValue)
                }
            }
        case .colors(let v):
            w.u8(Tag.colors.rawValue); w.u32(UInt32(v.count))
            for c in v { w.f64(c.red); w.f64(c.green); w.f64(c.blue); w.f64(c.alpha) }
        case .template(let source): w.u8(Tag.template.rawValue); w.string(source)
        case .filters(let list):
            // u32 count; per filter: name ("" for none), u8 kind (`LayerFilter.Kind.allCases`
            // order), then radius (gaussianBlur), 20 numbers (colorMatrix) or amount.
            w.u8(Tag.filters.rawValue); w.u32(UInt32(list.count))
            for f in list {
                w.string(f.name ?? "")
                w.u8(UInt8(LayerFilter.Kind.allCases.firstIndex(of: f.kind)!))
                switch f.kind {
                case .gaussianBlur: w.f64(f.radius)
                case .colorMatrix: for x in f.matrix { w.f64(x) }
                default: w.f64(f.amount)
                }
            }
        case .emitterCells(let cells):
            // The scene format's list of CELL objects, as JSON text (a string).
            w.u8(Tag.emitterCells.rawValue); w.string(SceneValues.json(cells).text)
        case .text(let t):
            // u32 run count; per run: string, u8 flags (1 font, 2 fontSize, 4 color), then those.
            w.u8(Tag.text.rawValue); w.u32(UInt32(t.runs.count))
            for run in t.runs {
                w.string(run.text)
                w.u8((run.font != nil ? 1 : 0) | (run.fontSize != nil ? 2 : 0) | (run.foregroundColor != nil ? 4 : 0))
                if let f = run.font { w.string(f) }
                if let s = run.fontSize { w.f64(s) }
                if let c = run.foregroundColor { w.f64(c.red); w.f64(c.green); w.f64(c.blue); w.f64(c.alpha) }
            }
        }
    }

    static func decode(_ r: inout ByteReader) throws(WireError) -> PropertyValue {
        let raw = try r.u8("value tag")
        guard let tag = Tag(rawValue: raw) else { throw .malformed("unknown value tag \(raw)") }
        switch tag {
        case .noColor: return .color(nil)
        case .number: return .number(try r.f64("number"))
        case .point: return .point(try r.point("point"))
        case .size: return .size(Size(try r.f64("size"), try r.f64("size")))
        case .rect: return .rect(Rect(try r.f64("rect"), try r.f64("rect"), try r.f64("rect"), try r.f64("rect")))
        case .color: return .color(Color(try r.f64("color"), try r.f64("color"), try r.f64("color"), try r.f64("color")))
        case .transform:
            var v = [Double](); v.reserveCapacity(16)
            for _ in 0..<16 { v.append(try r.f64("transform")) }
            return .transform(Transform3D(rowMajor: v)!)
        case .bool:
            let b = try r.u8("bool")
            guard b <= 1 else { throw .malformed("bool must be 0 or 1") }
            return .bool(b == 1)
        case .string: return .string(try r.string("string"))
        case .numbers:
            let n = Int(try r.u32("number count"))
            guard n <= r.remaining / 8 else { throw .truncated("number list of \(n) entries, \(r.remaining) bytes left") }
            var v = [Double](); v.reserveCapacity(n)
            for _ in 0..<n { v.append(try r.f64("numbers")) }
            return .numbers(v)
        case .noPath: return .path(nil)
        case .path:
            let n = Int(try r.u32("path element count"))
            guard n <= r.remaining else { throw .truncated("path of \(n) elements, \(r.remaining) bytes left") }
            var elements: [Path.Element] = []
            elements.reserveCapacity(n)
            for _ in 0..<n {
                let raw = try r.u8("path op")
                guard let op = PathOp(rawValue: raw) else { throw .malformed("unknown path op \(raw)") }
                switch op {
                case .move: elements.append(.move(try r.point("path")))
                case .line: elements.append(.line(try r.point("path")))
                case .quad: elements.append(.quad(try r.point("path"), try r.point("path")))
                case .cubic: elements.append(.cubic(try r.point("path"), try r.point("path"), try r.point("path")))
                case .close: elements.append(.close)
                }
            }
            return .path(Path(elements))
        case .colors:
            let n = Int(try r.u32("color count"))
            guard n <= r.remaining / 32 else { throw .truncated("color list of \(n) entries, \(r.remaining) bytes left") }
            var v: [Color] = []
            for _ in 0..<n { v.append(Color(try r.f64("color"), try r.f64("color"), try r.f64("color"), try r.f64("color"))) }
            return .colors(v)
        case .template: return .template(try r.string("template"))
        case .filters:
            let n = Int(try r.u32("filter count"))
            guard n <= r.remaining / 13 else { throw .truncated("filter list of \(n) entries, \(r.remaining) bytes left") }
            var list: [LayerFilter] = []
            for _ in 0..<n {
                let name = try r.string("filter name")
                let raw = Int(try r.u8("filter kind"))
                guard raw < LayerFilter.Kind.allCases.count else { throw .malformed("unknown filter kind \(raw)") }
                var f = LayerFilter(name: name.isEmpty ? nil : name, kind: LayerFilter.Kind.allCases[raw])
                switch f.kind {
                case .gaussianBlur: f.radius = try r.f64("filter radius")
                case .colorMatrix:
                    var m: [Double] = []
                    for _ in 0..<20 { m.append(try r.f64("filter matrix")) }
                    f.matrix = m
                default: f.amount = try r.f64("filter amount")
                }
                list.append(f)
            }
            return .filters(list)
        case .emitterCells:
            let text = try r.string("emitter cells")
            do throws(SceneError) {
                return .emitterCells(try SceneValues.uncheckedEmitterCells(try JSON.parse(text)))
            } catch {
                throw .malformed("emitter cells: \(error)")
            }
        case .text:
            let n = Int(try r.u32("run count"))
            guard n <= r.remaining / 5 else { throw .truncated("styled text of \(n) runs, \(r.remaining) bytes left") }
            var runs: [StyledText.Run] = []
            for _ in 0..<n {
                var run = StyledText.Run(try r.string("run text"))
                let flags = try r.u8("run flags")
                guard flags <= 7 else { throw .malformed("unknown run flags \(flags)") }
                if flags & 1 != 0 { run.font = try r.string("run font") }
                if flags & 2 != 0 { run.fontSize = try r.f64("run font size") }
                if flags & 4 != 0 { run.foregroundColor = Color(try r.f64("color"), try r.f64("color"), try r.f64("color"), try r.f64("color")) }
                runs.append(run)
            }
            return .text(StyledText(runs: runs))
        }
    }
}


extension TimingFunction {
    /// Wire tags: 0 linear; 1 cubic Bézier (4 × f64); 2 steps (u32 count, u8 position:
    /// 0 start, 1 end, 2 none, 3 both); 3 spring (f64 mass, stiffness, damping, initialVelocity).
    func encode(_ w: inout ByteWriter) {
        switch self {
        case .linear: w.u8(0)
        case let .cubicBezier(a, b, c, d): w.u8(1); w.f64(a); w.f64(b); w.f64(c); w.f64(d)
        case let .steps(n, p):
            w.u8(2); w.u32(UInt32(clamping: n))
            w.u8(UInt8(TimingFunction.StepPosition.allCases.firstIndex(of: p)!))
        case .spring(let s): w.u8(3); w.f64(s.mass); w.f64(s.stiffness); w.f64(s.damping); w.f64(s.initialVelocity)
        }
    }

    static func decode(_ r: inout ByteReader) throws(WireError) -> TimingFunction {
        switch try r.u8("timing function") {
        case 0: return .linear
        case 1:
            let a = try r.f64(), b = try r.f64(), c = try r.f64(), d = try r.f64()
            guard [a, b, c, d].allSatisfy(\.isFinite), (0...1).contains(a), (0...1).contains(c) else {
                throw .malformed("cubic Bézier needs finite control points with x1, x2 in 0…1")
            }
            return .cubicBezier(a, b, c, d)
        case 2:
            let n = try r.u32("steps"), p = try r.u8("step position")
            guard n >= 1, p < 4 else { throw .malformed("steps need a count ≥ 1 and a position 0…3") }
            let position = TimingFunction.StepPosition.allCases[Int(p)]
            guard position != .none || n >= 2 else { throw .malformed("steps with position none need a count ≥ 2") }
            return .steps(Int(n), position)
        case 3:
            let s = Spring(mass: try r.f64(), stiffness: try r.f64(), damping: try r.f64(), initialVelocity: try r.f64())
            guard s.isValid else { throw .malformed("spring needs finite fields, mass > 0, stiffness > 0, damping > 0") }
            return .spring(s)
        case let t: throw .malformed("unknown timing function tag \(t)")
        }
    }
}
