import Foundation
import Lamina
import LaminaServer
import LaminaWire
import Testing
import DaemonTestSupport

/// The client library's typed layers (generated accessors) and the kind check, through a real
/// daemon; and the kind check in scene files.
@Suite(.serialized) struct TypedLayerTests {
    @Test func shapeAndGradientAccessorsStageTheirProperties() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath)
        let shape = c.makeShapeLayer()
        shape.path = .ellipse(in: Rect(0, 0, 40, 20))
        shape.fillColor = nil
        shape.strokeColor = Color(0, 1, 0)
        shape.lineWidth = 3
        shape.lineCap = .round
        shape.lineDashPattern = [4, 2]
        shape.strokeEnd = 0.5
        let gradient = c.makeGradientLayer()
        gradient.colors = [Color(1, 0, 0), Color(0, 0, 1)]
        gradient.locations = [0.25, 0.75]
        gradient.startPoint = Point(0, 0)
        gradient.gradientType = .conic
        let plain = c.makeLayer()
        plain.maskedCorners = [.minXMinY]
        c.root.addSublayer(shape); c.root.addSublayer(gradient); c.root.addSublayer(plain)
        try c.commit()
        let expected: [(Layer, String, PropertyValue)] = [
            (shape, "path", .path(.ellipse(in: Rect(0, 0, 40, 20)))), (shape, "fillColor", .color(nil)),
            (shape, "strokeColor", .color(Color(0, 1, 0))), (shape, "lineWidth", .number(3)),
            (shape, "lineCap", .string("round")), (shape, "lineDashPattern", .numbers([4, 2])),
            (shape, "strokeEnd", .number(0.5)),
            (gradient, "colors", .colors([Color(1, 0, 0), Color(0, 0, 1)])), (gradient, "locations", .numbers([0.25, 0.75])),
            (gradient, "startPoint", .point(Point(0, 0))), (gradient, "gradientType", .string("conic")),
            (plain, "maskedCorners", .number(1)),
        ]
        for (layer, keyPath, value) in expected {
            #expect(try layer.presentationValue(forKeyPath: keyPath) == value, "\(keyPath)")
        }
        #expect(c.makeLayer(.shape) is ShapeLayer && c.makeLayer(.gradient) is GradientLayer)
        // The client checks the kind as the daemon does.
        #expect(throws: PropertyError.notAProperty(keyPath: "fillColor", kind: .layer)) {
            try plain.setValue(.color(nil), forKeyPath: "fillColor")
        }
    }

    /// An emitter layer's typed accessors (`EmitterLayer`, cells as `EmitterCell` values)
    /// through a real daemon and back; a client-side kind check for the emitter rows.
    @Test func emitterAccessorsStageTheirCells() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath)
        let emitter = c.makeEmitterLayer()
        var spark = EmitterCell(name: "spark")
        spark.birthRate = 12; spark.lifetime = 2; spark.color = Color(1, 0.5, 0, 1)
        var trail = EmitterCell(name: "trail")
        trail.birthRate = 3; trail.scaleSpeed = -0.5
        spark.emitterCells = [trail]
        emitter.emitterCells = [spark]
        emitter.emitterShape = .rectangle
        emitter.renderMode = .additive
        emitter.emitterSize = Size(40, 20)
        emitter.seed = 9
        emitter.preservesDepth = true
        c.root.addSublayer(emitter)
        try c.commit()
        #expect(emitter.preservesDepth)
        #expect(try emitter.presentationValue(forKeyPath: "preservesDepth") == .bool(true))
        #expect(try emitter.presentationValue(forKeyPath: "emitterCells") == .emitterCells([spark]))
        #expect(try emitter.presentationValue(forKeyPath: "renderMode") == .string("additive"))
        #expect(try emitter.presentationValue(forKeyPath: "seed") == .number(9))
        #expect(c.makeLayer(.emitter) is EmitterLayer)
        #expect(throws: PropertyError.notAProperty(keyPath: "birthRate", kind: .layer)) {
            try c.makeLayer().setValue(.number(2), forKeyPath: "birthRate")
        }
    }

    /// A replicator layer's typed accessors (`ReplicatorLayer`) through a real daemon and back,
    /// and a client-side kind check for the replicator rows.
    @Test func replicatorAccessorsReachTheDaemon() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath)
        let spinner = c.makeReplicatorLayer()
        spinner.bounds = Rect(0, 0, 100, 100)
        spinner.instanceCount = 12
        spinner.instanceDelay = 0.1
        spinner.instanceTransform = .rotation(Double.pi / 6)
        spinner.instanceColor = Color(1, 0.5, 0, 1)
        spinner.instanceAlphaOffset = -0.07
        spinner.preservesDepth = true
        let dot = c.makeLayer()
        dot.bounds = Rect(0, 0, 8, 8)
        dot.position = Point(50, 10)
        spinner.addSublayer(dot)
        c.root.addSublayer(spinner)
        try c.commit()
        #expect(try spinner.presentationValue(forKeyPath: "instanceCount") == .number(12))
        #expect(try spinner.presentationValue(forKeyPath: "instanceDelay") == .number(0.1))
        #expect(try spinner.presentationValue(forKeyPath: "instanceTransform") == .transform(.rotation(Double.pi / 6)))
        #expect(try spinner.presentationValue(forKeyPath: "instanceColor") == .color(Color(1, 0.5, 0, 1)))
        #expect(try spinner.presentationValue(forKeyPath: "instanceAlphaOffset") == .number(-0.07))
        #expect(try spinner.presentationValue(forKeyPath: "preservesDepth") == .bool(true))
        #expect(c.makeLayer(.replicator) is ReplicatorLayer)
        #expect(throws: PropertyError.notAProperty(keyPath: "instanceCount", kind: .layer)) {
            try c.makeLayer().setValue(.number(2), forKeyPath: "instanceCount")
        }
    }

    /// A text layer takes a plain `String` (`text`): one run in the layer's own style, read
    /// back as the same string, committed and reported by the daemon as that string.
    @Test func aTextLayerTakesAPlainString() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath)
        let label = c.makeTextLayer()
        let title = ["Status", "board"].joined(separator: " ")   // a variable, not a literal
        label.text = title
        #expect(label.string == StyledText("Status board"))
        #expect(label.string.runs.count == 1 && label.string.runs[0].font == nil)
        #expect(label.text == "Status board")
        c.root.addSublayer(label)
        try c.commit()
        let value = try label.presentationValue(forKeyPath: "string")
        // One run with no style of its own goes on the wire as a plain string (VALUE tag 8).
        #expect(value == .string("Status board"), "\(value)")
    }

    /// `Connection.transaction` has an async form: awaited, the transaction is committed when
    /// it returns (the daemon answers a presentation query with the committed value).
    @Test func anAwaitedTransactionIsCommitted() async throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath)
        let layer = c.makeLayer()
        try await c.transaction(disableActions: true) {
            layer.frame = Rect(10, 20, 30, 40)
            c.root.addSublayer(layer)
        }
        let value = try await layer.presentationValue(forKeyPath: "bounds")
        #expect(value == .rect(Rect(0, 0, 30, 40)))
    }

    /// A missing image file is said to be one, naming it, before anything is sent.
    @Test func aMissingImageFileIsNamed() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath)
        let path = "/nonexistent-\(getpid())/photo.png"
        #expect(throws: LaminaError.fileUnreadable(path: path, reason: "no such file")) {
            _ = try c.uploadImage(contentsOfFile: path)
        }
        #expect(try c.ping() >= 0)   // the connection is as it was
    }

    @Test func theDaemonRejectsAnotherKindsProperty() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath)
        let plain = c.makeLayer()
        c.root.addSublayer(plain)
        try c.commit()
        c.stageOperation(.set(plain.id, keyPath: "fillColor", value: .color(nil)))
        do {
            try c.commit()
            Issue.record("the commit should have been rejected")
        } catch LaminaError.requestFailed(_, let code, let message, _) {
            #expect(code == .invalidProperty)
            #expect(message.contains("fillColor: not a property of a layer of type layer"))
        }
    }

    func error(_ text: String) -> String? {
        do { _ = try Scene(json: text); return nil } catch { return error.description }
    }

    @Test func sceneFilesRejectAnotherKindsProperty() {
        #expect(error(##"{"layers": [{"type": "shape", "colors": ["#fff"]}]}"##)
                == "layers[0].colors: only gradient layers have this property")
        #expect(error(#"{"layers": [{"position.x": 3}]}"#) == "layers[0].position.x: unknown field")
        #expect(error(##"{"layers": [{"name": "box"}], "transactions": [{"at": 1, "set": {"box.fillColor": "#fff"}}]}"##)
                == "transactions[0].set.box.fillColor: not a property of a layer of type layer")
        #expect(error(#"{"layers": [{"name": "g", "type": "gradient"}], "transactions": [{"set": {"g.startPoint.x": 1}}]}"#) == nil)
        #expect(error(#"""
            {"layers": [{"type": "gradient", "animations": {"draw": {"type": "basic", "keyPath": "strokeEnd", "from": 0, "to": 1}}}]}
            """#) == "layers[0].animations.draw: strokeEnd: not a property of a layer of type gradient")
    }
}
