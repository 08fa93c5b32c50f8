import LaminaAnimation
import LaminaGeometry
import LaminaModel

/// Collects the operations that build or change a page (ids assigned here, from `nextID`).
/// With Reduce Motion on, `motion(_:)` replaces a movement by a 150 ms cross-fade: the layer
/// shows its final state, fading in (`GalleryBuilder.fadeDuration`).
public struct GalleryBuilder {
    public static let fadeDuration = 0.15
    public private(set) var operations: [LayerChange] = []
    public private(set) var created: [UInt32] = []
    public let canvas: Size
    public let reduceMotion: Bool
    var nextID: UInt32

    init(canvas: Size, reduceMotion: Bool, nextID: UInt32) {
        self.canvas = canvas; self.reduceMotion = reduceMotion; self.nextID = nextID
    }

    /// A new layer under `parent` (0: the client's container) with these properties.
    mutating func layer(_ kind: LayerKind = .layer, in parent: UInt32, _ properties: [(String, PropertyValue)]) -> UInt32 {
        let id = detached(properties, kind: kind)
        operations.append(.addSublayer(parent: parent, child: id))
        return id
    }

    /// A new layer in no superlayer (a mask, or one a later click adds).
    mutating func detached(_ properties: [(String, PropertyValue)], kind: LayerKind = .layer) -> UInt32 {
        let id = nextID
        nextID += 1
        created.append(id)
        operations.append(.create(id, kind))
        for (key, value) in properties { operations.append(.set(id, keyPath: key, value: value)) }
        return id
    }

    /// Takes `count` ids from `nextID` on as layers of the page (created by operations made
    /// elsewhere: the Lottie page's scene).
    mutating func adopt(count: Int) {
        for _ in 0..<count {
            created.append(nextID)
            nextID += 1
        }
    }

    /// A frame-like placement: bounds at the origin of this size, centred on `center`.
    static func box(_ w: Double, _ h: Double, at center: Point) -> [(String, PropertyValue)] {
        [("bounds", .rect(Rect(0, 0, w, h))), ("position", .point(center))]
    }

    mutating func set(_ id: UInt32, _ key: String, _ value: PropertyValue) {
        operations.append(.set(id, keyPath: key, value: value))
    }

    mutating func add(_ animation: Animation, to id: UInt32, key: String) {
        operations.append(.addAnimation(id, key: key, animation: animation))
    }

    mutating func append(_ op: LayerChange) { operations.append(op) }

    /// A movement: added as is, or under Reduce Motion a cross-fade of the layer into its
    /// (final) model state.
    mutating func motion(_ animation: Animation, to id: UInt32, key: String) {
        if reduceMotion { fadeIn(id) } else { add(animation, to: id, key: key) }
    }

    /// The Reduce Motion cross-fade: opacity 0 → 1 over 150 ms.
    mutating func fadeIn(_ id: UInt32) {
        add(.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1),
                                  timing: AnimationTiming(duration: Self.fadeDuration))), to: id, key: "fade")
    }

    /// Implicit animations for the changes that follow (a transaction's settings); under
    /// Reduce Motion the changes are instant (`disableActions`) and `layers` cross-fade.
    mutating func implicitly(duration: Double, _ curve: TimingFunction, layers: [UInt32]) {
        if reduceMotion {
            operations.append(.setTransaction(TransactionSettings(duration: 0, timingFunction: .linear, disableActions: true)))
            for id in layers { fadeIn(id) }
        } else {
            operations.append(.setTransaction(TransactionSettings(duration: duration, timingFunction: curve)))
        }
    }

    /// A text layer (drawn once text reaches the GPU; until then it takes its place).
    mutating func text(_ string: String, size: Double, in parent: UInt32, at center: Point, width: Double,
                       color: Color = Color(0.95, 0.95, 0.97)) -> UInt32 {
        layer(.text, in: parent, Self.box(width, size * 1.4, at: center) + [
            ("string", .string(string)), ("fontSize", .number(size)), ("foregroundColor", .color(color)),
            ("alignmentMode", .string("center")),
        ])
    }
}

extension Color {
    /// `#RRGGBB`.
    init(hex6: UInt32) {
        self.init(Double((hex6 >> 16) & 0xFF) / 255, Double((hex6 >> 8) & 0xFF) / 255, Double(hex6 & 0xFF) / 255)
    }
}
