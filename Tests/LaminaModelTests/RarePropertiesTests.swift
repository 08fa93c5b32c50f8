import LaminaGeometry
import LaminaModel
import Testing

/// The rarely set properties live in one copy-on-write box (`LayerProperties.Rare`,
/// generated): values must behave as if every field were stored inline — defaults as in
/// `Properties.table`, value semantics on copies, equality and hashing by value whether or not
/// a box was made.
@Suite struct RarePropertiesTests {
    @Test func boxedFieldsReadTheTableDefaultsWithoutABox() {
        let p = LayerProperties()
        // Properties.table's defaults (Core Animation's).
        #expect(p.path == nil)
        #expect(p.fillColor == .black)
        #expect(p.lineWidth == 1)
        #expect(p.miterLimit == 10)
        #expect(p.strokeEnd == 1)
        #expect(p.startPoint == Point(0.5, 0))
        #expect(p.fontSize == 36)
        #expect(p.contentsRect == Rect(0, 0, 1, 1))
        #expect(p.sublayerTransform == .identity)
        #expect(p.shadowOffset == Size(0, -3))
        #expect(p.shadowRadius == 3)
        #expect(p.borderColor == .black)
    }

    @Test func aCopyIsIndependentOfTheOriginal() {
        var a = LayerProperties()
        a.lineWidth = 4
        var b = a               // shares the box
        b.lineWidth = 7         // copies it
        b.shadowRadius = 9
        #expect(a.lineWidth == 4)
        #expect(a.shadowRadius == 3)
        #expect(b.lineWidth == 7)
        #expect(b.shadowRadius == 9)
        a.strokeEnd = 0.5
        #expect(b.strokeEnd == 1)
    }

    @Test func aBoxOfDefaultsEqualsNoBoxAndHashesAlike() {
        let plain = LayerProperties()
        var boxed = LayerProperties()
        boxed.miterLimit = 3
        #expect(boxed != plain)
        boxed.miterLimit = 10      // back to the default: the box stays, the value is equal
        #expect(boxed == plain)
        #expect(boxed.hashValue == plain.hashValue)
        var other = LayerProperties()
        other.fillColor = Color(1, 0, 0)
        #expect(other != plain)
        #expect(Set([plain, boxed, other]).count == 2)
    }
}
