import Foundation
import LaminaGeometry
import Testing

// Expected parts come from how the matrices are built (CATransform3D row-vector order:
// a.concatenating(b) applies a first): scale, then rotation, then translation decomposes
// into exactly those parts; a rotation by θ about a unit axis n is the quaternion
// (sin(θ/2)·n, cos(θ/2)).

func close(_ a: Transform3D, _ b: Transform3D, _ tol: Double = 1e-9) -> Bool {
    zip(a.rowMajor, b.rowMajor).allSatisfy { abs($0 - $1) <= tol }
}

@Test func scaleRotateTranslateRoundTrip() throws {
    let axis = Vector3(1, 2, 3).normalized
    let m = Transform3D.scale(2, 3, 4).concatenating(.rotation(0.7, 1, 2, 3)).concatenating(.translation(10, 20, 30))
    let d = try #require(m.decomposed())
    #expect(abs(d.scale.x - 2) < 1e-12 && abs(d.scale.y - 3) < 1e-12 && abs(d.scale.z - 4) < 1e-12)
    #expect(d.translation == Vector3(10, 20, 30))
    #expect(d.skew.length < 1e-12)
    #expect(d.perspective == Vector4(0, 0, 0, 1))
    let q = d.rotation, s = sin(0.35)
    #expect(abs(q.x - s * axis.x) < 1e-12 && abs(q.y - s * axis.y) < 1e-12 && abs(q.z - s * axis.z) < 1e-12)
    #expect(abs(q.w - cos(0.35)) < 1e-12)
    #expect(close(d.recomposed(), m))
}

@Test func skewAndPerspectiveRoundTrip() throws {
    // skewX(0.3): row 2 = (tan 0.3, 1, 0) → XY shear tan 0.3, unit scale, no rotation.
    let k = try #require(Transform3D.skewX(0.3).decomposed())
    #expect(abs(k.skew.x - tan(0.3)) < 1e-12 && abs(k.skew.y) < 1e-12 && abs(k.skew.z) < 1e-12)
    #expect(abs(k.scale.x - 1) < 1e-12 && abs(k.scale.y - 1) < 1e-12)
    #expect(close(k.recomposed(), .skewX(0.3)))
    // perspective(500): m34 = −1/500 → perspective column (0, 0, −0.002, 1).
    let p = try #require(Transform3D.perspective(500).decomposed())
    #expect(abs(p.perspective.z + 0.002) < 1e-15 && p.perspective.w == 1)
    // Everything at once.
    let all = Transform3D.skewY(0.2).concatenating(.scale(1.5, 0.5, 2)).concatenating(.rotation(2.5, 0, 1, 1))
        .concatenating(.translation(-4, 7, 1)).concatenating(.perspective(800))
    // Here m44 = 1 + t.z·(−1/800) ≠ 1: decomposition normalizes by m44, so the round trip
    // gives the same projective transform scaled to m44 = 1.
    let normalized = Transform3D(rowMajor: all.rowMajor.map { $0 / all.m44 })!
    #expect(close(try #require(all.decomposed()).recomposed(), normalized))
}

@Test func reflectionsAndHalfTurnsRoundTrip() throws {
    for m in [Transform3D.scale(-1, 1, 1), .scale(-2, -3, 1), .rotation(.pi, 1, -1, 0), .rotation(.pi, 0, 0, 1),
              Transform3D.rotation(.pi, 0, 1, 0).concatenating(.translation(3, 4, 5))] {
        #expect(close(try #require(m.decomposed()).recomposed(), m, 1e-9))
    }
}

@Test func m44IsNormalizedAway() throws {
    var m = Transform3D.translation(4, 6, 0)
    m = Transform3D(rowMajor: m.rowMajor.map { $0 * 2 })!
    let d = try #require(m.decomposed())
    #expect(d.translation == Vector3(4, 6, 0))
}

@Test func nonDecomposableFallsBackToADiscreteSwitch() {
    // A zero scale flattens space: no decomposition; interpolation switches at ½ (CSS).
    let flat = Transform3D.scale(0, 1, 1)
    #expect(flat.decomposed() == nil)
    var zero44 = Transform3D.identity; zero44.m44 = 0
    #expect(zero44.decomposed() == nil)
    let b = Transform3D.translation(10, 0)
    #expect(flat.interpolated(to: b, 0.49) == flat)
    #expect(flat.interpolated(to: b, 0.5) == b)
}

@Test func rotationInterpolatesBySlerpAlongTheShorterArc() throws {
    // 0 → 90° about z at ½: 45°.
    #expect(close(Transform3D.identity.interpolated(to: .rotation(.pi / 2), 0.5), .rotation(.pi / 4), 1e-12))
    // 0.2 → −0.2 rad: 0 at ½.
    #expect(close(Transform3D.rotation(0.2).interpolated(to: .rotation(-0.2), 0.5), .identity, 1e-12))
    // 170° → −170° goes through 180° (20° apart), not through 0.
    let mid = Transform3D.rotation(170 * .pi / 180).interpolated(to: .rotation(-170 * .pi / 180), 0.5)
    #expect(close(mid, .rotation(.pi), 1e-9))
    // Translation and scale interpolate linearly alongside.
    let a = Transform3D.scale(1, 1).concatenating(.translation(0, 0))
    let b = Transform3D.scale(3, 5).concatenating(.rotation(.pi / 2)).concatenating(.translation(10, 20))
    let m = a.interpolated(to: b, 0.5)
    let expected = Transform3D.scale(2, 3).concatenating(.rotation(.pi / 4)).concatenating(.translation(5, 10))
    #expect(close(m, expected, 1e-12))
}

@Test func quaternionSlerpEndpointsAndIdentity() {
    let q = Quaternion(angle: 1.2, axis: Vector3(0, 1, 0))
    let r = Quaternion.identity.slerp(to: q, 1)
    #expect(abs(r.y - q.y) < 1e-12 && abs(r.w - q.w) < 1e-12)
    #expect(Quaternion.identity.slerp(to: q, 0) == .identity)
}
