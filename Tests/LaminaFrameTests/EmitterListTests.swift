import Foundation
@testable import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaModel
import LaminaTree
import Testing
import TestSupport

/// Emitter layers in the draw list (DrawListBuilder+Emitter.swift): one item per live particle,
/// placed, scaled, turned and colored as the particle (EmitterSimulation) says, in the layer's
/// space; additive as items that each add (`DrawItem.additive`); the frame driver kept awake while particles live.
@Suite("Emitter layers (lists)")
struct EmitterListTests {
    static func cell(_ configure: (inout EmitterCell) -> Void) -> EmitterCell {
        var c = EmitterCell()
        configure(&c)
        return c
    }

    func list(_ changes: [LayerChange], at time: Double, images: [String: Image] = [:]) throws -> (DrawList, Bool) {
        let t = try TestScene.tree(changes)
        var presentation = LayerTree()
        t.updatePresentation(&presentation, at: time)
        var builder = DrawListBuilder(widthPoints: 200, heightPoints: 200, scale: 2, background: .white)
        builder.images = images
        builder.time = time
        let list = builder.build(presentation)
        return (list, builder.emittersChange)
    }

    static let spray = cell {
        $0.birthRate = 20; $0.lifetime = 1; $0.velocity = 40; $0.emissionRange = .pi; $0.spin = 2
        $0.scale = 4; $0.color = Color(1, 0.5, 0, 0.8)
    }

    func emitter(_ props: [(String, PropertyValue)], frame: Rect = Rect(20, 30, 100, 100)) -> [LayerChange] {
        TestScene.layer(1, .emitter, frame: frame, [("emitterPosition", .point(Point(50, 50)))] + props)
    }

    @Test func oneItemPerLiveParticleWhereTheSimulationPutsIt() throws {
        let (list, changes) = try list(emitter([("emitterCells", .emitterCells([Self.spray])), ("seed", .number(5))]), at: 2.5)
        var e = EmitterSimulation.Emitter()
        e.position = Point(50, 50); e.seed = 5
        var ps: [Particle] = []
        EmitterSimulation.particles(e, cells: [Self.spray], at: 2.5, into: &ps)
        #expect(ps.count == 20 && list.items.count == ps.count)
        #expect(changes, "particles live: the driver keeps drawing")
        for (item, p) in zip(list.items, ps) {
            // The layer's top-left is at (20, 30) points, × 2 pixels: the particle's centre maps
            // to 2·(20 + x, 30 + y); its square is 4 points (scale) turned by spin × age.
            let m = item.transform
            #expect(abs(m.m41 - 2 * (20 + p.x)) < 1e-6 && abs(m.m42 - 2 * (30 + p.y)) < 1e-6)
            #expect(abs(m.m11 - 2 * 4 * cos(2 * p.age)) < 1e-6 && abs(m.m12 - 2 * 4 * sin(2 * p.age)) < 1e-6)
            #expect(item.bounds == Rect(-0.5, -0.5, 1, 1))
            let c = item.backgroundColor
            #expect(abs(c.red - 1) < 1e-6 && abs(c.green - 0.5) < 1e-6 && abs(c.alpha - 0.8) < 1e-6)
            if case .rect = item.kind {} else { Issue.record("a square is a rect item") }
        }
    }

    /// A CATransform3D written out: rows of (m11 m12 m13 m14) … (m41 m42 m43 m44).
    static func matrix(_ r: [Double]) -> Transform3D {
        Transform3D(m11: r[0], m12: r[1], m13: r[2], m14: r[3], m21: r[4], m22: r[5], m23: r[6], m24: r[7],
                    m31: r[8], m32: r[9], m33: r[10], m34: r[11], m41: r[12], m42: r[13], m43: r[14], m44: r[15])
    }

    /// A particle's centre (the item's map at (0, 0)) and its map's x column at the centre,
    /// in pixels: (X/W, Y/W) and (m11/W, m12/W) (its m14 is 0 under a pure perspective).
    static func centre(_ item: DrawItem) -> (x: Double, y: Double, dx: Double, dy: Double) {
        let m = item.transform
        return (m.m41 / m.m44, m.m42 / m.m44, m.m11 / m.m44, m.m12 / m.m44)
    }

    /// A stage (0, 0, 200, 200) whose sublayerTransform is a perspective of eye distance
    /// d = 250 (m34 = −1/250, about its anchor (100, 100)) holding the emitter at (20, 30, 100,
    /// 100), its particles thrown out of the plane (emissionLatitude 0.8).
    func stage(_ emitterProps: [(String, PropertyValue)], cells: [EmitterCell]) -> [LayerChange] {
        let perspective = Self.matrix([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -1.0 / 250, 0, 0, 0, 1])
        return TestScene.layer(1, frame: Rect(0, 0, 200, 200), [("sublayerTransform", .transform(perspective))])
            + TestScene.layer(2, .emitter, parent: 1, frame: Rect(20, 30, 100, 100),
                              [("emitterPosition", .point(Point(50, 50))), ("emitterCells", .emitterCells(cells)),
                               ("seed", .number(9))] + emitterProps)
    }

    static let outwards = cell {
        $0.birthRate = 20; $0.lifetime = 1.5; $0.velocity = 60; $0.velocityRange = 20; $0.emissionLatitude = 0.8
        $0.emissionRange = 1.2; $0.spin = 2; $0.scale = 4; $0.color = Color(1, 0.5, 0, 0.8)
    }

    /// preservesDepth: each particle at (x, y, z) of the emitter's bounds lies at (20 + x,
    /// 30 + y, z) in the stage, and the stage's perspective about its anchor (100, 100) puts it
    /// at (100 + (20 + x − 100)/w, 100 + (30 + y − 100)/w) points, w = 1 − z/250, × 2 pixels;
    /// its 4-point square is 4/w points wide there. Without preservesDepth the same particles
    /// lie flat at 2·(20 + x, 30 + y), 4 points wide.
    @Test func particlesKeepingDepthAreProjectedByTheSuperlayersPerspective() throws {
        let (deep, _) = try list(stage([("preservesDepth", .bool(true)), ("renderMode", .string("oldestFirst"))],
                                       cells: [Self.outwards]), at: 2.5)
        var e = EmitterSimulation.Emitter()
        e.position = Point(50, 50); e.seed = 9
        var ps: [Particle] = []
        EmitterSimulation.particles(e, cells: [Self.outwards], renderMode: .oldestFirst, at: 2.5, into: &ps)
        #expect(ps.count == 30 && deep.items.count == ps.count)
        #expect(ps.contains { $0.z > 40 }, "particles well out of the plane")
        for (item, p) in zip(deep.items, ps) {
            let w: Double = 1 - p.z / 250
            let c = Self.centre(item)
            let x: Double = 2 * (100 + (20 + p.x - 100) / w), y: Double = 2 * (100 + (30 + p.y - 100) / w)
            let dx: Double = 2 * 4 * cos(2 * p.age) / w, dy: Double = 2 * 4 * sin(2 * p.age) / w
            #expect(abs(c.x - x) < 1e-6, "x of particle born at \(p.birth)")
            #expect(abs(c.y - y) < 1e-6, "y of particle born at \(p.birth)")
            #expect(abs(c.dx - dx) < 1e-6 && abs(c.dy - dy) < 1e-6)
        }
        let (flat, _) = try list(stage([("renderMode", .string("oldestFirst"))], cells: [Self.outwards]), at: 2.5)
        #expect(flat.items.count == ps.count)
        for (item, p) in zip(flat.items, ps) {
            let c = Self.centre(item)
            let x: Double = 2 * (20 + p.x), y: Double = 2 * (30 + p.y), dx: Double = 2 * 4 * cos(2 * p.age)
            #expect(abs(c.x - x) < 1e-6 && abs(c.y - y) < 1e-6)
            #expect(abs(c.dx - dx) < 1e-6)
        }
    }

    /// preservesDepth with backToFront or unordered: drawn in the order of each particle's depth
    /// in the stage's space. The emitter is tilted by rotateX(0.9) about its anchor (50, 50)
    /// (CATransform3DMakeRotation's rows: y′ = y cos a − z sin a, z′ = y sin a + z cos a), so a
    /// particle's depth is (y − 50)·sin 0.9 + z·cos 0.9: an order neither by birth nor by the
    /// particle's own z. oldestFirst keeps its birth order.
    @Test func particlesKeepingDepthAreDrawnBackToFrontInTheSuperlayersSpace() throws {
        let a = 0.9
        let tilt = Self.matrix([1, 0, 0, 0, 0, cos(a), sin(a), 0, 0, -sin(a), cos(a), 0, 0, 0, 0, 1])
        var e = EmitterSimulation.Emitter()
        e.position = Point(50, 50); e.seed = 9
        var ps: [Particle] = []
        EmitterSimulation.particles(e, cells: [Self.outwards], renderMode: .oldestFirst, at: 2.5, into: &ps)
        func depth(_ p: Particle) -> Double { (p.y - 50) * sin(a) + p.z * cos(a) }
        // Each item is identified by its centre, projected as it is drawn (its own map at (0, 0)).
        func order(_ mode: String) throws -> [Int] {
            let (drawn, _) = try list(stage([("preservesDepth", .bool(true)), ("renderMode", .string(mode)),
                                             ("transform", .transform(tilt))], cells: [Self.outwards]), at: 2.5)
            let birthOrder = try list(stage([("preservesDepth", .bool(true)), ("renderMode", .string("oldestFirst")),
                                             ("transform", .transform(tilt))], cells: [Self.outwards]), at: 2.5).0
            let centres = birthOrder.items.map { Self.centre($0) }
            return drawn.items.map { (item: DrawItem) -> Int in
                let c = Self.centre(item)
                return centres.firstIndex { (o: (x: Double, y: Double, dx: Double, dy: Double)) -> Bool in
                    abs(o.x - c.x) < 1e-9 && abs(o.y - c.y) < 1e-9
                } ?? -1
            }
        }
        let byDepth = ps.indices.sorted { depth(ps[$0]) < depth(ps[$1]) }
        #expect(byDepth != Array(ps.indices), "not the birth order")
        #expect(byDepth != ps.indices.sorted { ps[$0].z < ps[$1].z }, "not the particles' own z order")
        #expect(try order("backToFront") == byDepth)
        #expect(try order("unordered") == byDepth)
        #expect(try order("oldestFirst") == Array(ps.indices))
    }

    @Test func additiveParticlesAreAdditiveItemsAtTheLayersOpacity() throws {
        let (additive, _) = try list(emitter([("emitterCells", .emitterCells([Self.spray])), ("renderMode", .string("additive")),
                                          ("opacity", .number(0.5))]), at: 2.5)
        #expect(additive.items.count == 20)
        #expect(additive.items.allSatisfy { $0.additive && $0.opacity == 0.5 && $0.clip == -1 })
        let (plain, _) = try list(emitter([("emitterCells", .emitterCells([Self.spray]))]), at: 2.5)
        #expect(plain.items.allSatisfy { !$0.additive })
    }

    /// The additive flag shares the clip's storage: setting either keeps the other.
    @Test func theAdditiveFlagKeepsTheClip() {
        var item = DrawItem(transform: .identity, bounds: Rect(0, 0, 1, 1), backgroundColor: Color(1, 0, 0, 1), clip: 7)
        #expect(!item.additive && item.clip == 7)
        item.additive = true
        #expect(item.additive && item.clip == 7)
        item.clip = -1
        #expect(item.additive && item.clip == -1)
        item.clip = 3
        item.additive = false
        #expect(!item.additive && item.clip == 3)
        var other = item
        other.additive = true
        #expect(!item.drawsSame(as: other) && item.drawsSame(as: item))
    }

    @Test func contentsAreImageItemsTintedByTheColor() throws {
        let image = Image(width: 8, height: 4, format: .rgba8, pixels: [UInt8](repeating: 255, count: 8 * 4 * 4))
        var white = Self.spray
        white.contents = "spark"; white.color = Color(1, 1, 1, 0.5); white.contentsRect = Rect(0, 0, 0.5, 1)
        var tinted = white
        tinted.color = Color(0, 1, 0, 1)
        let (list, _) = try list(emitter([("emitterCells", .emitterCells([white, tinted]))]), at: 0.5, images: ["spark": image])
        #expect(list.items.count == 22)
        var sawColor = false, sawCoverage = false
        for item in list.items {
            guard case .image(let d) = item.kind else { Issue.record("an image item"); continue }
            // The left half of an 8 × 4 image: 4 × 4 points centred on the particle.
            #expect(item.bounds == Rect(-2, -2, 4, 4))
            switch d.mode {
            case .color: sawColor = true; #expect(abs(item.opacity - 0.5) < 1e-9)
            case .coverage(let c): sawCoverage = true; #expect(c == Color(0, 1, 0, 1))
            default: Issue.record("mode \(d.mode)")
            }
        }
        #expect(sawColor && sawCoverage)
    }

    @Test func theDriverStopsWhenTheLastParticleDies() throws {
        var burst = Self.spray
        burst.duration = 0.5   // births at 0 … 0.5, each living 1 s: the last dies at 1.5
        let ops = emitter([("emitterCells", .emitterCells([burst]))])
        #expect(try list(ops, at: 1.4).1)
        let (after, changes) = try list(ops, at: 1.6)
        #expect(after.items.isEmpty && !changes)
        // Without cells, or stopped (birthRate 0), an emitter asks for no frames.
        #expect(try !list(emitter([]), at: 1).1)
        #expect(try !list(emitter([("emitterCells", .emitterCells([Self.spray])), ("birthRate", .number(0))]), at: 1).1)
    }

    @Test func aClientDrawsAtMostItsParticleBudgetAcrossEmitters() throws {
        let heavy = Self.cell { $0.birthRate = 100_000; $0.lifetime = 10 }
        var ops: [LayerChange] = []
        for i in 1...6 {
            ops += TestScene.layer(UInt32(i), .emitter, frame: Rect(0, 0, 100, 100), [("emitterCells", .emitterCells([heavy]))])
        }
        let (list, _) = try list(ops, at: 5)
        #expect(list.items.count == EmitterSimulation.maxParticlesPerClient)
    }

    @Test func invalidCellsAreRefusedBySet() throws {
        var t = try TestScene.tree(TestScene.layer(1, .emitter, frame: Rect(0, 0, 10, 10)))
        let bad = Self.cell { $0.birthRate = -3 }
        #expect(throws: (any Error).self) {
            try t.apply(Commit(client: 1, content: .operations([.set(1, keyPath: "emitterCells", value: .emitterCells([bad]))])), at: 0)
        }
        // A plain layer has no emitterCells.
        var plain = try TestScene.tree(TestScene.layer(1, frame: Rect(0, 0, 10, 10)))
        #expect(throws: (any Error).self) {
            try plain.apply(Commit(client: 1, content: .operations([.set(1, keyPath: "emitterCells", value: .emitterCells([]))])), at: 0)
        }
    }
}
