import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaModel
import LaminaServer
import LaminaWire
import Testing

/// Emitter layers through the protocol on the embedded daemon (manual clock): cells naming the
/// client's images, bad cells refused with their path, and the render loop kept awake exactly
/// while particles live.
@Suite struct EmitterProtocolTests {
    static func cell(_ configure: (inout EmitterCell) -> Void) -> EmitterCell {
        var c = EmitterCell()
        configure(&c)
        return c
    }

    static func emitter(_ cells: [EmitterCell]) -> [Request] {
        [.createLayer(id: 1, kind: .emitter),
         .setProperty(id: 1, keyPath: "frame", value: .rect(Rect(0, 0, 100, 100))),
         .setProperty(id: 1, keyPath: "emitterPosition", value: .point(Point(50, 50))),
         .setProperty(id: 1, keyPath: "emitterCells", value: .emitterCells(cells)),
         .addSublayer(parent: 0, child: 1)]
    }

    @Test func cellsShowTheClientsImagesByItsOwnNames() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let (png, _) = try ImageProtocolTests.pattern(2, 2)
        #expect(ImageProtocolTests.upload(d, c, "spark", png) == .imageUploaded(name: "spark", width: 2, height: 2))
        let spark = Self.cell { $0.contents = "spark"; $0.birthRate = 10; $0.lifetime = 1 }
        let outer = Self.cell { $0.birthRate = 1; $0.lifetime = 1; $0.emitterCells = [spark] }
        guard case .committed = d.commit(Self.emitter([spark, outer]), from: c) else { Issue.record("commit failed"); return }
        _ = d.clock.advance(by: 0.55)
        let images = ImageProtocolTests.drawnImages(d)
        // Births at 0, 0.1, …, 0.5: six particles of the top-level spark, each the uploaded image.
        #expect(images.count >= 6 && images.allSatisfy { $0.width == 2 && $0.height == 2 })
        // Read back with the client's names (nested cells too).
        #expect(d.request(.getPresentation(id: 1, keyPath: "emitterCells"), from: c)
                == .presentation(value: .emitterCells([spark, outer])))
        // A name the client has not uploaded is refused.
        let unknown = Self.cell { $0.contents = "nope" }
        ImageProtocolTests.expectError(
            d.commit([.setProperty(id: 1, keyPath: "emitterCells", value: .emitterCells([Self.cell { $0.emitterCells = [unknown] }]))], from: c),
            .unknownImage, opcode: 0x12, layer: 1, key: "emitterCells")
    }

    @Test func badCellsAreInvalidValuesNamingTheField() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        guard case .committed = d.commit(Self.emitter([]), from: c) else { Issue.record("commit failed"); return }
        func set(_ cells: [EmitterCell]) -> Event {
            d.commit([.setProperty(id: 1, keyPath: "emitterCells", value: .emitterCells(cells))], from: c)
        }
        guard case .error(_, let code, let message, _) = set([Self.cell { $0.birthRate = 1e9 }]) else {
            Issue.record("a birthRate of 1e9 was accepted"); return
        }
        #expect(code == .invalidValue && message.contains("emitterCells[0].birthRate must be at most 100000"), "\(message)")
        guard case .error(_, let code2, let message2, _) = set(Array(repeating: EmitterCell(), count: 65)) else {
            Issue.record("65 cells were accepted"); return
        }
        #expect(code2 == .invalidValue && message2.contains("at most 64 cells"), "\(message2)")
        // A plain layer has no emitter fields.
        guard case .error(_, let code3, _, _) = d.commit([.createLayer(id: 2, kind: .layer),
                                                          .setProperty(id: 2, keyPath: "birthRate", value: .number(2))], from: c)
        else { Issue.record("birthRate on a plain layer was accepted"); return }
        #expect(code3 == .invalidProperty)
    }

    /// `preservesDepth` set through the protocol reaches the daemon's frames: under a stage
    /// whose sublayerTransform is a perspective of d = 100 (about its anchor (100, 100)), the
    /// particles born at 0, 1 and 2 s fly straight at the viewer (emissionLatitude π/2) at 20
    /// points a second from (120, 100). At t = 2.5 they are at z = 20·age = 50, 30, 10: w = 1 −
    /// z/100, centre x = 100 + 20/w = 140, 128.6, 122.2 points, 4/w points wide, drawn back to
    /// front (unordered: by depth) — the youngest first. Cleared by a later commit, the same
    /// particles lie flat at x = 120, 4 points wide, oldest first.
    @Test func preservesDepthSetThroughTheProtocolProjectsTheParticles() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let outwards = Self.cell {
            $0.birthRate = 1; $0.lifetime = 10; $0.velocity = 20; $0.emissionLatitude = .pi / 2; $0.scale = 4
        }
        var perspective = Transform3D.identity
        perspective.m34 = -1.0 / 100
        let requests: [Request] = [
            .createLayer(id: 2, kind: .layer),
            .setProperty(id: 2, keyPath: "frame", value: .rect(Rect(0, 0, 200, 200))),
            .setProperty(id: 2, keyPath: "sublayerTransform", value: .transform(perspective)),
            .createLayer(id: 1, kind: .emitter),
            .setProperty(id: 1, keyPath: "frame", value: .rect(Rect(0, 0, 200, 200))),
            .setProperty(id: 1, keyPath: "emitterPosition", value: .point(Point(120, 100))),
            .setProperty(id: 1, keyPath: "emitterCells", value: .emitterCells([outwards])),
            .setProperty(id: 1, keyPath: "preservesDepth", value: .bool(true)),
            .addSublayer(parent: 2, child: 1), .addSublayer(parent: 0, child: 2)]
        guard case .committed = d.commit(requests, from: c) else { Issue.record("commit failed"); return }
        #expect(d.request(.getPresentation(id: 1, keyPath: "preservesDepth"), from: c) == .presentation(value: .bool(true)))
        let start = d.clock.now
        _ = d.clock.advance(by: 2.5)
        func centres() -> [(x: Double, y: Double, width: Double)] {
            d.drawList().items.filter { if case .rect = $0.kind { $0.bounds == Rect(-0.5, -0.5, 1, 1) } else { false } }
                .map { item in
                    let m = item.transform
                    return (m.m41 / m.m44, m.m42 / m.m44, m.m11 / m.m44)
                }
        }
        let deep = centres()
        #expect(deep.count == 3)
        for (got, age) in zip(deep, [0.5, 1.5, 2.5]) {
            let w = 1 - 20 * (d.clock.now - start - 2.5 + age) / 100
            #expect(abs(got.x - (100 + 20 / w)) < 1e-6 && abs(got.y - 100) < 1e-6 && abs(got.width - 4 / w) < 1e-6,
                    "age \(age): \(got)")
        }
        guard case .committed = d.commit([.setProperty(id: 1, keyPath: "preservesDepth", value: .bool(false))], from: c)
        else { Issue.record("commit failed"); return }
        let flat = centres()
        #expect(flat.count == 3 && flat.allSatisfy { abs($0.x - 120) < 1e-6 && abs($0.width - 4) < 1e-6 }, "\(flat)")
    }

    /// Reduce Motion (docs/protocol.md): from the compositor time it is turned on no particle
    /// is born — those born before live out their lifetimes —; turned off, the emitter shows
    /// its particles as if it had never stopped. Births at k/10 s, each living 10 s: on at
    /// 0.95 s, 10 squares (born 0 … 0.9) at 0.95 and still at 2.0; off at 2.0, 26 at 2.55
    /// (born 0 … 2.5).
    @Test func reduceMotionStopsBirthsAndTheBornLiveOn() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let steady = Self.cell { $0.birthRate = 10; $0.lifetime = 10; $0.velocity = 5; $0.emissionRange = .pi }
        guard case .committed = d.commit(Self.emitter([steady]), from: c) else { Issue.record("commit failed"); return }
        func squares() -> Int { d.drawList().items.filter { if case .rect = $0.kind { true } else { false } }.count }
        let start = d.clock.now
        _ = d.clock.advance(by: 0.95)
        #expect(squares() == 10)
        #expect(d.request(.setReduceMotion(true), from: c) == .reduceMotionChanged(true))
        _ = d.clock.advance(by: 2.0 - (d.clock.now - start))
        #expect(squares() == 10, "no births while Reduce Motion is on")
        #expect(d.request(.setReduceMotion(false), from: c) == .reduceMotionChanged(false))
        _ = d.clock.advance(by: 2.55 - (d.clock.now - start))
        #expect(squares() == 26, "as if it had never stopped")
    }

    @Test func theRenderLoopDrawsWhileParticlesLiveAndThenSleeps() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        // Births at 0 … 0.5 (duration), each living 1 s: the last dies at 1.5.
        let burst = Self.cell { $0.birthRate = 10; $0.lifetime = 1; $0.duration = 0.5 }
        guard case .committed = d.commit(Self.emitter([burst]), from: c) else { Issue.record("commit failed"); return }
        #expect(d.tick(10, interval: 0.1) == 10, "every interval to 1.0 draws")
        let tail = d.tick(10, interval: 0.1)   // 1.1 … 2.0
        #expect(tail >= 4 && tail <= 6, "frames until the last particle died at 1.5: \(tail)")
        #expect(d.tick(10, interval: 0.1) == 0, "asleep")
    }
}
