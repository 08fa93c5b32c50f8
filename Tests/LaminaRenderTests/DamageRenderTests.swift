import Foundation
import Testing
import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaTree
import TestSupport
@testable import LaminaRender
import LaminaModel

/// Only the damaged region redrawn (issue 11, item 3): a frame sequence drawn with damage
/// (each frame redraws its damage over the previous one) equals, byte for byte, the same
/// frames each drawn whole — for random animated scenes with shadows (analytic and blurred),
/// clips, group opacity, gradients and shapes, and random commits between frames.
@Suite("Damage-limited frames")
struct DamageRenderTests {
    static let size = 96

    /// A random scene as operations: `count` layers, some nested, of every kind and effect.
    static func scene(_ r: inout SeededRandom, count: Int) -> [LayerChange] {
        var ops: [LayerChange] = []
        for id in UInt32(1)...UInt32(count) {
            let kind: LayerKind = [.layer, .layer, .shape, .gradient][r.below(4)]
            let parent: UInt32 = id > 3 && r.below(3) == 0 ? UInt32(r.int(1..<Int(id))) : 0
            ops += [.create(id, kind), .addSublayer(parent: parent, child: id)]
            let w = r.double(6...40), h = r.double(6...40)
            ops.append(.set(id, keyPath: "bounds", value: .rect(Rect(0, 0, w, h))))
            ops.append(.set(id, keyPath: "position", value: .point(Point(r.double(0...96), r.double(0...96)))))
            ops.append(.set(id, keyPath: "backgroundColor", value: .color(color(&r))))
            if r.below(3) == 0 { ops.append(.set(id, keyPath: "cornerRadius", value: .number(r.double(0...10)))) }
            if r.below(4) == 0 {
                ops.append(.set(id, keyPath: "borderWidth", value: .number(r.double(1...4))))
                ops.append(.set(id, keyPath: "borderColor", value: .color(color(&r))))
            }
            if r.below(4) == 0 {
                ops.append(.set(id, keyPath: "shadowOpacity", value: .number(r.double(0.3...1))))
                ops.append(.set(id, keyPath: "shadowRadius", value: .number(r.double(0...5))))
                ops.append(.set(id, keyPath: "shadowOffset", value: .size(Size(r.double(-4...4), r.double(-4...4)))))
            }
            if r.below(5) == 0 { ops.append(.set(id, keyPath: "masksToBounds", value: .bool(true))) }
            if r.below(4) == 0 { ops.append(.set(id, keyPath: "opacity", value: .number(r.double(0.3...0.9)))) }
            if r.below(5) == 0 { ops.append(.set(id, keyPath: "transform", value: .transform(.rotation(r.double(-1...1))))) }
            switch kind {
            case .shape:
                ops.append(.set(id, keyPath: "path", value: .path(r.below(2) == 0 ? .ellipse(in: Rect(0, 0, w, h))
                                                                 : star(w, h))))
                ops.append(.set(id, keyPath: "fillColor", value: .color(color(&r))))
                if r.below(2) == 0 {
                    ops.append(.set(id, keyPath: "strokeColor", value: .color(color(&r))))
                    ops.append(.set(id, keyPath: "lineWidth", value: .number(r.double(1...3))))
                }
            case .gradient:
                ops.append(.set(id, keyPath: "colors", value: .colors([color(&r), color(&r), color(&r)])))
            default: break
            }
        }
        return ops
    }

    /// The driver of the random scenes: `size` points square at scale 1 over a dark background.
    static func driver() -> FrameDriver {
        FrameDriver(widthPoints: Double(size), heightPoints: Double(size), scale: 1, background: Color(0.2, 0.2, 0.25),
                    targetFPS: 60)
    }

    static func color(_ r: inout SeededRandom) -> Color {
        Color(r.double(0...1), r.double(0...1), r.double(0...1), r.below(3) == 0 ? r.double(0.4...1) : 1)
    }

    static func star(_ w: Double, _ h: Double) -> Path {
        var p = Path()
        for k in 0..<10 {
            let a = Double(k) * .pi / 5, s = k % 2 == 0 ? 0.5 : 0.22
            let q = Point(w / 2 + s * w * sin(a), h / 2 - s * h * cos(a))
            if k == 0 { p.move(to: q) } else { p.addLine(to: q) }
        }
        p.closeSubpath()
        return p
    }

    /// A few random animations and changes for the layers of a scene.
    static func changes(_ r: inout SeededRandom, count: Int, at frame: Int) -> [LayerChange] {
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: r.below(2) == 0))]
        for _ in 0..<r.int(0..<3) {
            let id = UInt32(r.int(1..<(count + 1)))
            switch r.below(6) {
            case 0: ops.append(.set(id, keyPath: "position", value: .point(Point(r.double(0...96), r.double(0...96)))))
            case 1: ops.append(.set(id, keyPath: "opacity", value: .number(r.double(0...1))))
            case 2: ops.append(.set(id, keyPath: "backgroundColor", value: .color(color(&r))))
            case 3:
                ops.append(.addAnimation(id, key: "spin", animation: .basic(BasicAnimation(
                    keyPath: "transform.rotation.z", from: .double(0), to: .double(r.double(-3...3)),
                    timing: AnimationTiming(duration: r.double(0.2...1))))))
            case 4: ops.append(.set(id, keyPath: "shadowRadius", value: .number(r.double(0...6))))
            default: ops.append(.set(id, keyPath: "hidden", value: .bool(r.below(3) == 0)))
            }
        }
        return ops
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func damageLimitedFramesEqualFullRedraws(seed: UInt64) throws {
        var r = SeededRandom(seed: seed)
        let count = 24
        var model = ModelTree()
        var driver = Self.driver()
        func packet(_ content: Commit.Content) throws -> CommitPacket {
            return try model.validate(Commit(client: 1, content: content), at: 0)
        }
        var pending = [try packet(.connect), try packet(.operations(Self.scene(&r, count: count)))]
        // One animation from the start, so that frames change without commits too.
        pending.append(try packet(.operations([.addAnimation(1, key: "slide", animation: .basic(BasicAnimation(
            keyPath: "position.x", from: .double(10), to: .double(80), timing: AnimationTiming(duration: 2))))])))
        try expectDamageLimitedFramesEqualFullRedraws(&driver, size: Self.size, frames: 14, initial: pending,
                                                      label: "seed \(seed)",
                                                      after: { frame in
            r.below(2) == 0 ? [try packet(.operations(Self.changes(&r, count: count, at: frame)))] : []
        })
    }

    /// Masks (CALayer.mask) and blend groups (compositingFilter): random scenes where four
    /// layers have masks (a shape, a rounded translucent rect with a sublayer, a mask with its
    /// own mask) that move, turn and fade, and three layers blend (multiply, hue, plusDarker),
    /// while the masked layers and the rest change too; damage-limited frames equal full ones.
    @Test(arguments: [UInt64(5), 6, 7])
    func maskedScenesDamageLimitedFramesEqualFullRedraws(seed: UInt64) throws {
        var r = SeededRandom(seed: seed)
        let count = 16
        var model = ModelTree()
        var driver = Self.driver()
        func packet(_ content: Commit.Content) throws -> CommitPacket {
            try model.validate(Commit(client: 1, content: content), at: 0)
        }
        var ops = Self.scene(&r, count: count)
        // Masks 101…104 (detached), 105 the mask of 104.
        for m in UInt32(101)...105 {
            let w = r.double(10...40), h = r.double(10...40)
            ops += [.create(m, m == 101 ? .shape : .layer),
                    .set(m, keyPath: "bounds", value: .rect(Rect(0, 0, w, h))),
                    .set(m, keyPath: "position", value: .point(Point(r.double(0...30), r.double(0...30)))),
                    .set(m, keyPath: "backgroundColor", value: .color(Color(0, 0, 0, r.double(0.3...1)))),
                    .set(m, keyPath: "cornerRadius", value: .number(r.double(0...8)))]
            if m == 101 {
                ops.append(.set(m, keyPath: "path", value: .path(Self.star(w, h))))
            }
        }
        ops += [.create(106, .layer), .addSublayer(parent: 102, child: 106),
                .set(106, keyPath: "bounds", value: .rect(Rect(0, 0, 12, 12))),
                .set(106, keyPath: "position", value: .point(Point(6, 6))),
                .set(106, keyPath: "backgroundColor", value: .color(Color(0, 0, 0, 1))),
                .set(104, keyPath: "mask", value: .number(105))]
        // Blend groups (compositingFilter) on three layers, one of every kind of formula.
        for mode in [BlendMode.multiplyBlendMode, .hueBlendMode, .plusDarker] {
            ops.append(.set(UInt32(r.int(1..<(count + 1))), keyPath: "compositingFilter", value: .string(mode.rawValue)))
        }
        let masked = [UInt32(1), 2, 3, 4].map { _ in UInt32(r.int(1..<(count + 1))) }
        for (k, id) in Set(masked).sorted().enumerated() { ops.append(.set(id, keyPath: "mask", value: .number(Double(101 + k)))) }
        var pending = [try packet(.connect), try packet(.operations(ops))]
        pending.append(try packet(.operations([.addAnimation(101, key: "spin", animation: .basic(BasicAnimation(
            keyPath: "transform.rotation.z", from: .double(0), to: .double(2), timing: AnimationTiming(duration: 1.5))))])))
        try expectDamageLimitedFramesEqualFullRedraws(&driver, size: Self.size, frames: 14, initial: pending,
                                                      label: "seed \(seed)", check: { list in
            #expect(list.items.contains { if case .mask = $0.kind { true } else { false } })
        }, after: { frame in
            var changes = Self.changes(&r, count: count, at: frame)
            let m = UInt32(r.int(101..<106))
            switch r.below(3) {
            case 0: changes.append(.set(m, keyPath: "position", value: .point(Point(r.double(0...40), r.double(0...40)))))
            case 1: changes.append(.set(m, keyPath: "opacity", value: .number(r.double(0...1))))
            default: changes.append(.set(m, keyPath: "backgroundColor", value: .color(Color(0, 0, 0, r.double(0...1)))))
            }
            return [try packet(.operations(changes))]
        })
    }

    /// Filters (CALayer.filters): random scenes where layers carry blurs (σ up to 6 points,
    /// one blur after a color filter), color filters and chains, whose filters, positions
    /// and colours change while the rest of the scene changes too; damage-limited frames equal
    /// full ones byte for byte (a blur's reach widens the damage).
    @Test(arguments: [UInt64(8), 9, 10])
    func filteredScenesDamageLimitedFramesEqualFullRedraws(seed: UInt64) throws {
        var r = SeededRandom(seed: seed)
        let count = 16
        var model = ModelTree()
        var driver = Self.driver()
        func packet(_ content: Commit.Content) throws -> CommitPacket {
            try model.validate(Commit(client: 1, content: content), at: 0)
        }
        func filters() -> [LayerFilter] {
            switch r.below(4) {
            case 0: return [.gaussianBlur(r.double(0.5...6))]
            case 1: return [LayerFilter(kind: .grayscale, amount: r.double(0...1)), .gaussianBlur(r.double(0.5...3))]
            case 2: return [LayerFilter(kind: .invert, amount: r.double(0...1)), LayerFilter(kind: .opacity, amount: r.double(0...1))]
            default: return [LayerFilter(kind: .saturate, amount: r.double(0...3))]
            }
        }
        var ops = Self.scene(&r, count: count)
        let filtered = Set((0..<4).map { _ in UInt32(r.int(1..<(count + 1))) }).sorted()
        for id in filtered { ops.append(.set(id, keyPath: "filters", value: .filters(filters()))) }
        let pending = [try packet(.connect), try packet(.operations(ops))]
        try expectDamageLimitedFramesEqualFullRedraws(&driver, size: Self.size, frames: 14, initial: pending,
                                                      label: "seed \(seed)", check: { list in
            #expect(list.items.contains { if case .filter = $0.kind { true } else { false } })
        }, after: { frame in
            var changes = Self.changes(&r, count: count, at: frame)
            if r.below(2) == 0, let id = filtered.randomElement(using: &r) {
                changes.append(.set(id, keyPath: "filters", value: .filters(filters())))
            }
            return [try packet(.operations(changes))]
        })
    }

    /// Rasterized layers (shouldRasterize, the raster cache): random scenes where six layers
    /// are rasterized (some nested in others, some with sublayers, shadows, clips) while they
    /// and their sublayers move, fade, turn, change colour and hide; damage-limited frames equal
    /// full ones byte for byte (a change inside a cached drawing damages its composite).
    @Test(arguments: [UInt64(11), 12, 13])
    func rasterizedScenesDamageLimitedFramesEqualFullRedraws(seed: UInt64) throws {
        var r = SeededRandom(seed: seed)
        let count = 20
        var model = ModelTree()
        var driver = Self.driver()
        func packet(_ content: Commit.Content) throws -> CommitPacket {
            try model.validate(Commit(client: 1, content: content), at: 0)
        }
        var ops = Self.scene(&r, count: count)
        let rasterized = Set((0..<6).map { _ in UInt32(r.int(1..<(count + 1))) }).sorted()
        for id in rasterized { ops.append(.set(id, keyPath: "shouldRasterize", value: .bool(true))) }
        var pending = [try packet(.connect), try packet(.operations(ops))]
        pending.append(try packet(.operations([.addAnimation(rasterized[0], key: "slide", animation: .basic(BasicAnimation(
            keyPath: "position.x", from: .double(10), to: .double(80), timing: AnimationTiming(duration: 2))))])))
        try expectDamageLimitedFramesEqualFullRedraws(&driver, size: Self.size, frames: 14, initial: pending,
                                                      label: "seed \(seed)", check: { list in
            #expect(list.items.contains { if case .raster = $0.kind { true } else { false } })
        }, after: { frame in
            var changes = Self.changes(&r, count: count, at: frame)
            if let id = rasterized.randomElement(using: &r) {
                switch r.below(3) {
                case 0: changes.append(.set(id, keyPath: "position", value: .point(Point(r.double(0...96), r.double(0...96)))))
                case 1: changes.append(.set(id, keyPath: "transform", value: .transform(.rotation(r.double(-1...1)))))
                default: changes.append(.set(id, keyPath: "rasterizationScale", value: .number(r.double(0.5...2))))
                }
            }
            return [try packet(.operations(changes))]
        })
    }

    /// The automatic raster cache (turned on): random scenes where half the
    /// layers have a border and a shadow (costly: cached once stable, whole or in parts) while
    /// layers move, fade and turn most frames and now and then change colour or hide;
    /// damage-limited frames equal full ones byte for byte, and some frames draw from the cache.
    @Test(arguments: [UInt64(21), 22, 23])
    func automaticRasterScenesDamageLimitedFramesEqualFullRedraws(seed: UInt64) throws {
        var r = SeededRandom(seed: seed)
        let count = 16
        var model = ModelTree()
        var driver = Self.driver()
        driver.rasterizesAutomatically = true
        func packet(_ content: Commit.Content) throws -> CommitPacket {
            try model.validate(Commit(client: 1, content: content), at: 0)
        }
        var ops = Self.scene(&r, count: count)
        for id in UInt32(1)...UInt32(count) where id % 2 == 0 {
            ops += [.set(id, keyPath: "borderWidth", value: .number(r.double(1...3))),
                    .set(id, keyPath: "borderColor", value: .color(Self.color(&r))),
                    .set(id, keyPath: "cornerRadius", value: .number(r.double(0...8))),
                    .set(id, keyPath: "shadowOpacity", value: .number(r.double(0.3...0.9))),
                    .set(id, keyPath: "shadowRadius", value: .number(r.double(1...4)))]
        }
        var pending = [try packet(.connect), try packet(.operations(ops))]
        pending.append(try packet(.operations([.addAnimation(2, key: "slide", animation: .basic(BasicAnimation(
            keyPath: "position.x", from: .double(10), to: .double(80), timing: AnimationTiming(duration: 2))))])))
        var cachedFrames = 0
        try expectDamageLimitedFramesEqualFullRedraws(&driver, size: Self.size, frames: 16, initial: pending,
                                                      label: "seed \(seed)", check: { list in
            if list.items.contains(where: { if case .raster = $0.kind { true } else { false } }) { cachedFrames += 1 }
        }, after: { frame in
            var changes: [LayerChange] = []
            for _ in 0..<r.int(1..<4) {
                let id = UInt32(r.int(1..<(count + 1)))
                switch r.below(8) {
                case 0, 1: changes.append(.set(id, keyPath: "position", value: .point(Point(r.double(0...96), r.double(0...96)))))
                case 2, 3: changes.append(.set(id, keyPath: "opacity", value: .number(r.double(0.2...1))))
                case 4, 5: changes.append(.set(id, keyPath: "transform", value: .transform(.rotation(r.double(-1...1)))))
                case 6: changes.append(.set(id, keyPath: "backgroundColor", value: .color(Self.color(&r))))
                default: changes.append(.set(id, keyPath: "hidden", value: .bool(r.below(3) == 0)))
                }
            }
            return [try packet(.operations(changes))]
        })
        #expect(cachedFrames > 0, "seed \(seed): no frame drew from the raster cache")
    }

    /// Background filters (CALayer.backgroundFilters): random scenes under three large
    /// frosted panels (blurs of σ up to 5 points, some followed by a color filter, rounded,
    /// translucent, one rotated) while the content beneath moves and changes, and the panels'
    /// filters and positions change too; damage-limited frames equal full ones byte for byte
    /// (a change within a panel's reach redraws the whole panel).
    @Test(arguments: [UInt64(11), 12, 13])
    func backdropScenesDamageLimitedFramesEqualFullRedraws(seed: UInt64) throws {
        var r = SeededRandom(seed: seed)
        let count = 16
        var model = ModelTree()
        var driver = Self.driver()
        func packet(_ content: Commit.Content) throws -> CommitPacket {
            try model.validate(Commit(client: 1, content: content), at: 0)
        }
        func filters() -> [LayerFilter] {
            switch r.below(3) {
            case 0: return [.gaussianBlur(r.double(0.5...5))]
            case 1: return [.gaussianBlur(r.double(0.5...4)), LayerFilter(kind: .saturate, amount: r.double(0...2))]
            default: return [LayerFilter(kind: .grayscale, amount: r.double(0...1)), .gaussianBlur(r.double(1...3))]
            }
        }
        var ops = Self.scene(&r, count: count)
        let panels = (UInt32(count + 1)...UInt32(count + 3)).map { $0 }
        for id in panels {
            ops += [.create(id, .layer), .addSublayer(parent: 0, child: id),
                    .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, r.double(30...60), r.double(20...40)))),
                    .set(id, keyPath: "position", value: .point(Point(r.double(10...86), r.double(10...86)))),
                    .set(id, keyPath: "backgroundColor", value: .color(Color(1, 1, 1, r.double(0...0.4)))),
                    .set(id, keyPath: "cornerRadius", value: .number(r.double(0...10))),
                    .set(id, keyPath: "backgroundFilters", value: .filters(filters()))]
        }
        ops.append(.set(panels[0], keyPath: "transform", value: .transform(.rotation(r.double(-0.5...0.5)))))
        let pending = [try packet(.connect), try packet(.operations(ops))]
        // Each frame also drawn whole twice: the backdrops copied out of the cut pass (the
        // default) and the steps so far drawn again into them (`copiesBackdrops` off), which
        // must agree byte for byte.
        let copied = try makeRenderer(width: Self.size, height: Self.size)
        let drawnAgain = try makeRenderer(width: Self.size, height: Self.size)
        try expectDamageLimitedFramesEqualFullRedraws(&driver, size: Self.size, frames: 14, initial: pending,
                                                      label: "seed \(seed)", check: { list in
            #expect(list.items.contains { if case .backdrop = $0.kind { true } else { false } })
            var whole = list
            whole.damage = nil
            #expect(whole.plan.passes.contains { $0.copyOut != nil })
            do {
                try copied.render(whole)
                try drawnAgain.render(whole.planned(batches: true, copiesBackdrops: false))
                let a = try copied.readPixels(), b = try drawnAgain.readPixels()
                let differing = zip(a, b).filter { $0 != $1 }.count
                #expect(differing == 0, "seed \(seed): copied and drawn-again backdrops differ in \(differing) bytes")
            } catch { Issue.record(error) }
        }, after: { frame in
            var changes = Self.changes(&r, count: count, at: frame)
            if r.below(3) == 0, let id = panels.randomElement(using: &r) {
                changes.append(r.below(2) == 0
                    ? .set(id, keyPath: "backgroundFilters", value: .filters(filters()))
                    : .set(id, keyPath: "position", value: .point(Point(r.double(10...86), r.double(10...86)))))
            }
            return [try packet(.operations(changes))]
        })
    }

    /// Background filters' damage is exact: a change beneath a frosted panel damages its own
    /// pixels and, inside the panel's box, those pixels grown by the blur's reach (what the
    /// panel writes differently); a change drawn over the panel damages its own pixels only;
    /// a change of the panel itself, the panel's box. Values derived by hand from the item
    /// bounds (anti-aliasing 1.5 pixels, the tracker's half pixel), the planner's box (a pixel
    /// more) and its reach (σ 4 at half size: ⌈12⌉ + 1 + 4 = 17).
    @Test func backdropDamageIsWhatThePanelWritesDifferently() throws {
        var model = ModelTree()
        var driver = FrameDriver(widthPoints: 96, heightPoints: 96, scale: 1, background: .black, targetFPS: 60)
        let ops: [LayerChange] = [
            .create(1, .layer), .addSublayer(parent: 0, child: 1),
            .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 4, 4))),
            .set(1, keyPath: "position", value: .point(Point(10, 50))),
            .set(1, keyPath: "backgroundColor", value: .color(Color(1, 0, 0))),
            .create(2, .layer), .addSublayer(parent: 0, child: 2),
            .set(2, keyPath: "bounds", value: .rect(Rect(0, 0, 40, 40))),
            .set(2, keyPath: "position", value: .point(Point(48, 48))),  // 28…68
            .set(2, keyPath: "backgroundFilters", value: .filters([.gaussianBlur(4)])),
            .create(3, .layer), .addSublayer(parent: 0, child: 3),  // over the panel
            .set(3, keyPath: "bounds", value: .rect(Rect(0, 0, 4, 4))),
            .set(3, keyPath: "position", value: .point(Point(48, 48))),
            .set(3, keyPath: "backgroundColor", value: .color(Color(0, 1, 0))),
        ]
        _ = driver.frame(applying: [try model.validate(Commit(client: 1, content: .connect)),
                                    try model.validate(Commit(client: 1, content: .operations(ops)))], at: 0)
        func change(_ id: UInt32, _ keyPath: String, _ value: PropertyValue, at t: Double) throws -> PixelRect {
            let f = driver.frame(applying: [try model.validate(Commit(client: 1, content: .operations([
                .setTransaction(TransactionSettings(disableActions: true)),
                .set(id, keyPath: keyPath, value: value)])))], at: t)
            return try #require(f.drawList.damage).rect
        }
        // Beneath, 8…12 → 18…22 (× 48…52): the square's pixels 6…24 × 46…54, and within 17 of
        // them the panel's box 25…71 writes anew: 25…41 × 29…71.
        #expect(try change(1, "position", .point(Point(20, 50)), at: 1) == PixelRect(minX: 6, minY: 29, maxX: 41, maxY: 71))
        #expect(try change(1, "position", .point(Point(10, 50)), at: 2) == PixelRect(minX: 6, minY: 29, maxX: 41, maxY: 71))
        // Beneath but beyond the reach (0…4 → 2…6: 0…8, more than 17 from 25): the square only.
        _ = try change(1, "position", .point(Point(2, 50)), at: 3)
        #expect(try change(1, "position", .point(Point(4, 50)), at: 4) == PixelRect(minX: 0, minY: 46, maxX: 8, maxY: 54))
        // Over the panel, 46…50 → 50…54 (× 46…50): its own pixels 44…56 × 44…52, nothing more.
        #expect(try change(3, "position", .point(Point(52, 48)), at: 5) == PixelRect(minX: 44, minY: 44, maxX: 56, maxY: 52))
        // The panel's own blur: its box (its bounds with their anti-aliasing, 26…70).
        #expect(try change(2, "backgroundFilters", .filters([.gaussianBlur(5)]), at: 6)
            == PixelRect(minX: 26, minY: 26, maxX: 70, maxY: 70))
    }

    @Test func anUnchangedFrameIsNotRedrawnAndASmallChangeRedrawsLittle() throws {
        var model = ModelTree()
        var driver = FrameDriver(widthPoints: 96, heightPoints: 96, scale: 1, background: .black, targetFPS: 60)
        let ops: [LayerChange] = [
            .create(1, .layer), .addSublayer(parent: 0, child: 1),
            .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 10, 10))),
            .set(1, keyPath: "position", value: .point(Point(20, 20))),
            .set(1, keyPath: "backgroundColor", value: .color(Color(1, 0, 0))),
        ]
        let f0 = driver.frame(applying: [try model.validate(Commit(client: 1, content: .connect)),
                                         try model.validate(Commit(client: 1, content: .operations(ops)))], at: 0)
        #expect(f0.drawList.damage == nil, "the first frame draws everything")
        let f1 = driver.frame(applying: [], at: 1)
        #expect(f1.drawList.damage?.rect.isEmpty == true)
        let f2 = driver.frame(applying: [try model.validate(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(disableActions: true)),
            .set(1, keyPath: "position", value: .point(Point(40, 20)))])))], at: 2)
        // The square was at 15…25 and is at 35…45 (x), 15…25 (y): the damage holds both and
        // at most a few pixels more around them.
        let d = try #require(f2.drawList.damage).rect
        #expect(d.minX <= 15 && d.maxX >= 45 && d.minY <= 15 && d.maxY >= 25)
        #expect(d.minX >= 11 && d.maxX <= 49 && d.minY >= 11 && d.maxY <= 29)
        #expect(f2.phases.damaged < 0.1)
    }
}
