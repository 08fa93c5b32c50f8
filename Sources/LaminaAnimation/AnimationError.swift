/// Why an animation was rejected when it was compiled. `field` is the path of the offending
/// field inside the animation (`duration`, `keyTimes`, `animations[1].mass`,
/// `tracks.opacity[2].duration`); the scene loader prefixes its own JSON path.
public struct AnimationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var field: String
    public var message: String

    public init(field: String, _ message: String) { self.field = field; self.message = message }

    /// `field: message`, e.g. `duration: must be ≥ 0`.
    public var description: String { "\(field): \(message)" }

    /// The same error with `prefix` put in front of its field (`animations[2]` + `duration`).
    public func prefixed(_ prefix: String) -> AnimationError {
        let joined = field.isEmpty ? prefix : (field.hasPrefix("[") ? prefix + field : prefix + "." + field)
        return AnimationError(field: joined, message)
    }
}
