import LaminaWire

/// A surface layer (`type: "surface"`): it shows pixels the client draws into shared memory
/// (docs/protocol.md, Surfaces).
public final class SurfaceLayer: Layer {}
