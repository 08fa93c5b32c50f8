/// A staged request of a surface layer (docs/protocol.md, Surfaces). Committed with the
/// transaction's layer changes (`Commit.surfaceOperations`) and applied in the same frame.
public enum SurfaceOperation: Hashable, Sendable {
    /// Shows `buffer` (0: none) in surface layer `layer`; `damage` (buffer pixels) says what
    /// changed since the buffer shown before (empty: all of it).
    case attach(layer: UInt32, buffer: UInt32, damage: [DamageRect])
    /// Asks for `frameDone(id)` once the frame showing this commit is made.
    case frameCallback(UInt32)
    /// Asks for `presented(id)` (or discarded) about this commit's content.
    case presentationFeedback(UInt32)

    /// Its request's opcode (error details).
    public var opcode: UInt16 {
        switch self { case .attach: 0x1B; case .frameCallback: 0x1C; case .presentationFeedback: 0x1D }
    }
    public var layer: UInt32 { if case .attach(let l, _, _) = self { l } else { 0 } }
}

/// A damaged rectangle in buffer pixels.
public struct DamageRect: Hashable, Sendable {
    public var x: Int32, y: Int32, width: UInt32, height: UInt32
    public init(x: Int32, y: Int32, width: UInt32, height: UInt32) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}
