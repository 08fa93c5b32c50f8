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
