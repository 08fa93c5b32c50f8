import LaminaAnimation
import LaminaGeometry
import Testing

/// The key paths tests use and their kinds (what LaminaTree's key path table answers).
func kindOf(_ keyPath: String) -> AnimatableValue.Kind? {
    switch keyPath {
    case "opacity", "position.x", "custom.v", "transform.rotation.z", "strokeEnd": .double
    case "position": .point
    case "bounds.size": .size
    case "bounds": .rect
    case "backgroundColor": .color
    case "transform": .transform
    case "path": .path
    case "lineDashPattern": .doubles
    case "colors": .colors
    default: nil
    }
}

func compiled(_ a: Animation) throws -> CompiledAnimation { try a.compile(kindOf: kindOf) }

/// A basic 0 → 10 animation of opacity (the value is ten times the eased progress).
func ramp(_ timing: AnimationTiming) -> Animation {
    .basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(10), timing: timing))
}

/// The double value of the first key path at t, or nil (no effect).
func double(_ c: CompiledAnimation, _ t: Double, underlying: Double = 100) -> Double? {
    guard case .double(let v)? = c.value(forKeyPathAt: 0, at: t, underlying: .double(underlying)) else { return nil }
    return v
}

func near(_ a: Double?, _ b: Double?, _ tolerance: Double = 1e-9) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case let (x?, y?): return abs(x - y) <= tolerance
    default: return false
    }
}

func near(_ a: Point, _ b: Point, _ tolerance: Double = 1e-9) -> Bool {
    abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance
}

func compileError(_ a: Animation) -> String? {
    do { _ = try a.compile(kindOf: kindOf); return nil } catch { return error.description }
}
