import Foundation
import Testing
import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaTree
import TestSupport
@testable import LaminaRender
import LaminaModel

/// Replicator layers under damage-limited drawing: frames drawn with damage (each redraws its
/// damage over the previous one) equal, byte for byte, the same frames drawn whole, while a
/// replicated dot animates, the instanceTransform animates, the tint changes and the count
/// changes — and a static layer elsewhere keeps the damage partial.
@Suite("Replicator damage")
struct ReplicatorDamageTests {
    @Test func damageLimitedReplicatorFramesEqualFullRedraws() throws {
        let size = 96
        var model = ModelTree()
        var driver = FrameDriver(widthPoints: Double(size), heightPoints: Double(size), scale: 1,
                                 background: Color(0.2, 0.2, 0.25), targetFPS: 60)
        func packet(_ ops: [LayerChange]) throws -> CommitPacket {
            try model.validate(Commit(client: 1, content: .operations(ops)), at: 0)
        }
        var timing = AnimationTiming(duration: 1); timing.timingFunction = .linear
        let scene = TestScene.layer(1, .replicator, frame: Rect(4, 4, 50, 50), [
            ("instanceCount", .number(8)), ("instanceTransform", .transform(.rotation(.pi / 4))),
            ("instanceAlphaOffset", .number(-0.1)), ("instanceColor", .color(Color(1, 0.8, 0.6, 1))),
        ]) + TestScene.layer(2, parent: 1, frame: Rect(21, 2, 8, 12), [
            ("backgroundColor", .color(Color(0.2, 0.9, 0.4))), ("cornerRadius", .number(3)),
        ]) + TestScene.layer(3, frame: Rect(70, 70, 20, 20), [("backgroundColor", .color(Color(1, 0, 0)))])
        var pending = [try model.validate(Commit(client: 1, content: .connect)), try packet(scene)]
        pending.append(try packet([.addAnimation(2, key: "bob", animation: .basic(BasicAnimation(
            keyPath: "position.y", from: .double(8), to: .double(14), timing: timing)))]))
        try expectDamageLimitedFramesEqualFullRedraws(&driver, size: size, frames: 12, initial: pending,
                                                      label: "replicator", before: { frame in
            switch frame {
            case 3: [try packet([.addAnimation(1, key: "turn", animation: .basic(BasicAnimation(
                keyPath: "instanceTransform.rotation.z", from: .double(.pi / 4), to: .double(.pi / 3), timing: timing)))])]
            case 6: [try packet([.setTransaction(TransactionSettings(disableActions: true)),
                                 .set(1, keyPath: "instanceBlueOffset", value: .number(-0.2))])]
            case 9: [try packet([.set(1, keyPath: "instanceCount", value: .number(5))])]
            default: []
            }
        })
    }
}
