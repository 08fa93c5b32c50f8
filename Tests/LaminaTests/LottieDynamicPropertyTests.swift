import DaemonTestSupport
import Foundation
import Lamina
import LaminaLottie
import LaminaSceneTree
import LaminaWire
import Testing

/// Dynamic properties (lottie-ios' `setValueProvider` with key paths): a box in a group
/// "Group 1" whose "Fill 1" turns from red to blue over frames 0…60 while it moves x 0 → 60;
/// a key path with wildcards replaces the fill's colour from a given time while the move
/// goes on in step.
@Suite struct LottieDynamicPropertyTests {
    static let fill = #"{"ty":"fl","nm":"Fill 1","c":{"a":1,"k":[{"t":0,"s":[1,0,0,1]},{"t":60,"s":[0,0,1,1]}]},"o":{"a":0,"k":100},"r":1}"#
    static let group = #"{"ty":"gr","nm":"Group 1","it":[\#(LottieTests.square),\#(fill)]}"#
    static let file = LottieTests.file(LottieTests.shapeLayer("Box", ind: 1, ks: LottieTests.ks(
        #""p":{"a":1,"k":[{"t":0,"s":[0,100]},{"t":60,"s":[60,100]}]}"#), shapes: group))

    func values(_ s: Scene, _ arg: String, at t: Double) throws -> [Double] { try LottieTests().values(s, arg, at: t) }
    func close(_ a: [Double], _ b: [Double]) -> Bool { a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 1e-6 } }

    @Test func keyPathsMatchWithWildcards() {
        let path = ["Box", "Group 1", "Fill 1"]
        #expect(LottieImport.matches(["**", "Fill 1"], path))
        #expect(LottieImport.matches(["Box", "*", "Fill 1"], path))
        #expect(LottieImport.matches(["**"], path))
        #expect(LottieImport.matches(["Box", "**", "Group 1", "Fill 1"], path))
        #expect(!LottieImport.matches(["*", "Fill 1"], path))
        #expect(!LottieImport.matches(["Box", "Fill 1"], path))
    }

    /// Changes applied as a scene transaction at 1 s (the range time then is 1 s).
    func scene(_ keyPath: String, _ value: [Double]) throws -> Scene {
        let lottie = try LottieImport(json: try JSON.parse(Self.file), playback: LottiePlayback())
        var tx = LottiePlayer.transaction(try lottie.dynamicChanges(keyPath, value, rangeTime: 1))
        if case .object(var m) = tx { m.insert(JSON.Member(key: "at", value: .number(1)), at: 0); tx = .object(m) }
        guard case .object(var top) = lottie.scene else { throw SceneError(path: "", "no scene") }
        top.append(JSON.Member(key: "transactions", value: .array([tx])))
        return try Scene(json: JSON.object(top).text)
    }

    @Test func colourOpacityAndTransformReplaceTheirAnimationsOnly() throws {
        let s = try scene("**.Fill 1.Color", [0, 1, 0])
        // Before: the keyframed colour (frame 15: a quarter of the way from red to blue).
        #expect(close(try values(s, "Box/Fill 1.fillColor", at: 0.5), [0.75, 0, 0.25, 1]))
        #expect(close(try values(s, "Box/Fill 1.fillColor", at: 1.5), [0, 1, 0, 1]))
        #expect(close(try values(s, "Box/Fill 1.fillColor", at: 2.7), [0, 1, 0, 1]), "on the next loop too")
        #expect(close(try values(s, "Box.position.x", at: 1.5), [45]), "the move goes on in step")
        let o = try scene("Box.Group 1.Fill 1.Opacity", [50])
        #expect(close(try values(o, "Box/Fill 1.fillColor", at: 1.5), [1, 0, 0, 0.5]), "the colour the file starts with, alpha 0.5")
        let p = try scene("Box.Position", [10, 20])
        #expect(close(try values(p, "Box.position", at: 1.5), [10, 20]))
        #expect(close(try values(p, "Box/Fill 1.fillColor", at: 1.5), [0.25, 0, 0.75, 1]), "the colour keeps its animation")
        let r = try scene("*.Rotation", [90])
        #expect(close(try values(r, "Box.transform.rotation.z", at: 1.5), [Double.pi / 2]))
        #expect(throws: SceneError.self) { try scene("**.Stroke 9.Color", [1, 0, 0]) }
        #expect(throws: SceneError.self) { try scene("**.Fill 1.Color", [1]) }
    }

    @Test func setLiveThroughTheClientLibrary() throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { daemon.stop() }
        let path = try LottiePlaybackTests.temporaryFile(Self.file)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let player = try LottiePlayer(contentsOfFile: path, connection: c)
        let fill = try #require(player.scene.names["Box/Fill 1"]), box = try #require(player.scene.names["Box"])
        _ = try c.advanceClock(by: 0.5)
        try player.setValue([0, 1, 0], forKeyPath: "**.Fill 1.Color")
        _ = try c.advanceClock(by: 0.2)
        _ = try c.hitTest(Point(0, 0))
        let color = try c.presentationValue(ofLayer: fill, forKeyPath: "fillColor")
        #expect(color == .color(Color(0, 1, 0, 1)), "\(color)")
        guard case .number(let x) = try c.presentationValue(ofLayer: box, forKeyPath: "position.x") else { Issue.record("no x"); return }
        #expect(abs(x - 21) < 1e-6, "the move goes on in step: \(x)")
    }
}
