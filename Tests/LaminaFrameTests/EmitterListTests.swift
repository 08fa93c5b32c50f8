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
