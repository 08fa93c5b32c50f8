import LaminaExpression
import Testing

@Suite struct ExpressionOrderTests {
    func key(_ s: String) -> ExpressionKey {
        let dot = s.firstIndex(of: ".")!
        return ExpressionKey(layer: String(s[..<dot]), keyPath: String(s[s.index(after: dot)...]))
    }

    /// Each expression comes after every expression it reads.
    func expectValidOrder(_ order: [Int], keys: [ExpressionKey], references: [[ExpressionKey]],
                          sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(order.sorted() == Array(keys.indices), sourceLocation: sourceLocation)
        let position = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($0.element, $0.offset) })
        for (i, refs) in references.enumerated() {
            for r in refs {
                for j in keys.indices where keys[j].overlaps(r) {
                    #expect(position[j]! < position[i]!, "\(keys[i]) reads \(keys[j])", sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test func dependenciesFirst() throws {
        // label.opacity ← slider.custom.value ← knob.position.x; clock hand reads only t.
        let keys = [key("label.opacity"), key("hand.transform.rotation.z"), key("slider.custom.value"), key("knob.position.x")]
        let references = [[key("slider.custom.value")], [], [key("knob.position.x"), key("track.bounds.size.width")], []]
        let order = try ExpressionOrder.evaluationOrder(keys: keys, references: references)
        #expect(order == [3, 2, 0, 1])
        expectValidOrder(order, keys: keys, references: references)
    }

    @Test func independentExpressionsKeepTheirOrder() throws {
        let keys = (0 ..< 5).map { key("l\($0).opacity") }
        #expect(try ExpressionOrder.evaluationOrder(keys: keys, references: Array(repeating: [], count: 5)) == [0, 1, 2, 3, 4])
        #expect(try ExpressionOrder.evaluationOrder(keys: [], references: []) == [])
    }

    @Test func keyPathsThatContainEachOther() throws {
        #expect(key("a.position").overlaps(key("a.position.x")))
        #expect(key("a.position.x").overlaps(key("a.position")))
        #expect(!key("a.position.x").overlaps(key("a.position.y")))
        #expect(!key("a.position").overlaps(key("a.positionX")))
        #expect(!key("a.position").overlaps(key("b.position")))
        let keys = [key("b.opacity"), key("a.position")]
        let order = try ExpressionOrder.evaluationOrder(keys: keys, references: [[key("a.position.x")], []])
        #expect(order == [1, 0])
    }

    @Test func cyclesAreNamed() {
        let keys = [key("a.opacity"), key("b.position.x"), key("c.opacity")]
        let references = [[key("b.position.x")], [key("c.opacity")], [key("a.opacity")]]
        do {
            _ = try ExpressionOrder.evaluationOrder(keys: keys, references: references)
            Issue.record("cycle accepted")
        } catch {
            #expect(error.keys == keys)
            #expect(error.description == "expression dependency cycle: a.opacity → b.position.x → c.opacity → a.opacity")
        }
        // Reading its own key is a cycle of one; through `self`, too.
        let own = try! AnimationExpression("self.opacity * 0.5")
        do {
            _ = try ExpressionOrder.evaluationOrder(keys: [key("a.opacity")], references: [own.dependencies(owner: "a")])
            Issue.record("self-reference accepted")
        } catch {
            #expect(error.description == "expression dependency cycle: a.opacity → a.opacity")
        }
        // A cycle after an acyclic part is still found, and named without the part before it.
        do {
            _ = try ExpressionOrder.evaluationOrder(keys: [key("x.opacity"), key("y.opacity"), key("z.opacity")],
                                                    references: [[key("y.opacity")], [key("z.opacity")], [key("y.opacity")]])
            Issue.record("cycle accepted")
        } catch {
            #expect(error.keys == [key("y.opacity"), key("z.opacity")])
        }
    }

    @Test func longChainsNeedNoRecursion() throws {
        let n = 100_000
        let keys = (0 ..< n).map { ExpressionKey(layer: "l\($0)", keyPath: "opacity") }
        let references = (0 ..< n).map { $0 + 1 < n ? [keys[$0 + 1]] : [] }
        let order = try ExpressionOrder.evaluationOrder(keys: keys, references: references)
        #expect(order == Array((0 ..< n).reversed()))
    }

    @Test func referencesFromAnimationExpressions() throws {
        let e = try AnimationExpression("lerp(self.position.x, slider.custom.value * 2, t) + slider.custom.value + knob.transform.rotation.z")
        #expect(e.readsTime)
        #expect(e.references.map(\.description) == ["self.position.x", "slider.custom.value", "knob.transform.rotation.z"])
        #expect(e.referencePositions.map(\.offset) == [5, 22, 74])
        #expect(e.dependencies(owner: "label") == [key("label.position.x"), key("slider.custom.value"), key("knob.transform.rotation.z")])
        let v = e.evaluate(time: 0.25, values: [10, 3, 0.5])
        let expected: Double = 10 + (6 - 10) * 0.25 + 3 + 0.5
        #expect(v == expected)
        let time = try AnimationExpression("t * 2 * pi")
        #expect(time.references.isEmpty && time.readsTime)
        #expect(time.evaluate(time: 0.5, values: []) == 0.5 * 2 * .pi)
    }
}
