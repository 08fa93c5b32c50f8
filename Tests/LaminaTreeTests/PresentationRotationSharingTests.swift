import LaminaAnimation
import LaminaGeometry
@testable import LaminaTree
import Testing
import LaminaModel

/// The fast path's z rotations (`Rotation2D`): layers whose model transform has unit scales
/// and no translation share one record of constants; the others keep their own. Either way
/// the values are the general path's (`presentationProperties(of:at:)`), exactly.
@Suite struct PresentationRotationSharingTests {
    @Test func unitRotationsShareOneRecordAndKeepTheirValues() throws {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        let n: UInt32 = 12
        var setup: [LayerChange] = [.setTransaction(TransactionSettings(duration: 0))]
        for i in 1...n {
            // Identity (unit; animated as `transform.rotation.z` or as `transform.rotation`),
            // a scale and a translation (their own records).
            let transform: Transform3D = switch i % 4 {
            case 0, 1: .identity
            case 2: .scale(2, 0.5, 1)
            default: .translation(3, -4, 0)
            }
            setup += [.create(i, .layer), .addSublayer(parent: 0, child: i),
                      .set(i, keyPath: "transform", value: .transform(transform))]
        }
        try t.apply(Commit(client: 1, content: .operations(setup)), at: 0)
        var animations: [LayerChange] = []
        for i in 1...n {
            animations.append(.addAnimation(i, key: "spin", animation: .basic(BasicAnimation(
                keyPath: i % 4 == 1 ? "transform.rotation" : "transform.rotation.z", from: .double(-Double(i)), to: .double(2 * Double(i)),
                timing: AnimationTiming(duration: 1 + Double(i) / 10, repeatCount: .infinity)))))
        }
        try t.apply(Commit(client: 1, content: .operations(animations)), at: 0)
        var presentation = LayerTree()
        var time = 0.0
        for frame in 0..<30 {
            time += 0.037
            t.updatePresentation(&presentation, at: time)
            for i in 1...n {
                let id = LayerID(client: 1, local: i)
                #expect(presentation[id]?.properties == t.presentationProperties(of: id, at: time), "layer \(i)")
            }
            if frame == 0 {
                let plan = try #require(presentation.presentationPlan)
                #expect(plan.fastRuns.allSatisfy { if case .rotation2D = $0.lanes { true } else { false } })
                // 6 unit layers (i % 4 of 0 and 1) share one; 3 scaled and 3 translated have their own.
                #expect(plan.rotations.count == 1 + 6)
                #expect(plan.rotations.filter(\.isUnit).count == 1)
            }
        }
    }
}
