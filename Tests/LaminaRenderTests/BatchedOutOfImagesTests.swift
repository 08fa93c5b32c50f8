import Testing
import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaTree
import TestSupport
@testable import LaminaRender

/// A batched pass that runs out of images (`FramePlanner.maxLiveImages`): the shared pass of two
/// translucent groups, the second holding 72 overlapping translucent groups (each its own pass,
/// its image held until the shared pass is done). Past 64 live images the shared pass so far
/// moves into an image and starts again with a `.copy` of it over all of the pass (restoring
/// the first member, already drawn in its region) and a `.within` of the second member's region.
@Suite("Batched pass out of images")
struct BatchedOutOfImagesTests {
    static let size = 128

    static func scene() throws -> LayerTree {
        // Member 1 (drawn first): a translucent group at 75…115 with a sublayer.
        var changes = TestScene.layer(1, frame: Rect(75, 44, 40, 40), [("backgroundColor", .color(Color(0.1, 0.2, 0.9))),
                                                                       ("opacity", .number(0.6))])
            + TestScene.layer(2, parent: 1, frame: Rect(8, 8, 20, 20), [("backgroundColor", .color(Color(1, 1, 0)))])
        // Member 2: a translucent group at 5…55 holding 72 overlapping translucent groups.
        changes += TestScene.layer(3, frame: Rect(5, 39, 50, 50), [("backgroundColor", .color(Color(0.9, 0.9, 0.9))),
                                                                   ("opacity", .number(0.7))])
        for i in 0..<72 {
            let id = UInt32(100 + 2 * i)
            let x = Double(i % 9) * 2, y = Double(i / 9) * 2
            changes += TestScene.layer(id, parent: 3, frame: Rect(6 + x, 6 + y, 24, 24),
                                       [("backgroundColor", .color(Color(Double(i % 3) / 2, Double(i % 5) / 4, 0.5))),
                                        ("opacity", .number(0.5))])
            changes += TestScene.layer(id + 1, parent: id, frame: Rect(4, 4, 10, 10),
                                       [("backgroundColor", .color(Color(0, 0, 0)))])
        }
        return try TestScene.tree(changes)
    }

    @Test func aBatchedPassThatRunsOutOfImagesRestoresItsMembersAndEqualsUnbatchedFrames() throws {
        let list = TestScene.list(try Self.scene(), width: Double(Self.size), height: Double(Self.size))
        let batched = list.planned(batches: true), alone = list.planned(batches: false)
        // The shared pass, cut: a pass that starts again with a `.copy` followed by a `.within`
        // (the pass so far restored over all of it, the member drawn on in its region; only a
        // batched member's steps are cut to a region).
        let plan = batched.plan
        let cut = plan.passes.contains { pass in
            let steps = Array(plan.steps[pass.steps])
            return zip(steps, steps.dropFirst()).contains { a, b in
                if case .copy = a, case .within = b { true } else { false }
            }
        }
        #expect(cut, "no batched pass was cut: \(plan.passes.count) passes")
        #expect(plan.imageCount <= OffscreenRenderer.maxGroups)
        let a = try renderImage(batched).pixels
        let b = try renderImage(alone).pixels
        let differing = zip(a, b).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) bytes differ")
        // The first member's region holds it, not the white background alone (the copy restored
        // it): pixel (80, 48), its blue at 0.6 over white, is bluer than it is red.
        let p = 4 * (48 * Self.size + 80)
        #expect(Int(a[p + 2]) > Int(a[p]) + 100, "\(a[p..<(p + 4)])")
    }
}
