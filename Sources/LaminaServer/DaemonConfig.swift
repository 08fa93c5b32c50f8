import Foundation
import LaminaTree
import LaminaExpression
import LaminaImage
import LaminaGeometry
import LaminaWire

/// The daemon's settings: `config/laminad.json` holds every default; flags override it.
public struct DaemonConfig: Sendable, Equatable {
    /// Socket path; nil means the default (`SocketPath.default`).
    public var socket: String? = nil
    public var headless = true
    public var width = 1280
    public var height = 720
    public var scale = 1.0
    public var fps = 120.0
    public var clock = "realtime"
    public var background = Color.black
    public var maxMessageSize = 1 << 20
    public var maxLayersPerClient = 100_000
    public var maxClients = 64
    public var maxPendingOperations = 100_000
    /// Bytes of output that may wait for one client (replies and events it has not read);
    /// one more and the client is disconnected (docs/protocol.md, Limits).
    public var maxQueuedOutput = 64 << 20
    /// How deep layers may nest (a client's top-level layers are at depth 1), at most
    /// `maxDepthLimit`: drawing and hit testing recurse once per level (64 MiB thread stacks).
    public var maxDepth = LayerTree.defaultMaxDepth
    /// Bytes of decoded images (width × height × 4) one client may hold: uploaded and not
    /// released, or released and still shown (docs/protocol.md, Images).
    public var maxImageBytesPerClient = 256 << 20
    public static let maxDepthLimit = 2048
    /// Limits on path templates and expression animations, checked at commit and while
    /// evaluating (keys `maxExpressionSourceLength`, `maxExpressionTokens`,
    /// `maxExpressionNesting`, `maxLoopIterations`, `maxStepsPerEvaluation`, `maxPathElements`).
    public var expressionLimits = ExpressionLimits.default
    /// Steps all templates and expressions together may spend in one frame; once spent, the
    /// rest keep their previous output that frame (key `maxProgramStepsPerFrame`).
    public var maxProgramStepsPerFrame = LayerTree.defaultProgramStepsPerFrame
    /// Bytes of decoded tiles tiled layers keep in memory (key `tileCacheBytes`; LaminaImage's
    /// `TileStore`).
    public var tileCacheBytes = TileStore.defaultBudget
    /// Shared-memory surfaces read by the GPU straight from the client's pages where the device
    /// imports host memory (key `surfaceZeroCopy`; false, or `LAMINA_SURFACE_COPY=1`: copied).
    public var surfaceZeroCopy = true
    /// Of those, buffers whose stride and offset fit the device's linear images are sampled in
    /// place — no copy at all (key `surfaceInPlace`; false, or `LAMINA_SURFACE_IN_PLACE=0`:
    /// copied by the GPU).
    public var surfaceInPlace = true
    /// The automatic raster cache (key `automaticRasterCache`; `FrameDriver.rasterizesAutomatically`):
    /// off by default — on lavapipe it saved no GPU time and cost each frame a full build
    /// (docs/performance.md, "The automatic raster cache").
    public var automaticRasterCache = false
    /// The automatic raster cache for masked and filtered subtrees (key `effectRasterCache`;
    /// `FrameDriver.rasterizesEffects`): on by default — a subtree with masks or filters that
    /// only moves or fades is composited from the cache instead of drawing its offscreen
    /// passes every frame (docs/performance.md, "Masked subtrees from the raster cache").
    public var effectRasterCache = true

    public init() {}

    /// Why a configuration could not be read.
    public struct ConfigError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Reads a JSON config file. Unknown keys and ill-typed values are errors naming the key.
    public static func load(path: String) throws -> DaemonConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(message: "cannot read config file \(path)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ConfigError(message: "\(path): not a JSON object")
        }
        var c = DaemonConfig()
        func number(_ key: String, _ v: Any) throws -> Double {
            guard let n = v as? NSNumber, !isJSONBool(v) else { throw ConfigError(message: "\(path): \(key): must be a number") }
            return n.doubleValue
        }
        func isJSONBool(_ v: Any) -> Bool { DaemonConfig.isJSONBool(v) }
        func positiveInt(_ key: String, _ v: Any) throws -> Int {
            let d = try number(key, v)
            guard d >= 1, d == d.rounded(), d < 1e12 else { throw ConfigError(message: "\(path): \(key): must be a positive integer") }
            return Int(d)
        }
        for (key, value) in object {
            switch key {
            case "socket":
                if value is NSNull { c.socket = nil } else if let s = value as? String { c.socket = s }
                else { throw ConfigError(message: "\(path): socket: must be a string or null") }
            case "headless":
                guard isJSONBool(value), let b = value as? Bool else { throw ConfigError(message: "\(path): headless: must be true or false") }
                c.headless = b
            case "size":
                guard let s = value as? String, let (w, h) = parseSize(s) else {
                    throw ConfigError(message: "\(path): size: must be \"WxH\"")
                }
                c.width = w; c.height = h
            case "scale":
                c.scale = try number(key, value)
                guard c.scale > 0, c.scale <= 8 else { throw ConfigError(message: "\(path): scale: must be in (0, 8]") }
            case "fps":
                c.fps = try number(key, value)
                guard c.fps > 0, c.fps <= 1000 else { throw ConfigError(message: "\(path): fps: must be in (0, 1000]") }
            case "clock":
                guard let s = value as? String, s == "realtime" || s == "manual" else {
                    throw ConfigError(message: "\(path): clock: must be \"realtime\" or \"manual\"")
                }
                c.clock = s
            case "background":
                guard let s = value as? String, let color = Color(hex: s) else {
                    throw ConfigError(message: "\(path): background: must be a color like \"#000000\"")
                }
                c.background = color
            case "maxMessageSize": c.maxMessageSize = try positiveInt(key, value)
            case "maxLayersPerClient": c.maxLayersPerClient = try positiveInt(key, value)
            case "maxClients": c.maxClients = try positiveInt(key, value)
            case "maxPendingOperations": c.maxPendingOperations = try positiveInt(key, value)
            case "maxQueuedOutput": c.maxQueuedOutput = try positiveInt(key, value)
            case "maxImageBytesPerClient": c.maxImageBytesPerClient = try positiveInt(key, value)
            case "maxDepth":
                c.maxDepth = try positiveInt(key, value)
                guard c.maxDepth <= maxDepthLimit else {
                    throw ConfigError(message: "\(path): maxDepth: must be at most \(maxDepthLimit)")
                }
            case "maxExpressionSourceLength": c.expressionLimits.maxSourceLength = try positiveInt(key, value)
            case "maxExpressionTokens": c.expressionLimits.maxTokens = try positiveInt(key, value)
            case "maxExpressionNesting":
                c.expressionLimits.maxNestingDepth = try positiveInt(key, value)
                guard c.expressionLimits.maxNestingDepth <= maxExpressionNestingLimit else {
                    throw ConfigError(message: "\(path): maxExpressionNesting: must be at most \(maxExpressionNestingLimit)")
                }
            case "maxLoopIterations": c.expressionLimits.maxLoopIterations = try positiveInt(key, value)
            case "maxStepsPerEvaluation": c.expressionLimits.maxSteps = try positiveInt(key, value)
            case "maxPathElements": c.expressionLimits.maxPathElements = try positiveInt(key, value)
            case "maxProgramStepsPerFrame": c.maxProgramStepsPerFrame = try positiveInt(key, value)
            case "tileCacheBytes": c.tileCacheBytes = try positiveInt(key, value)
            case "automaticRasterCache":
                guard isJSONBool(value), let b = value as? Bool else { throw ConfigError(message: "\(path): automaticRasterCache: must be true or false") }
                c.automaticRasterCache = b
            case "effectRasterCache":
                guard isJSONBool(value), let b = value as? Bool else { throw ConfigError(message: "\(path): effectRasterCache: must be true or false") }
                c.effectRasterCache = b
            case "surfaceZeroCopy":
                guard isJSONBool(value), let b = value as? Bool else { throw ConfigError(message: "\(path): surfaceZeroCopy: must be true or false") }
                c.surfaceZeroCopy = b
            case "surfaceInPlace":
                guard isJSONBool(value), let b = value as? Bool else { throw ConfigError(message: "\(path): surfaceInPlace: must be true or false") }
                c.surfaceInPlace = b
            default: throw ConfigError(message: "\(path): unknown setting '\(key)'")
            }
        }
        guard c.maxProgramStepsPerFrame >= c.expressionLimits.maxSteps else {
            throw ConfigError(message: "\(path): maxProgramStepsPerFrame: must be at least maxStepsPerEvaluation "
                              + "(\(c.expressionLimits.maxSteps)), or a long template could never finish")
        }
        return c
    }

    /// The most `maxExpressionNesting` may be: the parser and compiler recurse once per level.
    public static let maxExpressionNestingLimit = 256

    /// The class JSONSerialization uses for `true`/`false` (on Linux a JSON number also casts
    /// to Bool, so `is Bool` cannot tell them apart).
    private static let jsonBoolType: AnyClass = type(of: (try! JSONSerialization.jsonObject(
        with: Data("true".utf8), options: .fragmentsAllowed)) as AnyObject)

    static func isJSONBool(_ v: Any) -> Bool { type(of: v as AnyObject) == jsonBoolType }

    /// Parses "WxH" with both in 1…16384.
    public static func parseSize(_ s: String) -> (Int, Int)? {
        let parts = s.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
              (1...16384).contains(w), (1...16384).contains(h) else { return nil }
        return (w, h)
    }
}

/// Where the socket lives by default.
public enum SocketPath {
    /// `$XDG_RUNTIME_DIR/lamina-0`, or `/tmp/lamina-<uid>/lamina-0` when that variable is unset.
    public static var `default`: String { Protocol.defaultSocketPath }
}
