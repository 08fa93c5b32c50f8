import LaminaAnimation
import LaminaGeometry
import Testing
import LaminaModel

/// The key paths, defaults, value types, animation and layer kinds of docs/protocol.md's
/// property table, checked against what the generated code does. The expectations are
/// written from the document (and Core Animation's defaults), not from the table.
@Suite struct PropertyTableTests {
    /// (key path, default read back, a different legal value) per documented key path.
    static let documented: [(String, PropertyValue, PropertyValue)] = [
        ("bounds", .rect(Rect(0, 0, 0, 0)), .rect(Rect(1, 2, 3, 4))),
        ("bounds.origin", .point(Point(0, 0)), .point(Point(5, 6))),
        ("bounds.size", .size(Size(0, 0)), .size(Size(7, 8))),
        ("bounds.origin.x", .number(0), .number(-2)), ("bounds.origin.y", .number(0), .number(3)),
        ("bounds.size.width", .number(0), .number(9)), ("bounds.size.height", .number(0), .number(10)),
        ("position", .point(Point(0, 0)), .point(Point(11, 12))),
        ("position.x", .number(0), .number(13)), ("position.y", .number(0), .number(14)),
        ("zPosition", .number(0), .number(2)),
        ("anchorPoint", .point(Point(0.5, 0.5)), .point(Point(0, 1))),
        ("anchorPoint.x", .number(0.5), .number(1)), ("anchorPoint.y", .number(0.5), .number(0)),
        ("anchorPointZ", .number(0), .number(4)),
        ("transform", .transform(.identity), .transform(.translation(1, 2, 3))),
        ("sublayerTransform", .transform(.identity), .transform(.perspective(500))),
        ("opacity", .number(1), .number(0.25)),
        ("hidden", .bool(false), .bool(true)), ("masksToBounds", .bool(false), .bool(true)),
        ("cornerRadius", .number(0), .number(6)),
        ("maskedCorners", .number(15), .number(5)),
        ("borderWidth", .number(0), .number(2)),
        ("borderColor", .color(Color(0, 0, 0, 1)), .color(nil)),
        ("backgroundColor", .color(nil), .color(Color(1, 0, 0, 1))),
        ("shadowColor", .color(Color(0, 0, 0, 1)), .color(Color(0, 0, 1, 0.5))),
        ("shadowOpacity", .number(0), .number(0.5)), ("shadowRadius", .number(3), .number(8)),
        ("shadowOffset", .size(Size(0, -3)), .size(Size(2, 2))),
        ("shadowOffset.width", .number(0), .number(4)), ("shadowOffset.height", .number(-3), .number(5)),
        ("shadowPath", .path(nil), .path(.rect(Rect(0, 0, 5, 5)))),
        ("path", .path(nil), .path(.ellipse(in: Rect(0, 0, 4, 4)))),
        ("fillColor", .color(Color(0, 0, 0, 1)), .color(nil)),
        ("fillRule", .string("nonZero"), .string("evenOdd")),
        ("strokeColor", .color(nil), .color(Color(0, 1, 0, 1))),
        ("lineWidth", .number(1), .number(3)), ("miterLimit", .number(10), .number(4)),
        ("lineCap", .string("butt"), .string("round")), ("lineJoin", .string("miter"), .string("bevel")),
        ("lineDashPattern", .numbers([]), .numbers([2, 1])),
        ("lineDashPhase", .number(0), .number(1)), ("strokeStart", .number(0), .number(0.2)),
        ("strokeEnd", .number(1), .number(0.8)),
        ("colors", .colors([]), .colors([.black, .white])),
        ("locations", .numbers([]), .numbers([0, 1])),
        ("startPoint", .point(Point(0.5, 0)), .point(Point(0, 0))),
        ("endPoint", .point(Point(0.5, 1)), .point(Point(1, 1))),
        ("gradientType", .string("axial"), .string("conic")),
    ]
    static let notAnimatable = ["hidden", "masksToBounds", "maskedCorners", "fillRule", "lineCap", "lineJoin",
                                "gradientType", "frame"]
    static let shapeOnly = ["path", "fillColor", "fillRule", "strokeColor", "lineWidth", "lineCap", "lineJoin",
                            "miterLimit", "lineDashPattern", "lineDashPhase", "strokeStart", "strokeEnd"]
    static let gradientOnly = ["colors", "locations", "startPoint", "endPoint", "gradientType"]

    @Test func everyDocumentedKeyPathReadsItsDefaultAndWritesAValue() throws {
        for (keyPath, initial, value) in Self.documented {
            var p = LayerProperties()
            #expect(p.value(forKeyPath: keyPath) == initial, "\(keyPath) default")
            try p.setValue(value, forKeyPath: keyPath)
            #expect(p.value(forKeyPath: keyPath) == value, "\(keyPath) after set")
        }
    }

    @Test func transformComponentsReadAndWriteUnderBothTransforms() throws {
        for base in ["transform", "sublayerTransform"] {
            var p = LayerProperties()
            try p.setValue(.number(0.5), forKeyPath: base + ".rotation.z")
            try p.setValue(.number(2), forKeyPath: base + ".scale.x")
            try p.setValue(.size(Size(7, 8)), forKeyPath: base + ".translation")
            // M = scale(2, 1, 1) · rotation(0.5 about z) then translation (7, 8): row vectors.
            let expected = Transform3D.scale(2, 1, 1).concatenating(.rotation(0.5, 0, 0, 1)).concatenating(.translation(7, 8, 0))
            guard case .transform(let m)? = p.value(forKeyPath: base) else { Issue.record("no \(base)"); continue }
            for (a, b) in zip(m.rowMajor, expected.rowMajor) { #expect(abs(a - b) < 1e-12, "\(base)") }
            #expect(p.value(forKeyPath: base + ".translation.y") == .number(8))
        }
    }

    @Test func rangeRulesAreTheDocumentsOnes() {
        var p = LayerProperties()
        for keyPath in ["cornerRadius", "borderWidth", "shadowRadius", "lineWidth", "miterLimit",
                        "bounds.size.width", "bounds.size.height"] {
            #expect(throws: PropertyError.outOfRange(keyPath: keyPath, reason: "must be ≥ 0")) {
                try p.setValue(.number(-1), forKeyPath: keyPath)
            }
        }
        #expect(throws: PropertyError.outOfRange(keyPath: "bounds", reason: "size must be ≥ 0")) {
            try p.setValue(.rect(Rect(0, 0, 1, -1)), forKeyPath: "bounds")
        }
        #expect(throws: PropertyError.outOfRange(keyPath: "lineDashPattern", reason: "entries must be ≥ 0")) {
            try p.setValue(.numbers([1, -1]), forKeyPath: "lineDashPattern")
        }
        #expect(throws: PropertyError.outOfRange(keyPath: "maskedCorners", reason: "must be a corner mask 0…15")) {
            try p.setValue(.number(16), forKeyPath: "maskedCorners")
        }
        #expect(throws: PropertyError.outOfRange(keyPath: "fillRule", reason: "must be one of \"nonZero\", \"evenOdd\"")) {
            try p.setValue(.string("odd"), forKeyPath: "fillRule")
        }
        #expect(throws: PropertyError.wrongType(keyPath: "opacity", expected: "number", got: "bool")) {
            try p.setValue(.bool(true), forKeyPath: "opacity")
        }
        // Unrestricted ones take negative numbers.
        for keyPath in ["opacity", "zPosition", "position.x", "lineDashPhase", "strokeStart", "shadowOpacity"] {
            #expect(throws: Never.self) { try p.setValue(.number(-1), forKeyPath: keyPath) }
        }
    }

    @Test func animatableKeyPathsAndTheirImplicitActions() {
        for (keyPath, _, _) in Self.documented where !Self.notAnimatable.contains(keyPath) {
            #expect(PropertySlot(keyPath: keyPath) != nil, "\(keyPath) animates")
        }
        for keyPath in Self.notAnimatable { #expect(PropertySlot(keyPath: keyPath) == nil, "\(keyPath)") }
        let actions: [(String, String?)] = [
            ("position.x", "position"), ("bounds.size.width", "bounds"), ("bounds.origin", "bounds"),
            ("transform.rotation.z", "transform"), ("sublayerTransform.scale", "sublayerTransform"),
            ("shadowOffset.height", "shadowOffset"), ("opacity", "opacity"), ("fillColor", "fillColor"),
            ("locations", "locations"), ("custom.level", "custom.level"), ("path", nil), ("shadowPath", nil),
        ]
        for (keyPath, action) in actions {
            #expect(PropertySlot(keyPath: keyPath)?.implicitKeyPath == action, "\(keyPath)")
        }
    }

    @Test func layerKindsOfEachProperty() throws {
        for (keyPath, _, _) in Self.documented {
            let base = String(keyPath.prefix { $0 != "." })
            let kinds: [LayerKind] = Self.shapeOnly.contains(base) ? [.shape]
                : Self.gradientOnly.contains(base) ? [.gradient] : LayerKind.allCases
            for kind in LayerKind.allCases {
                if kinds.contains(kind) {
                    #expect(throws: Never.self) { try PropertyTable.check(keyPath: keyPath, kind: kind) }
                } else {
                    #expect(throws: PropertyError.notAProperty(keyPath: keyPath, kind: kind)) {
                        try PropertyTable.check(keyPath: keyPath, kind: kind)
                    }
                }
            }
        }
        for keyPath in ["frame", "custom.level", "transform.rotation.x"] {
            for kind in LayerKind.allCases { #expect(throws: Never.self) { try PropertyTable.check(keyPath: keyPath, kind: kind) } }
        }
        #expect(PropertyError.notAProperty(keyPath: "fillColor", kind: .layer).description
                == "fillColor: not a property of a layer of type layer")
        #expect(PropertyTable.row("strokeEnd")?.layers.names == "shape")
        #expect(PropertyTable.row("opacity")?.layers == .all)
        #expect(PropertyTable.row("position.x") == nil && PropertyTable.keyPaths["position.x"]?.type == .number)
    }
}
