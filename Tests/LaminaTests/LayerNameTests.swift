import Foundation
import Lamina
import LaminaModel
import LaminaSceneTree
import LaminaServer
import Testing
import DaemonTestSupport

/// `name` (CALayer.name): a string every layer kind has, "" by default, at most 256 bytes of
/// UTF-8 (docs/protocol.md's property table), not animatable; listed by `getTree` when set;
/// a scene layer's `name` becomes it (docs/scene-format.md).
@Suite(.serialized) struct LayerNameTests {
    /// 128 × "é" (2 bytes each) is 256 bytes; 86 × "€" (3 bytes each) is 258 bytes in 86
    /// characters: the limit counts bytes, not characters.
    static let longest = String(repeating: "é", count: 128)
    static let tooLong = String(repeating: "€", count: 86)

    @Test func theModelKeepsANameOfAtMost256Bytes() throws {
        var p = LayerProperties()
        #expect(p.name == "" && p.value(forKeyPath: "name") == .string(""))
        try p.setValue(.string("knob"), forKeyPath: "name")
        #expect(p.name == "knob" && p.value(forKeyPath: "name") == .string("knob"))
        try p.setValue(.string(Self.longest), forKeyPath: "name")
        #expect(Self.longest.utf8.count == 256 && p.name == Self.longest)
        #expect(Self.tooLong.utf8.count == 258 && Self.tooLong.count == 86)
        #expect(throws: PropertyError.outOfRange(keyPath: "name", reason: "must be at most 256 bytes of UTF-8 (got 258)")) {
            try p.setValue(.string(Self.tooLong), forKeyPath: "name")
        }
        #expect(p.name == Self.longest, "a refused value changes nothing")
        #expect(throws: PropertyError.wrongType(keyPath: "name", expected: "string", got: "number")) {
            try p.setValue(.number(1), forKeyPath: "name")
        }
        // Every kind has it; it does not animate (not even implicitly).
        let row = try #require(PropertyTable.row("name"))
        #expect(LayerKind.allCases.allSatisfy { row.layers.contains($0) } && !row.animates && !row.implicitAction)
        #expect(PropertySlot(keyPath: "name") == nil)
    }

    static func tree(_ c: Connection) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(try c.treeJSON().utf8)) as? [String: Any]
        return object?["layers"] as? [[String: Any]] ?? []
    }

    @Test func aClientNamesItsLayersAndGetTreeListsTheNames() async throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "names")
        let named = c.makeLayer(), plain = c.makeLayer(), shape = c.makeShapeLayer()
        named.name = "card \"one\"\n"        // escaped in the JSON
        shape.name = Self.longest
        for l in [named, plain, shape] { c.root.addSublayer(l) }
        try await c.commit()
        let layers = try Self.tree(c)
        func entry(_ l: Layer) -> [String: Any]? { layers.first { $0["id"] as? String == "\(c.clientID):\(l.id)" } }
        #expect(entry(named)?["name"] as? String == "card \"one\"\n")
        #expect(entry(shape)?["name"] as? String == Self.longest)
        #expect(entry(plain) != nil && entry(plain)?["name"] == nil, "no name: no member")
        #expect(try await named.presentationValue(forKeyPath: "name") == .string("card \"one\"\n"))

        // Over the limit: invalidValue at commit naming the set; nothing of it applies.
        named.name = Self.tooLong
        do {
            try await c.commit()
            Issue.record("a 258-byte name was accepted")
        } catch let e as LaminaError {
            #expect(e.code == .invalidValue && e.failedRequest?.key == "name")
        }
        #expect(named.name == "card \"one\"\n", "the local model keeps what the daemon has")
        #expect(try Self.tree(c).first { $0["id"] as? String == "\(c.clientID):\(named.id)" }?["name"] as? String
                == "card \"one\"\n")

        // A name set inside an animating transaction just changes (no animation).
        try await c.transaction(duration: 1) { named.name = "renamed" }
        try await c.commit()
        #expect(try await named.presentationValue(forKeyPath: "name") == .string("renamed"))
    }

    @Test func aScenesLayerNamesBecomeTheirNameProperty() throws {
        let scene = try Scene(json: #"""
            {"layers": [{"name": "box", "frame": [0, 0, 10, 10],
                         "sublayers": [{"frame": [1, 1, 2, 2]}, {"name": "dot", "type": "shape"}]}]}
            """#)
        let tree = try scene.tree(at: 0)
        #expect(tree[try #require(scene.layerID(named: "box"))]?.properties.name == "box")
        #expect(tree[try #require(scene.layerID(named: "dot"))]?.properties.name == "dot")
        #expect(tree[LayerID(client: Scene.client, local: 2)]?.properties.name == "")
        #expect(try scene.query(["box.name"], at: 0) == .object([JSON.Member(key: "box.name", value: .string("box"))]))

        // Loaded into a daemon (`laminactl load`): getTree lists them.
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "scene")
        try ScenePlayer(scene: scene, connection: c).loadAndPlay()
        let names = try Self.tree(c).filter { ($0["owner"] as? Int) == Int(c.clientID) }.map { $0["name"] as? String }
        #expect(names == [nil, "box", nil, "dot"])    // the client's container, box, its unnamed sublayer, dot
    }

    @Test func sceneNamesKeepToTheLimitAndTransactionsCannotRenameLayers() {
        func error(_ text: String) -> String? {
            do { _ = try Scene(json: text); return nil } catch { return error.description }
        }
        let longest = "{\"layers\": [{\"name\": \"\(Self.longest)\"}]}"
        #expect(error(longest) == nil)
        #expect(error("{\"layers\": [{\"name\": \"\(Self.tooLong)\"}]}") == "layers[0].name: must be at most 256 bytes of UTF-8")
        #expect(error(#"{"layers": [{"name": "a"}], "transactions": [{"at": 1, "set": {"a.name": "b"}}]}"#)
                == "transactions[0].set.a.name: a layer's name is its scene name, set in the layer (not by a transaction)")
    }
}
