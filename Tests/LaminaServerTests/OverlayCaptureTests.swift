import Foundation
import Lamina
import LaminaPNG
import LaminaRender
import LaminaServer
import Synchronization
import Testing
import TestSupport
import DaemonTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The viewer's overlays are the compositor's own: with the inspector (a layer hovered and
/// pinned), the blended-layers view and the HUD on, a client's capture — of the frame's time
/// or of another — has the bytes of the same capture with them off, and no client hears of
/// the inspector's pointer.
@Suite(.serialized) struct OverlayCaptureTests {
    @Test func capturesNeverIncludeTheOverlays() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "overlay-test")
        defer { c.close() }
        try DaemonScene.build(c)
        final class Heard: Sendable { let count = Mutex(0) }
        let heard = Heard()
        c.onPointer = { _ in heard.count.withLock { $0 += 1 } }
        let plain = try PNG.decode(c.capture().png)
        let plainLater = try PNG.decode(c.capture(at: 5).png)
        let hit = try #require(daemon.renderLoop.snapshot?.hitTest(Point(100, 30)), "layer A is under (100, 30)")
        daemon.renderLoop.setOverlay(OverlaySettings(hud: true, inspector: true, blendedLayers: true))
        daemon.renderLoop.setInspectorPointer(Point(100, 30))
        daemon.renderLoop.setInspectorPinned(hit)
        for _ in 0..<3 {
            #expect(try PNG.decode(c.capture().png).pixels == plain.pixels, "a capture of the frame's time")
        }
        #expect(try PNG.decode(c.capture(at: 5).png).pixels == plainLater.pixels, "a capture of another time")
        daemon.renderLoop.setOverlay(OverlaySettings())
        #expect(try PNG.decode(c.capture().png).pixels == plain.pixels)
        usleep(100_000)
        #expect(heard.count.withLock { $0 } == 0)
    }
}

/// The names the inspector's labels show: each connected client's `hello` name, by client id.
@Suite struct ClientNamesTests {
    @Test func clientNamesAreTheHelloNamesOfTheConnectedClients() throws {
        let d = EmbeddedDaemon()
        let a = try #require(d.connect(name: "alpha"))
        let b = try #require(d.connect(name: ""))
        #expect(d.core.clientNames == [a: "alpha", b: ""])
        let c = try #require(d.connect(name: "gamma", hello: false))
        #expect(d.core.clientNames[c] == "", "no hello yet: no name")
        d.hangUp(a)
        #expect(d.core.clientNames[a] == nil && d.core.clientNames[b] == "")
    }
}

/// The process the inspector's label names: the peer's pid from `SO_PEERCRED` and its name
/// from /proc, here this test process at both ends of a socket pair.
@Suite struct PeerProcessTests {
    @Test func thePeerProcessIsThisProcess() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let comm = try String(contentsOfFile: "/proc/self/comm", encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(UnixSocket.peerProcess(fds[0]) == "\(comm) pid \(getpid())")
        #expect(UnixSocket.peerProcess(-1) == nil)
    }
}
