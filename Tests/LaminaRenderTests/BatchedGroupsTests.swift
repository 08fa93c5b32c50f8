import Foundation
import Testing
import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaTree
import TestSupport
import LaminaPNG
@testable import LaminaRender
import LaminaModel

/// Offscreen groups batched into shared images (`FramePlanner`'s batches, on by default): many
/// small sibling groups — blurred (different σ, at full and half size, a color filter before or
/// after), masked, translucent, blended (compositingFilter), nested in each other, overlapping
/// each other, partly off the target, inside a rounded clip — drawn from batched plans equal the
/// same lists drawn with every group in passes of its own byte for byte, and damage-limited
/// batched frames equal full redraws byte for byte.
@Suite("Batched offscreen groups")
struct BatchedGroupsTests {
    static let size = 128

    /// A random scene of `count` small layers, each blurred, masked (by one of the detached
    /// layers 501…), translucent with a sublayer, or plain; some nested in an earlier layer,
    /// some inside a rounded masksToBounds layer (2), some reaching past the target's edges.
    static func scene(_ r: inout SeededRandom, count: Int) -> [LayerChange] {
        var ops: [LayerChange] = [.create(1, .layer), .addSublayer(parent: 0, child: 1),
                                  .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 128, 128))),
                                  .set(1, keyPath: "position", value: .point(Point(64, 64))),
                                  .set(1, keyPath: "backgroundColor", value: .color(Color(0.85, 0.9, 0.95))),
                                  .create(2, .layer), .addSublayer(parent: 0, child: 2),
                                  .set(2, keyPath: "bounds", value: .rect(Rect(0, 0, 60, 40))),
                                  .set(2, keyPath: "position", value: .point(Point(90, 100))),
                                  .set(2, keyPath: "cornerRadius", value: .number(9)),
                                  .set(2, keyPath: "masksToBounds", value: .bool(true)),
                                  .set(2, keyPath: "backgroundColor", value: .color(Color(0.3, 0.3, 0.35)))]
        var masks = UInt32(501)
        for id in UInt32(10)..<UInt32(10 + count) {
            let parent: UInt32 = id > 14 && r.below(5) == 0 ? UInt32(r.int(10..<Int(id)))
                : r.below(6) == 0 ? 2 : 0
            ops += [.create(id, .layer), .addSublayer(parent: parent, child: id)]
            let w = r.double(6...22), h = r.double(6...18)
            ops.append(.set(id, keyPath: "bounds", value: .rect(Rect(0, 0, w, h))))
            let span = parent == 0 ? -6.0...134.0 : -4.0...44.0
            ops.append(.set(id, keyPath: "position", value: .point(Point(r.double(span), r.double(span)))))
            ops.append(.set(id, keyPath: "backgroundColor", value: .color(Color(r.double(0...1), r.double(0...1),
                                                                               r.double(0...1), r.below(4) == 0 ? 0.6 : 1))))
            if r.below(3) == 0 { ops.append(.set(id, keyPath: "cornerRadius", value: .number(r.double(0...6)))) }
            if r.below(6) == 0 { ops.append(.set(id, keyPath: "transform", value: .transform(.rotation(r.double(-1...1))))) }
            switch r.below(5) {
            case 0, 1:
                let blur = LayerFilter.gaussianBlur(r.below(6) == 0 ? r.double(6.5...9) : r.double(0.5...4))
                let filters: [LayerFilter] = switch r.below(4) {
                case 0: [blur, LayerFilter(kind: .grayscale, amount: 1)]
                case 1: [LayerFilter(kind: .invert, amount: 1), blur]
                default: [blur]
                }
                ops.append(.set(id, keyPath: "filters", value: .filters(filters)))
            case 2:
                ops += [.create(masks, .layer), .set(masks, keyPath: "bounds", value: .rect(Rect(0, 0, w, h))),
                        .set(masks, keyPath: "position", value: .point(Point(w / 2 + r.double(-3...3), h / 2))),
                        .set(masks, keyPath: "cornerRadius", value: .number(min(w, h) / 2)),
                        .set(masks, keyPath: "backgroundColor", value: .color(Color(0, 0, 0, r.double(0.4...1)))),
                        .set(id, keyPath: "mask", value: .number(Double(masks)))]
                masks += 1
            case 3:
                ops.append(.set(id, keyPath: "opacity", value: .number(r.double(0.3...0.9))))
            default:
                // A blend group (drawn in its parent's pass: a batched group's when nested in one).
                if r.below(2) == 0 {
                    let mode = [BlendMode.multiplyBlendMode, .hueBlendMode, .plusDarker, .screenBlendMode][r.below(4)]
                    ops.append(.set(id, keyPath: "compositingFilter", value: .string(mode.rawValue)))
                }
            }
            if r.below(3) == 0 {
                let sub = id + 1000
                ops += [.create(sub, .layer), .addSublayer(parent: id, child: sub),
                        .set(sub, keyPath: "bounds", value: .rect(Rect(0, 0, w / 2, h / 2))),
                        .set(sub, keyPath: "position", value: .point(Point(w * 0.7, h * 0.7))),
                        .set(sub, keyPath: "backgroundColor", value: .color(Color(1, 1, 1, 0.8)))]
                // Blended into its parent's pass (a batched group's when its parent is batched).
                if r.below(2) == 0 {
                    ops.append(.set(sub, keyPath: "compositingFilter", value: .string(BlendMode.multiplyBlendMode.rawValue)))
                }
            }
        }
        return ops
    }

    static func driver() -> FrameDriver {
        FrameDriver(widthPoints: Double(size), heightPoints: Double(size), scale: 1, background: Color(0.2, 0.2, 0.25),
                    targetFPS: 60)
    }

    /// Blends drawn in a batched pass: a `.blend` step after a `.within` in the same pass.
    static func batchedBlends(_ plan: FramePlan) -> Int {
        plan.passes.reduce(0) { n, pass in
            var within = false, count = 0
            for step in plan.steps[pass.steps] {
                switch step {
                case .within: within = true
                case .blend where within: count += 1
                default: break
                }
            }
            return n + count
        }
    }

    /// Random moves and fades of the scene's layers for frame `frame`.
    static func changes(_ r: inout SeededRandom, count: Int) -> [LayerChange] {
        (0..<4).map { _ in
            let id = UInt32(r.int(10..<(10 + count)))
            return r.below(2) == 0 ? .set(id, keyPath: "position", value: .point(Point(r.double(-6...134), r.double(-6...134))))
                : .set(id, keyPath: "opacity", value: .number(r.double(0.2...1)))
        }
    }

    /// Offscreen groups in a plan's passes: `.region` and `.maskRegion` steps (batched) and
    /// the passes into images.
    static func counts(_ plan: FramePlan) -> (regions: Int, imagePasses: Int) {
        let regions = plan.steps.filter {
            switch $0 { case .region, .maskRegion: true; default: false }
        }.count
        let imagePasses = plan.passes.filter { if case .image = $0.target { true } else { false } }.count
        return (regions, imagePasses)
    }

    /// A client's commits, validated against its model as the daemon does.
    struct Client {
        var model = ModelTree()
        mutating func packet(_ content: Commit.Content) throws -> CommitPacket {
            try model.validate(Commit(client: 1, content: content), at: 0)
        }
        /// The connection and a scene of `count` layers.
        mutating func opening(_ r: inout SeededRandom, count: Int) throws -> [CommitPacket] {
            [try packet(.connect), try packet(.operations(BatchedGroupsTests.scene(&r, count: count)))]
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func batchedFramesEqualUnbatchedOnes(seed: UInt64) throws {
        var r = SeededRandom(seed: seed)
        let count = 60
        var client = Client()
        var driver = Self.driver()
        var pending = try client.opening(&r, count: count)
        let batched = try makeRenderer(width: Self.size, height: Self.size)
        let separate = try makeRenderer(width: Self.size, height: Self.size)
        var blendsInBatches = 0
        for frame in 0..<4 {
            let f = driver.frame(applying: pending, at: Double(frame) * 0.09)
            var whole = f.drawList
            whole.damage = nil
            let list = whole.planned(batches: true), alone = whole.planned(batches: false)
            let (regions, passes) = Self.counts(list.plan)
            let (none, separatePasses) = Self.counts(alone.plan)
            // Batched: many regions, and fewer passes than with passes per group (the 128-pixel
            // target's groups overlap a lot).
            #expect(regions >= 20 && none == 0, "seed \(seed) frame \(frame): \(regions) regions")
            #expect(passes < separatePasses, "seed \(seed) frame \(frame): \(passes) passes, \(separatePasses) apart")
            #expect(list.plan.imageCount <= OffscreenRenderer.maxGroups)
            blendsInBatches += Self.batchedBlends(list.plan)
            try batched.render(list)
            try separate.render(alone)
            let a = RGBAImage(width: Self.size, height: Self.size, pixels: try batched.readPixels())
            let b = RGBAImage(width: Self.size, height: Self.size, pixels: try separate.readPixels())
            // Byte for byte: a member's pixels are its own pass's (damage relies on it: whether a
            // group is batched depends on its neighbours, which may change while it does not).
            let differing = zip(a.pixels, b.pixels).filter { $0 != $1 }.count
            #expect(differing == 0, "seed \(seed) frame \(frame): \(differing) bytes differ")
            pending = [try client.packet(.operations(Self.changes(&r, count: count)))]
        }
        #expect(blendsInBatches > 0, "seed \(seed): no blend drawn in a batched pass")
        #expect(batched.validationMessages.isEmpty, "\(batched.validationMessages)")
    }

    /// The same scenes moving and fading with batches (the default): damage-limited frames equal
    /// full redraws byte for byte — a group's pixels do not depend on whether or with whom it is
    /// batched, which its neighbours' moves change while it stays.
    @Test(arguments: [UInt64(4), 5, 6])
    func batchedDamageLimitedFramesEqualFullRedraws(seed: UInt64) throws {
        var r = SeededRandom(seed: seed)
        let count = 60
        var client = Client()
        var driver = Self.driver()
        var regions = 0
        try expectDamageLimitedFramesEqualFullRedraws(
            &driver, size: Self.size, frames: 10, initial: try client.opening(&r, count: count),
            label: "seed \(seed)", check: { list in regions += Self.counts(list.plan).regions },
            after: { _ in
                // A move or fade or two: small damage, other groups' batches dealt anew.
                [try client.packet(.operations(Array(Self.changes(&r, count: count).prefix(1 + r.below(2)))))]
            })
        #expect(regions >= 100, "seed \(seed): \(regions) regions in 10 frames")
    }
}
