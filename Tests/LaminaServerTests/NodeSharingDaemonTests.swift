import Foundation
import Lamina
import LaminaPNG
import LaminaServer
import Testing
import TestSupport
import DaemonTestSupport

/// The idle sharing of the model's nodes (ServerCore+Sharing.swift) in the real daemon: its
/// server and render threads, the poll that wakes for it, the heap trim after it. What the
/// clients see must not change: frames, values and other clients' layers before and after.
@Suite(.serialized) struct NodeSharingDaemonTests {
    /// Long enough for the server to share an idle model (ServerCore.nodeSharingDelay).
    static func idle() { usleep(UInt32((ServerCore.nodeSharingDelay + 0.4) * 1_000_000)) }

    @Test func framesAndValuesAreTheSameAcrossIdleSharing() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "scene")
        try DaemonTests.buildScene(c)
        let scene = try DaemonTests.capture(c)
        Self.idle()
        #expect(try DaemonTests.capture(c) == scene)
        // Another client's layers come and go while the first one's are shared.
        let other = try Connection(socketPath: daemon.socketPath, name: "other")
        let square = other.makeLayer()
        square.frame = Rect(0, 0, 10, 10)
        square.backgroundColor = Color(1, 1, 1)
        other.root.addSublayer(square)
        try other.commit()
        Self.idle()
        let withOther = try DaemonTests.capture(c)
        DaemonTests.expectPixel(withOther, 5, 5, (255, 255, 255))
        DaemonTests.expectPixel(withOther, 100, 30, (255, 0, 0))
        other.close()
        Self.idle()
        #expect(try DaemonTests.capture(c) == scene)
        // A commit after sharing: drawn, and its value read back.
        let white = c.makeLayer()
        white.frame = Rect(150, 10, 20, 20)
        white.backgroundColor = Color(1, 1, 1)
        c.setDisableActions(true)
        c.root.addSublayer(white)
        try c.commit()
        let after = try DaemonTests.capture(c)
        DaemonTests.expectPixel(after, 160, 20, (255, 255, 255))
        DaemonTests.expectPixel(after, 100, 30, (255, 0, 0))
        #expect(try white.presentationValue(forKeyPath: "position") == .point(Point(160, 20)))
        Self.idle()
        #expect(try DaemonTests.capture(c) == after)
    }
}
