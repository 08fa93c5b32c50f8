import LaminaGeometry
@testable import LaminaExpression
import Testing

/// The value of an EXPR over named inputs.
func value(_ source: String, _ names: [String] = [], _ values: [Double] = []) throws -> Double {
    try CompiledExpression(source, inputs: names).evaluate(values)
}

/// The error compiling `source` as a template, or nil.
func templateError(_ source: String, inputs: [String] = [], limits: ExpressionLimits = .default) -> ExpressionError? {
    do { _ = try PathTemplate(source, inputs: inputs, limits: limits); return nil } catch { return error }
}

/// Element-by-element comparison with a tolerance on every coordinate.
func expectSamePath(_ actual: Path, _ expected: Path, tolerance: Double = 1e-9,
                    sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(actual.elements.count == expected.elements.count,
            "element counts \(actual.elements.count) and \(expected.elements.count)", sourceLocation: sourceLocation)
    for (i, (a, e)) in zip(actual.elements, expected.elements).enumerated() {
        let same: Bool
        switch (a, e) {
        case (.move(let p), .move(let q)), (.line(let p), .line(let q)): same = close(p, q, tolerance)
        case (.quad(let p1, let p2), .quad(let q1, let q2)): same = close(p1, q1, tolerance) && close(p2, q2, tolerance)
        case (.cubic(let p1, let p2, let p3), .cubic(let q1, let q2, let q3)):
            same = close(p1, q1, tolerance) && close(p2, q2, tolerance) && close(p3, q3, tolerance)
        case (.close, .close): same = true
        default: same = false
        }
        #expect(same, "element \(i): \(a) against \(e)", sourceLocation: sourceLocation)
        if !same { return }
    }
}

func close(_ p: Point, _ q: Point, _ tolerance: Double) -> Bool {
    abs(p.x - q.x) <= tolerance && abs(p.y - q.y) <= tolerance
}
