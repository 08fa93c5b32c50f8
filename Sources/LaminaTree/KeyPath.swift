import LaminaGeometry

/// Why a property could not be read or set.
public enum PropertyError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownKeyPath(String)
    case wrongType(keyPath: String, expected: String, got: String)
    case notFinite(keyPath: String)
    case outOfRange(keyPath: String, reason: String)

    public var description: String {
        switch self {
        case .unknownKeyPath(let k): "unknown key path '\(k)'"
        case .wrongType(let k, let e, let g): "\(k): expected \(e), got \(g)"
        case .notFinite(let k): "\(k): must be finite"
        case .outOfRange(let k, let r): "\(k): \(r)"
        }
    }
}

extension LayerProperties {
    /// The model value at a Core Animation key path (`position`, `position.x`,
    /// `bounds.size.width`, `custom.phase`, …), or nil for an unknown key path.
    public func value(forKeyPath keyPath: String) -> PropertyValue? {
        switch keyPath {
        case "bounds": return .rect(bounds)
        case "bounds.origin": return .point(bounds.origin)
        case "bounds.origin.x": return .number(bounds.origin.x)
        case "bounds.origin.y": return .number(bounds.origin.y)
        case "bounds.size": return .size(bounds.size)
        case "bounds.size.width": return .number(bounds.size.width)
        case "bounds.size.height": return .number(bounds.size.height)
        case "position": return .point(position)
        case "position.x": return .number(position.x)
        case "position.y": return .number(position.y)
        case "zPosition": return .number(zPosition)
        case "anchorPoint": return .point(anchorPoint)
        case "anchorPoint.x": return .number(anchorPoint.x)
        case "anchorPoint.y": return .number(anchorPoint.y)
        case "anchorPointZ": return .number(anchorPointZ)
        case "transform": return .transform(transform)
        case "sublayerTransform": return .transform(sublayerTransform)
        case "frame": return .rect(frame)
        case "opacity": return .number(opacity)
        case "hidden": return .bool(isHidden)
        case "masksToBounds": return .bool(masksToBounds)
        case "cornerRadius": return .number(cornerRadius)
        case "maskedCorners": return .number(Double(maskedCorners.rawValue))
        case "borderWidth": return .number(borderWidth)
        case "borderColor": return .color(borderColor)
        case "backgroundColor": return .color(backgroundColor)
        case "shadowColor": return .color(shadowColor)
        case "shadowOpacity": return .number(shadowOpacity)
        case "shadowOffset": return .size(shadowOffset)
        case "shadowOffset.width": return .number(shadowOffset.width)
        case "shadowOffset.height": return .number(shadowOffset.height)
        case "shadowRadius": return .number(shadowRadius)
        case "shadowPath": return .path(shadowPath)
        case "path": return .path(path)
        case "fillColor": return .color(fillColor)
        case "fillRule": return .string(fillRule.rawValue)
        case "strokeColor": return .color(strokeColor)
        case "lineWidth": return .number(lineWidth)
        case "lineCap": return .string(lineCap.rawValue)
        case "lineJoin": return .string(lineJoin.rawValue)
        case "miterLimit": return .number(miterLimit)
        case "lineDashPattern": return .numbers(lineDashPattern)
        case "lineDashPhase": return .number(lineDashPhase)
        case "strokeStart": return .number(strokeStart)
        case "strokeEnd": return .number(strokeEnd)
        case "colors": return .colors(colors)
        case "locations": return locations.map { .numbers($0) } ?? .numbers([])
        case "startPoint": return .point(startPoint)
        case "endPoint": return .point(endPoint)
        case "gradientType": return .string(gradientType.rawValue)
        default:
            if let (sub, c) = Self.transformComponent(keyPath) {
                let t = sub ? sublayerTransform : transform
                return c.isSize ? .size(c.size(of: t)) : .number(c.number(of: t))
            }
            if keyPath.hasPrefix("custom.") {
                let name = String(keyPath.dropFirst(7))
                guard let v = custom[name] else { return nil }
                return v.count == 1 ? .number(v[0]) : .numbers(v)
            }
            return nil
        }
    }

    /// Sets the model value at a key path, checking its type and range. On error nothing changes.
    public mutating func setValue(_ value: PropertyValue, forKeyPath keyPath: String) throws(PropertyError) {
        guard value.isFinite else { throw .notFinite(keyPath: keyPath) }
        func wrong(_ expected: String) -> PropertyError {
            .wrongType(keyPath: keyPath, expected: expected, got: value.typeName)
        }
        func number() throws(PropertyError) -> Double {
            if case .number(let v) = value { return v }
            throw wrong("number")
        }
        func point() throws(PropertyError) -> Point {
            if case .point(let v) = value { return v }
            throw wrong("point")
        }
        func size() throws(PropertyError) -> Size {
            if case .size(let v) = value { return v }
            throw wrong("size")
        }
        func color() throws(PropertyError) -> Color? {
            if case .color(let v) = value { return v }
            throw wrong("color")
        }
        func transformValue() throws(PropertyError) -> Transform3D {
            if case .transform(let v) = value { return v }
            throw wrong("transform")
        }
        func bool() throws(PropertyError) -> Bool {
            if case .bool(let v) = value { return v }
            throw wrong("bool")
        }
        func pathValue() throws(PropertyError) -> Path? {
            if case .path(let v) = value { return v }
            throw wrong("path")
        }
        func named<E: RawRepresentable & CaseIterable>(_: E.Type) throws(PropertyError) -> E where E.RawValue == String {
            guard case .string(let s) = value else { throw wrong("string") }
            guard let e = E(rawValue: s) else {
                throw .outOfRange(keyPath: keyPath, reason: "must be one of \(E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
            }
            return e
        }
        func nonNegative(_ v: Double) throws(PropertyError) -> Double {
            guard v >= 0 else { throw .outOfRange(keyPath: keyPath, reason: "must be ≥ 0") }
            return v
        }
        switch keyPath {
        case "bounds":
            guard case .rect(let r) = value else { throw wrong("rect") }
            guard r.size.width >= 0, r.size.height >= 0 else {
                throw .outOfRange(keyPath: keyPath, reason: "size must be ≥ 0")
            }
            bounds = r
        case "bounds.origin": bounds.origin = try point()
        case "bounds.origin.x": bounds.origin.x = try number()
        case "bounds.origin.y": bounds.origin.y = try number()
        case "bounds.size":
            let s = try size()
            guard s.width >= 0, s.height >= 0 else { throw .outOfRange(keyPath: keyPath, reason: "must be ≥ 0") }
            bounds.size = s
        case "bounds.size.width": bounds.size.width = try nonNegative(number())
        case "bounds.size.height": bounds.size.height = try nonNegative(number())
        case "position": position = try point()
        case "position.x": position.x = try number()
        case "position.y": position.y = try number()
        case "zPosition": zPosition = try number()
        case "anchorPoint": anchorPoint = try point()
        case "anchorPoint.x": anchorPoint.x = try number()
        case "anchorPoint.y": anchorPoint.y = try number()
        case "anchorPointZ": anchorPointZ = try number()
        case "transform": transform = try transformValue()
        case "sublayerTransform": sublayerTransform = try transformValue()
        case "frame":
            // CALayer's frame setter: keeps the transform, sets bounds.size and position so the
            // untransformed frame is the given rect.
            guard case .rect(let r) = value else { throw wrong("rect") }
            let s = r.standardized
            bounds.size = s.size
            position = Point(s.origin.x + anchorPoint.x * s.size.width, s.origin.y + anchorPoint.y * s.size.height)
        case "opacity": opacity = try number()
        case "hidden": isHidden = try bool()
        case "masksToBounds": masksToBounds = try bool()
        case "cornerRadius": cornerRadius = try nonNegative(number())
        case "maskedCorners":
            let v = try number()
            guard v >= 0, v <= 15, v == v.rounded() else {
                throw .outOfRange(keyPath: keyPath, reason: "must be a corner mask 0…15")
            }
            maskedCorners = CornerMask(rawValue: UInt8(v))
        case "borderWidth": borderWidth = try nonNegative(number())
        case "borderColor": borderColor = try color()
        case "backgroundColor": backgroundColor = try color()
        case "shadowColor": shadowColor = try color()
        case "shadowOpacity": shadowOpacity = try number()
        case "shadowOffset": shadowOffset = try size()
        case "shadowOffset.width": shadowOffset.width = try number()
        case "shadowOffset.height": shadowOffset.height = try number()
        case "shadowRadius": shadowRadius = try nonNegative(number())
        case "shadowPath": shadowPath = try pathValue()
        case "path": path = try pathValue()
        case "fillColor": fillColor = try color()
        case "fillRule": fillRule = try named(FillRule.self)
        case "strokeColor": strokeColor = try color()
        case "lineWidth": lineWidth = try nonNegative(number())
        case "lineCap": lineCap = try named(LineCap.self)
        case "lineJoin": lineJoin = try named(LineJoin.self)
        case "miterLimit": miterLimit = try nonNegative(number())
        case "lineDashPattern":
            guard case .numbers(let v) = value else { throw wrong("number list") }
            guard v.allSatisfy({ $0 >= 0 }) else { throw .outOfRange(keyPath: keyPath, reason: "entries must be ≥ 0") }
            lineDashPattern = v
        case "lineDashPhase": lineDashPhase = try number()
        case "strokeStart": strokeStart = try number()
        case "strokeEnd": strokeEnd = try number()
        case "colors":
            guard case .colors(let v) = value else { throw wrong("color list") }
            colors = v
        case "locations":
            guard case .numbers(let v) = value else { throw wrong("number list") }
            locations = v.isEmpty ? nil : v
        case "startPoint": startPoint = try point()
        case "endPoint": endPoint = try point()
        case "gradientType": gradientType = try named(GradientType.self)
        default:
            if let (sub, c) = Self.transformComponent(keyPath) {
                let t = sub ? sublayerTransform : transform
                let n: Transform3D
                if c.isSize { n = c.setting(try size(), in: t) } else { n = c.setting(try number(), in: t) }
                if sub { sublayerTransform = n } else { transform = n }
                return
            }
            if keyPath.hasPrefix("custom.") {
                let name = String(keyPath.dropFirst(7))
                guard !name.isEmpty, !name.contains(".") else { throw .unknownKeyPath(keyPath) }
                switch value {
                case .number(let v): custom[name] = [v]
                case .numbers(let v): custom[name] = v
                default: throw wrong("number or number list")
                }
                return
            }
            throw .unknownKeyPath(keyPath)
        }
    }
}


extension LayerProperties {
    /// `transform.X` / `sublayerTransform.X` sub-key-paths: (is sublayerTransform, component).
    static func transformComponent(_ keyPath: String) -> (Bool, TransformComponent)? {
        if keyPath.hasPrefix("transform."), let c = TransformComponent(rawValue: String(keyPath.dropFirst(10))) {
            return (false, c)
        }
        if keyPath.hasPrefix("sublayerTransform."), let c = TransformComponent(rawValue: String(keyPath.dropFirst(18))) {
            return (true, c)
        }
        return nil
    }
}
