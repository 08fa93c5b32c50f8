import LaminaGeometry
import LaminaModel
import LaminaWire

/// Text measurement (docs/protocol.md, "Text measurement"): the size a string needs, laid out
/// as a text layer with the same `font`, `fontSize` and `isWrapped` lays it out, so a client
/// can size layers around text before making them.
extension Connection {
    /// The size `text` needs in points: the widest line's width and the lines' height. With a
    /// `width`, lines wrap at it (as `isWrapped`); with nil, each paragraph is one line.
    /// `text` may be styled runs (each run's own font, size). A bad size or width is a
    /// `malformed` `requestFailed` naming the field.
    public func measureText(_ text: StyledText, font: String = "sans-serif", fontSize: Double = 36,
                            width: Double? = nil) throws -> Size {
        try Self.measured(link.roundTrip(takeStaged(), Self.measureRequest(text, font, fontSize, width)))
    }

    nonisolated(nonsending) public func measureText(_ text: StyledText, font: String = "sans-serif", fontSize: Double = 36,
                                                    width: Double? = nil) async throws -> Size {
        try Self.measured(await link.roundTrip(takeStaged(), Self.measureRequest(text, font, fontSize, width)))
    }

    private static func measureRequest(_ text: StyledText, _ font: String, _ size: Double, _ width: Double?) -> Request {
        .measureText(text: text, font: font, fontSize: size, width: width)
    }

    private static func measured(_ e: Event) throws(LaminaError) -> Size {
        guard case .textMeasured(let w, let h) = e else { throw LaminaError.protocolViolation("expected textMeasured, got \(e)") }
        return Size(w, h)
    }
}
