import LaminaExpression
import LaminaGeometry

/// A path template bound to one layer property (`path` or `shadowPath`): its source and its
/// compiled form (LaminaExpression's `PathTemplate`). Made once where commits are validated;
/// immutable and shared by the model, render and presentation trees.
public final class LayerTemplate: Hashable, Sendable, CustomStringConvertible {
    public let source: String
    /// Compiled against exactly the custom properties it reads (`inputNames`), in that order.
    public let template: PathTemplate

    /// Compiles `source` for a layer whose custom properties are `customNames`.
    /// - Throws: `ExpressionError` naming the position and the reason.
    public init(_ source: String, customNames: [String], limits: ExpressionLimits = .default) throws(ExpressionError) {
        self.source = source
        // Compiled against every custom name first to learn which it reads, then again
        // against those only, so that a frame gathers no value it does not use.
        let all = try PathTemplate(source, inputs: customNames.sorted(), limits: limits)
        let read = all.inputNamesRead
        template = read.count == all.inputNames.count ? all : try PathTemplate(source, inputs: read, limits: limits)
    }

    /// The custom property names the template reads, in the order it takes their values.
    public var inputNames: [String] { template.inputNames }

    public static func == (a: LayerTemplate, b: LayerTemplate) -> Bool {
        a === b || (a.source == b.source && a.template.inputNames == b.template.inputNames
                    && a.template.limits == b.template.limits)
    }
    public func hash(into h: inout Hasher) { h.combine(source) }
    public var description: String { "template(\(source.debugDescription))" }
}

/// A layer's path templates (none by default). A template's output is what the
/// presentation tree holds at the key path; setting a plain path there removes the template.
public struct LayerTemplates: Hashable, Sendable {
    public var path: LayerTemplate?
    public var shadowPath: LayerTemplate?

    public init(path: LayerTemplate? = nil, shadowPath: LayerTemplate? = nil) {
        self.path = path; self.shadowPath = shadowPath
    }

    public var isEmpty: Bool { path == nil && shadowPath == nil }
}

extension LayerProperties {
    /// Compiles `source` as the template of `keyPath` (`path` or `shadowPath`) against the
    /// layer's custom properties as they are now (a template reads custom properties that
    /// exist when it is set: set them first). The plain path at `keyPath` becomes nil.
    /// - Throws: `PropertyError.outOfRange` with the position and reason
    ///   (`path: template line 2, column 9 (offset 18): unknown name 'bar'`), or
    ///   `unknownKeyPath` for any other key path.
    public mutating func setTemplate(_ source: String, forKeyPath keyPath: String,
                                     limits: ExpressionLimits = .default) throws(PropertyError) {
        guard keyPath == "path" || keyPath == "shadowPath" else {
            throw .wrongType(keyPath: keyPath, expected: "value of its own type (templates serve path and shadowPath)",
                             got: "path template")
        }
        let compiled: LayerTemplate
        do {
            compiled = try LayerTemplate(source, customNames: Array(custom.keys), limits: limits)
        } catch {
            var reason = "template \(error.description)"
            if error.kind == .unknownName {
                reason += " (a template reads rect.…, pi and the layer's custom properties, which must be set before it)"
            }
            throw .outOfRange(keyPath: keyPath, reason: reason)
        }
        if keyPath == "path" {
            templates.path = compiled; path = nil
        } else {
            templates.shadowPath = compiled; shadowPath = nil
        }
    }

    /// Removes the template of `keyPath` (a plain value was set there).
    package mutating func clearTemplate(forKeyPath keyPath: String) {
        guard !templates.isEmpty else { return }
        if keyPath == "path" { templates.path = nil } else if keyPath == "shadowPath" { templates.shadowPath = nil }
    }

    /// A custom property as a template or expression reads it: its number, the first of a
    /// list (NaN for an empty list), 0 when the layer has none.
    @inline(__always)
    package func customNumber(_ name: String) -> Double {
        guard let v = custom[name] else { return 0 }
        return v.first ?? .nan
    }
}
