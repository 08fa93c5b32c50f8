import Foundation
import Lamina
import LaminaModel
import Testing
import LaminaGeometry
import DaemonTestSupport

/// `Layer.mask` in the Swift client library against a real daemon: sent as the mask's id, read
/// back as the layer object and as the daemon's presentation value; a mask in the tree is
/// refused at commit with `invalidHierarchy` naming the set, and nothing of that commit applies.
@Suite("Client masks")
struct ClientMaskTests {
    @Test func aMaskIsSentByIdAndBadOnesAreRefused() throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { c.close(); daemon.stop() }
        let layer = c.makeLayer(), inTree = c.makeLayer(), mask = c.makeLayer(.shape)
        c.root.addSublayer(layer)
        c.root.addSublayer(inTree)
        mask.bounds = Rect(0, 0, 20, 20)
        layer.mask = mask
        #expect(layer.mask === mask)
        _ = try c.commit()
        #expect(try layer.presentationValue(forKeyPath: "mask") == .number(Double(mask.id)))
        let other = c.makeLayer()
        c.root.addSublayer(other)
        other.mask = inTree
        do {
            _ = try c.commit()
            Issue.record("a mask in the tree was accepted")
        } catch let e as LaminaError {
            #expect(e.code == .invalidHierarchy)
            #expect(e.failedRequest?.key == "mask")
        }
        layer.mask = nil
        #expect(layer.mask == nil)
        _ = try c.commit()
        #expect(try layer.presentationValue(forKeyPath: "mask") == .number(0))
    }
}
