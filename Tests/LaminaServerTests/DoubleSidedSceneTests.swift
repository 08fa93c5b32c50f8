import Foundation
import Lamina
import LaminaPNG
import LaminaRender
import LaminaServer
import Testing
import LaminaSceneTree
import DaemonTestSupport

/// `doubleSided` in scene files and through the client library: a card turned by π about y
/// shows its back mirrored, or nothing when it is single-sided.
@Suite(.serialized) struct DoubleSidedSceneTests {
    /// Pixel (x, y) of the scene at time 0: a white 64×64 canvas, a 32×32 card centred at
    /// (32, 32) whose left half is red and right half blue, turned by π about y.
    func pixel(doubleSided: Bool, _ x: Int, _ y: Int) throws -> (UInt8, UInt8, UInt8, UInt8) {
        let scene = try Scene(json: """
        {"size": [64, 64], "background": "#ffffff", "layers": [
          {"name": "card", "bounds": [0, 0, 32, 32], "position": [32, 32], "backgroundColor": "#0000ff",
           "transform": [{"rotateY": \(Double.pi)}], "doubleSided": \(doubleSided),
           "sublayers": [{"bounds": [0, 0, 16, 32], "position": [8, 16], "backgroundColor": "#ff0000"}]}
        ]}
        """)
        #expect(try scene.tree(at: 0)[scene.layerID(named: "card")!]?.properties.isDoubleSided == doubleSided)
        let compositor = try HeadlessCompositor(widthPoints: 64, heightPoints: 64, scale: 1, background: scene.background)
        let pixels = try compositor.render(try scene.tree(at: 0).presentation(at: 0))
        return RGBAImage(width: compositor.pixelWidth, height: compositor.pixelHeight, pixels: pixels)[x, y]
    }

    @Test func aTurnedCardInASceneFile() throws {
        #expect(try pixel(doubleSided: true, 40, 32) == (255, 0, 0, 255))   // red, mirrored to the right
        #expect(try pixel(doubleSided: true, 24, 32) == (0, 0, 255, 255))
        #expect(try pixel(doubleSided: false, 40, 32) == (255, 255, 255, 255))
        #expect(try pixel(doubleSided: false, 24, 32) == (255, 255, 255, 255))
    }

    @Test func theClientLibrarySetsIt() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath)
        let card = c.makeLayer()
        #expect(card.isDoubleSided)
        card.isDoubleSided = false
        c.root.addSublayer(card)
        try c.commit()
        #expect(try card.presentationValue(forKeyPath: "doubleSided") == .bool(false))
    }
}
