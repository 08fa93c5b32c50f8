import LaminaAnimation
import LaminaGeometry

/// An animatable key path resolved once (when an animation is added), so that evaluating it
/// each frame is a switch, not a string comparison.
public enum PropertySlot: Hashable, Sendable {
    case bounds, boundsOrigin, boundsOriginX, boundsOriginY, boundsSize, boundsWidth, boundsHeight
    case position, positionX, positionY, zPosition, anchorPoint, anchorPointX, anchorPointY, anchorPointZ
    case transform, sublayerTransform
    case transformComponent(TransformComponent)
    case sublayerTransformComponent(TransformComponent)
    case opacity, cornerRadius, borderWidth, borderColor, backgroundColor
    case shadowColor, shadowOpacity, shadowOffset, shadowOffsetWidth, shadowOffsetHeight, shadowRadius, shadowPath
    case path, fillColor, strokeColor, lineWidth, miterLimit, lineDashPattern, lineDashPhase, strokeStart, strokeEnd
    case colors, locations, startPoint, endPoint
    case custom(String)

    private static let table: [String: PropertySlot] = {
        var t: [String: PropertySlot] = [
            "bounds": .bounds, "bounds.origin": .boundsOrigin, "bounds.origin.x": .boundsOriginX,
            "bounds.origin.y": .boundsOriginY, "bounds.size": .boundsSize, "bounds.size.width": .boundsWidth,
            "bounds.size.height": .boundsHeight, "position": .position, "position.x": .positionX,
            "position.y": .positionY, "zPosition": .zPosition, "anchorPoint": .anchorPoint,
            "anchorPoint.x": .anchorPointX, "anchorPoint.y": .anchorPointY, "anchorPointZ": .anchorPointZ,
            "transform": .transform, "sublayerTransform": .sublayerTransform, "opacity": .opacity,
            "cornerRadius": .cornerRadius, "borderWidth": .borderWidth, "borderColor": .borderColor,
            "backgroundColor": .backgroundColor, "shadowColor": .shadowColor, "shadowOpacity": .shadowOpacity,
            "shadowOffset": .shadowOffset, "shadowOffset.width": .shadowOffsetWidth,
            "shadowOffset.height": .shadowOffsetHeight, "shadowRadius": .shadowRadius, "shadowPath": .shadowPath,
            "path": .path, "fillColor": .fillColor, "strokeColor": .strokeColor, "lineWidth": .lineWidth,
            "miterLimit": .miterLimit, "lineDashPattern": .lineDashPattern, "lineDashPhase": .lineDashPhase,
            "strokeStart": .strokeStart, "strokeEnd": .strokeEnd, "colors": .colors, "locations": .locations,
            "startPoint": .startPoint, "endPoint": .endPoint,
        ]
        for c in TransformComponent.allCases {
            t["transform." + c.rawValue] = .transformComponent(c)
            t["sublayerTransform." + c.rawValue] = .sublayerTransformComponent(c)
        }
        return t
    }()

    /// The slot of an animatable key path, or nil (unknown, or not animatable: `hidden`,
    /// `masksToBounds`, `maskedCorners`, `fillRule`, `lineCap`, `lineJoin`, `gradientType`,
    /// `frame`).
    public init?(keyPath: String) {
        if let s = Self.table[keyPath] { self = s; return }
        if keyPath.hasPrefix("custom.") {
            let name = keyPath.dropFirst(7)
            guard !name.isEmpty, !name.contains(".") else { return nil }
            self = .custom(String(name)); return
        }
        return nil
    }

    /// The value kind at this slot (custom properties: a list when the layer holds a list).
    public func kind(in p: LayerProperties) -> AnimatableValue.Kind {
        switch self {
        case .bounds: .rect
        case .boundsOrigin, .position, .anchorPoint, .startPoint, .endPoint: .point
        case .boundsSize, .shadowOffset: .size
        case .transform, .sublayerTransform: .transform
        case .transformComponent(let c), .sublayerTransformComponent(let c): c.isSize ? .size : .double
        case .borderColor, .backgroundColor, .shadowColor, .fillColor, .strokeColor: .color
        case .shadowPath, .path: .path
        case .lineDashPattern, .locations: .doubles
        case .colors: .colors
        case .custom(let name): (p.custom[name].map { $0.count != 1 } ?? false) ? .doubles : .double
        default: .double
        }
    }

    /// The key of the implicit animation a change at this slot triggers (CALayer's action
    /// key: the whole property, so `position.x` animates `position`), or nil when Core
    /// Animation does not animate the property implicitly (`path`, `shadowPath`).
    public var implicitKeyPath: String? {
        switch self {
        case .bounds, .boundsOrigin, .boundsOriginX, .boundsOriginY, .boundsSize, .boundsWidth, .boundsHeight: "bounds"
        case .position, .positionX, .positionY: "position"
        case .anchorPoint, .anchorPointX, .anchorPointY: "anchorPoint"
        case .transform, .transformComponent: "transform"
        case .sublayerTransform, .sublayerTransformComponent: "sublayerTransform"
        case .shadowOffset, .shadowOffsetWidth, .shadowOffsetHeight: "shadowOffset"
        case .path, .shadowPath: nil
        case .custom(let n): "custom." + n
        case .zPosition: "zPosition"
        case .anchorPointZ: "anchorPointZ"
        case .opacity: "opacity"
        case .cornerRadius: "cornerRadius"
        case .borderWidth: "borderWidth"
        case .borderColor: "borderColor"
        case .backgroundColor: "backgroundColor"
        case .shadowColor: "shadowColor"
        case .shadowOpacity: "shadowOpacity"
        case .shadowRadius: "shadowRadius"
        case .fillColor: "fillColor"
        case .strokeColor: "strokeColor"
        case .lineWidth: "lineWidth"
        case .miterLimit: "miterLimit"
        case .lineDashPattern: "lineDashPattern"
        case .lineDashPhase: "lineDashPhase"
        case .strokeStart: "strokeStart"
        case .strokeEnd: "strokeEnd"
        case .colors: "colors"
        case .locations: "locations"
        case .startPoint: "startPoint"
        case .endPoint: "endPoint"
        }
    }
}

extension LayerProperties {
    /// The value at an animatable slot, as an animation sees it (no color: clear; no path: empty).
    public func animatableValue(at slot: PropertySlot) -> AnimatableValue {
        switch slot {
        case .bounds: .rect(bounds)
        case .boundsOrigin: .point(bounds.origin)
        case .boundsOriginX: .double(bounds.origin.x)
        case .boundsOriginY: .double(bounds.origin.y)
        case .boundsSize: .size(bounds.size)
        case .boundsWidth: .double(bounds.size.width)
        case .boundsHeight: .double(bounds.size.height)
        case .position: .point(position)
        case .positionX: .double(position.x)
        case .positionY: .double(position.y)
        case .zPosition: .double(zPosition)
        case .anchorPoint: .point(anchorPoint)
        case .anchorPointX: .double(anchorPoint.x)
        case .anchorPointY: .double(anchorPoint.y)
        case .anchorPointZ: .double(anchorPointZ)
        case .transform: .transform(transform)
        case .sublayerTransform: .transform(sublayerTransform)
        case .transformComponent(let c): c.isSize ? .size(c.size(of: transform)) : .double(c.number(of: transform))
        case .sublayerTransformComponent(let c):
            c.isSize ? .size(c.size(of: sublayerTransform)) : .double(c.number(of: sublayerTransform))
        case .opacity: .double(opacity)
        case .cornerRadius: .double(cornerRadius)
        case .borderWidth: .double(borderWidth)
        case .borderColor: .color(borderColor ?? .clear)
        case .backgroundColor: .color(backgroundColor ?? .clear)
        case .shadowColor: .color(shadowColor ?? .clear)
        case .shadowOpacity: .double(shadowOpacity)
        case .shadowOffset: .size(shadowOffset)
        case .shadowOffsetWidth: .double(shadowOffset.width)
        case .shadowOffsetHeight: .double(shadowOffset.height)
        case .shadowRadius: .double(shadowRadius)
        case .shadowPath: .path(shadowPath ?? Path())
        case .path: .path(path ?? Path())
        case .fillColor: .color(fillColor ?? .clear)
        case .strokeColor: .color(strokeColor ?? .clear)
        case .lineWidth: .double(lineWidth)
        case .miterLimit: .double(miterLimit)
        case .lineDashPattern: .doubles(lineDashPattern)
        case .lineDashPhase: .double(lineDashPhase)
        case .strokeStart: .double(strokeStart)
        case .strokeEnd: .double(strokeEnd)
        case .colors: .colors(colors)
        case .locations: .doubles(locations ?? [])
        case .startPoint: .point(startPoint)
        case .endPoint: .point(endPoint)
        case .custom(let name):
            if let v = custom[name] { v.count == 1 ? .double(v[0]) : .doubles(v) } else { .double(0) }
        }
    }

    /// Writes an animated value (presentation only: no range checks; a value of the wrong
    /// kind is ignored).
    public mutating func setAnimatableValue(_ value: AnimatableValue, at slot: PropertySlot) {
        switch (slot, value) {
        case (.bounds, .rect(let v)): bounds = v
        case (.boundsOrigin, .point(let v)): bounds.origin = v
        case (.boundsOriginX, .double(let v)): bounds.origin.x = v
        case (.boundsOriginY, .double(let v)): bounds.origin.y = v
        case (.boundsSize, .size(let v)): bounds.size = v
        case (.boundsWidth, .double(let v)): bounds.size.width = v
        case (.boundsHeight, .double(let v)): bounds.size.height = v
        case (.position, .point(let v)): position = v
        case (.positionX, .double(let v)): position.x = v
        case (.positionY, .double(let v)): position.y = v
        case (.zPosition, .double(let v)): zPosition = v
        case (.anchorPoint, .point(let v)): anchorPoint = v
        case (.anchorPointX, .double(let v)): anchorPoint.x = v
        case (.anchorPointY, .double(let v)): anchorPoint.y = v
        case (.anchorPointZ, .double(let v)): anchorPointZ = v
        case (.transform, .transform(let v)): transform = v
        case (.sublayerTransform, .transform(let v)): sublayerTransform = v
        case (.transformComponent(let c), .double(let v)): transform = c.setting(v, in: transform)
        case (.transformComponent(let c), .size(let v)): transform = c.setting(v, in: transform)
        case (.sublayerTransformComponent(let c), .double(let v)): sublayerTransform = c.setting(v, in: sublayerTransform)
        case (.sublayerTransformComponent(let c), .size(let v)): sublayerTransform = c.setting(v, in: sublayerTransform)
        case (.opacity, .double(let v)): opacity = v
        case (.cornerRadius, .double(let v)): cornerRadius = v
        case (.borderWidth, .double(let v)): borderWidth = v
        case (.borderColor, .color(let v)): borderColor = v
        case (.backgroundColor, .color(let v)): backgroundColor = v
        case (.shadowColor, .color(let v)): shadowColor = v
        case (.shadowOpacity, .double(let v)): shadowOpacity = v
        case (.shadowOffset, .size(let v)): shadowOffset = v
        case (.shadowOffsetWidth, .double(let v)): shadowOffset.width = v
        case (.shadowOffsetHeight, .double(let v)): shadowOffset.height = v
        case (.shadowRadius, .double(let v)): shadowRadius = v
        case (.shadowPath, .path(let v)): shadowPath = v
        case (.path, .path(let v)): path = v
        case (.fillColor, .color(let v)): fillColor = v
        case (.strokeColor, .color(let v)): strokeColor = v
        case (.lineWidth, .double(let v)): lineWidth = v
        case (.miterLimit, .double(let v)): miterLimit = v
        case (.lineDashPattern, .doubles(let v)): lineDashPattern = v
        case (.lineDashPhase, .double(let v)): lineDashPhase = v
        case (.strokeStart, .double(let v)): strokeStart = v
        case (.strokeEnd, .double(let v)): strokeEnd = v
        case (.colors, .colors(let v)): colors = v
        case (.locations, .doubles(let v)): locations = v.isEmpty ? nil : v
        case (.startPoint, .point(let v)): startPoint = v
        case (.endPoint, .point(let v)): endPoint = v
        case (.custom(let name), .double(let v)): custom[name] = [v]
        case (.custom(let name), .doubles(let v)): custom[name] = v
        default: break
        }
    }
}

extension AnimatableValue {
    /// The value as a `PropertyValue` (what queries report).
    public var propertyValue: PropertyValue {
        switch self {
        case .double(let v): .number(v)
        case .point(let v): .point(v)
        case .size(let v): .size(v)
        case .rect(let v): .rect(v)
        case .color(let v): .color(v)
        case .transform(let v): .transform(v)
        case .doubles(let v): .numbers(v)
        case .colors(let v): .colors(v)
        case .path(let v): .path(v)
        }
    }
}

extension PropertyValue {
    /// The value as an animation value, or nil for kinds that do not animate (bool, string).
    /// No color becomes clear and no path an empty path.
    public var animatableValue: AnimatableValue? {
        switch self {
        case .number(let v): .double(v)
        case .point(let v): .point(v)
        case .size(let v): .size(v)
        case .rect(let v): .rect(v)
        case .color(let v): .color(v ?? .clear)
        case .transform(let v): .transform(v)
        case .numbers(let v): .doubles(v)
        case .colors(let v): .colors(v)
        case .path(let v): .path(v ?? Path())
        case .bool, .string: nil
        }
    }
}
