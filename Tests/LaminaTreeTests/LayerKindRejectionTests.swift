import LaminaAnimation
import LaminaGeometry
import LaminaTree
import Testing
import LaminaModel

/// A property that a layer's kind lacks is rejected by the trees like any bad operation: the
/// whole commit fails with an error naming the key path and the kind.
@Suite struct LayerKindRejectionTests {
    func tree(tracksAnimations: Bool) throws -> LayerTree {
        // Commits are validated once, by the model tree (`ModelTree`), whichever tree applies them.
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 1, content: .operations([
            .create(1, .layer), .create(2, .shape), .create(3, .gradient),
            .addSublayer(parent: 0, child: 1), .addSublayer(parent: 0, child: 2), .addSublayer(parent: 0, child: 3),
        ])))
        return t
    }

    func rejection(_ t: inout LayerTree, _ ops: [LayerChange]) -> CommitError? {
        do { try t.apply(Commit(client: 1, content: .operations(ops)), at: 0); return nil } catch { return error }
    }

    static func fade(_ keyPath: String) -> Animation {
        .basic(BasicAnimation(keyPath: keyPath, from: .double(0), to: .double(1), timing: AnimationTiming(duration: 1)))
    }

    @Test(arguments: [false, true]) func setOfAnotherKindsPropertyFailsTheCommit(tracksAnimations: Bool) throws {
        var t = try tree(tracksAnimations: tracksAnimations)
        let before = t[LayerID(client: 1, local: 1)]
        let cases: [(UInt32, String, PropertyValue, String)] = [
            (1, "fillColor", .color(.white), "fillColor: not a property of a layer of type layer"),
            (3, "strokeEnd", .number(0.5), "strokeEnd: not a property of a layer of type gradient"),
            (2, "startPoint.x", .number(0), "startPoint.x: not a property of a layer of type shape"),
            (1, "colors", .colors([.white]), "colors: not a property of a layer of type layer"),
        ]
        for (layer, keyPath, value, message) in cases {
            let e = rejection(&t, [.set(1, keyPath: "opacity", value: .number(0.5)), .set(layer, keyPath: keyPath, value: value)])
            #expect(e == CommitError(code: .invalidProperty, index: 1, message: message))
        }
        #expect(t[LayerID(client: 1, local: 1)] == before)   // nothing of the failed commits applied
        // The right kinds take them.
        #expect(rejection(&t, [.set(2, keyPath: "fillColor", value: .color(.white)),
                               .set(3, keyPath: "startPoint.x", value: .number(0)),
                               .set(1, keyPath: "opacity", value: .number(0.5))]) == nil)
    }

    @Test(arguments: [false, true]) func animationOfAnotherKindsPropertyFailsTheCommit(tracksAnimations: Bool) throws {
        var t = try tree(tracksAnimations: tracksAnimations)
        let e = rejection(&t, [.addAnimation(3, key: "draw", animation: Self.fade("strokeEnd"))])
        #expect(e == CommitError(code: .invalidAnimation, index: 0,
                                 message: "animation 'draw': strokeEnd: not a property of a layer of type gradient"))
        // Inside a group too.
        let group = Animation.group(AnimationGroup(animations: [Self.fade("opacity"), Self.fade("lineWidth")]))
        #expect(rejection(&t, [.addAnimation(1, key: "g", animation: group)])?.message
                == "animation 'g': lineWidth: not a property of a layer of type layer")
        #expect(t[LayerID(client: 1, local: 1)]?.animations.isEmpty == true)
        #expect(rejection(&t, [.addAnimation(2, key: "draw", animation: Self.fade("strokeEnd")),
                               .addAnimation(1, key: "g", animation: Self.fade("opacity"))]) == nil)
    }
}
