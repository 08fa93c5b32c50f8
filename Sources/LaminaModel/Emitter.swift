import LaminaGeometry

/// `CAEmitterLayer.emitterShape`: where new particles start (centred on `emitterPosition`,
/// sized by `emitterSize` and `emitterDepth`).
public enum EmitterShape: String, Hashable, Sendable, CaseIterable {
    case point, line, rectangle, cuboid, circle, sphere
}

/// `CAEmitterLayer.emitterMode`: which part of the shape particles start on.
public enum EmitterMode: String, Hashable, Sendable, CaseIterable {
    case points, outline, surface, volume
}

/// `CAEmitterLayer.renderMode`: the order particles are drawn in, or additive compositing.
public enum EmitterRenderMode: String, Hashable, Sendable, CaseIterable {
    case unordered, oldestFirst, oldestLast, backToFront, additive
}

/// One `CAEmitterCell`: a kind of particle an emitter layer (or, nested, each particle of
/// its parent cell) emits. Defaults are CAEmitterCell's: every number 0 except `scale` 1 and
/// `speed` 1, `color` opaque white, `enabled` true, `contentsRect` the unit square. Ranges are
/// ± uniform: a particle's value is `value + range × u`, u uniform in [−1, 1).
public struct EmitterCell: Hashable, Sendable {
    public var name: String = ""
    public var enabled = true
    /// An image's name (a scene's `images`, a client's upload); nil: a 1-point white square.
    public var contents: String? = nil
    /// The part of the image drawn, in its unit square.
    public var contentsRect = Rect(0, 0, 1, 1)
    public var minificationFilter: ContentsFilter = .linear
    public var magnificationFilter: ContentsFilter = .linear
    /// Particles per second (× the layer's `birthRate`).
    public var birthRate = 0.0
    /// Seconds each particle lives (× the layer's `lifetime`).
    public var lifetime = 0.0
    public var lifetimeRange = 0.0
    /// Points per second (× the layer's `velocity`).
    public var velocity = 0.0
    public var velocityRange = 0.0
    /// Points per second² along each axis.
    public var xAcceleration = 0.0
    public var yAcceleration = 0.0
    public var zAcceleration = 0.0
    /// Radians: the direction out of the xy plane (towards +z).
    public var emissionLatitude = 0.0
    /// Radians: the direction in the xy plane, from +x towards +y.
    public var emissionLongitude = 0.0
    /// Radians: ± added to the longitude and the latitude.
    public var emissionRange = 0.0
    /// Radians per second (× the layer's `spin`).
    public var spin = 0.0
    public var spinRange = 0.0
    /// Size factor of the contents (× the layer's `scale`).
    public var scale = 1.0
    public var scaleRange = 0.0
    /// Added to the scale per second of age.
    public var scaleSpeed = 0.0
    /// Multiplies the contents (sRGB-encoded, straight alpha).
    public var color = Color.white
    public var redRange = 0.0, greenRange = 0.0, blueRange = 0.0, alphaRange = 0.0
    /// Added to each channel per second of age (the result clamped to 0…1).
    public var redSpeed = 0.0, greenSpeed = 0.0, blueSpeed = 0.0, alphaSpeed = 0.0
    /// CAMediaTiming on the cell: its time is `(parent's time − beginTime) × speed +
    /// timeOffset` (the parent: the layer's local time, or a particle's age for a nested
    /// cell); it emits while that time is in 0…`duration` (0: without end).
    public var beginTime = 0.0
    public var duration = 0.0
    public var speed = 1.0
    public var timeOffset = 0.0
    /// Cells each particle of this cell emits from where it is.
    public var emitterCells: [EmitterCell] = []

    public init(name: String = "") { self.name = name }

    /// The number fields by their key, in the scene format's order (one list for the scene
    /// reader, the scene writer and the finiteness check).
    nonisolated(unsafe) public static let numberFields: [(key: String, path: WritableKeyPath<EmitterCell, Double>)] = [
        ("birthRate", \.birthRate), ("lifetime", \.lifetime), ("lifetimeRange", \.lifetimeRange),
        ("velocity", \.velocity), ("velocityRange", \.velocityRange), ("xAcceleration", \.xAcceleration),
        ("yAcceleration", \.yAcceleration), ("zAcceleration", \.zAcceleration),
        ("emissionLatitude", \.emissionLatitude), ("emissionLongitude", \.emissionLongitude),
        ("emissionRange", \.emissionRange), ("spin", \.spin), ("spinRange", \.spinRange), ("scale", \.scale),
        ("scaleRange", \.scaleRange), ("scaleSpeed", \.scaleSpeed), ("redRange", \.redRange),
        ("greenRange", \.greenRange), ("blueRange", \.blueRange), ("alphaRange", \.alphaRange),
        ("redSpeed", \.redSpeed), ("greenSpeed", \.greenSpeed), ("blueSpeed", \.blueSpeed),
        ("alphaSpeed", \.alphaSpeed), ("beginTime", \.beginTime), ("duration", \.duration), ("speed", \.speed),
        ("timeOffset", \.timeOffset),
    ]

    /// Fields that must be ≥ 0.
    static let nonNegativeFields: Set<String> = ["birthRate", "lifetime", "duration"]

    /// Limits on what one emitter may ask for, so that a hostile client cannot exhaust the
    /// daemon's memory or the render thread's time (docs/protocol.md, Emitter layers).
    public enum Limits {
        /// Cells in one emitter, nested ones included.
        public static let maxCells = 64
        /// Levels of cells: an emitter's cells, their `emitterCells`, and theirs.
        public static let maxDepth = 3
        /// A cell's `birthRate` (particles per second), at most.
        public static let maxBirthRate = 100_000.0
        /// A cell's `lifetime` + `lifetimeRange` (seconds), at most.
        public static let maxLifetime = 3_600.0
        /// Bytes of UTF-8 in a cell's `name` or `contents`.
        public static let maxNameBytes = 256
    }

    /// Why this cell (at `path`, e.g. "emitterCells[0]") is not valid, nil when it is.
    public func problem(at path: String) -> String? {
        for (key, kp) in Self.numberFields {
            let v = self[keyPath: kp]
            guard v.isFinite else { return "\(path).\(key) must be finite" }
            if Self.nonNegativeFields.contains(key), v < 0 { return "\(path).\(key) must be ≥ 0" }
        }
        guard color.isFinite, contentsRect.origin.isFinite, contentsRect.size.width.isFinite,
              contentsRect.size.height.isFinite else { return "\(path): color and contentsRect must be finite" }
        guard birthRate <= Limits.maxBirthRate else {
            return "\(path).birthRate must be at most \(Int(Limits.maxBirthRate)) particles per second"
        }
        guard lifetime + abs(lifetimeRange) <= Limits.maxLifetime else {
            return "\(path): lifetime + lifetimeRange must be at most \(Int(Limits.maxLifetime)) seconds"
        }
        guard name.utf8.count <= Limits.maxNameBytes, (contents?.utf8.count ?? 0) <= Limits.maxNameBytes else {
            return "\(path): name and contents have at most \(Limits.maxNameBytes) bytes"
        }
        return nil
    }

    /// Why `cells` (a layer's `emitterCells`) is not valid — an invalid cell, more than
    /// `Limits.maxCells` cells or `Limits.maxDepth` levels — nil when it is.
    public static func problem(_ cells: [EmitterCell]) -> String? {
        var count = 0
        func check(_ list: [EmitterCell], _ path: String, depth: Int) -> String? {
            guard list.isEmpty || depth <= Limits.maxDepth else {
                return "\(path): cells nest at most \(Limits.maxDepth) levels deep"
            }
            for (i, c) in list.enumerated() {
                count += 1
                guard count <= Limits.maxCells else { return "an emitter has at most \(Limits.maxCells) cells (nested ones included)" }
                let at = "\(path)[\(i)]"
                if let p = c.problem(at: at) { return p }
                if let p = check(c.emitterCells, at + ".emitterCells", depth: depth + 1) { return p }
            }
            return nil
        }
        return check(cells, "emitterCells", depth: 1)
    }

    /// Whether every number of the cells is finite.
    public static func allFinite(_ cells: [EmitterCell]) -> Bool {
        cells.allSatisfy { c in
            numberFields.allSatisfy { c[keyPath: $0.path].isFinite } && c.color.isFinite && c.contentsRect.origin.isFinite
                && c.contentsRect.size.width.isFinite && c.contentsRect.size.height.isFinite && allFinite(c.emitterCells)
        }
    }
}
