/// `compositingFilter` (CALayer): how a layer, composited with its sublayers as one group,
/// blends with what lies beneath it inside its superlayer. Core Animation's names: the W3C
/// Compositing and Blending Level 1 modes (source-over compositing on sRGB-encoded values),
/// and `plusLighter` / `plusDarker` on premultiplied values. `normalBlendMode` (null in scene
/// files) is plain source-over.
public enum BlendMode: String, Hashable, Sendable, CaseIterable {
    case normalBlendMode, multiplyBlendMode, screenBlendMode, overlayBlendMode, darkenBlendMode, lightenBlendMode, colorDodgeBlendMode, colorBurnBlendMode, softLightBlendMode, hardLightBlendMode, differenceBlendMode, exclusionBlendMode, hueBlendMode, saturationBlendMode, colorBlendMode, luminosityBlendMode, plusLighter, plusDarker

    /// The mode's number in the blend shader (`shaders/blend.frag`): its place in `allCases`.
    public var index: Int {
        switch self {
        case .normalBlendMode: 0
        case .multiplyBlendMode: 1
        case .screenBlendMode: 2
        case .overlayBlendMode: 3
        case .darkenBlendMode: 4
        case .lightenBlendMode: 5
        case .colorDodgeBlendMode: 6
        case .colorBurnBlendMode: 7
        case .softLightBlendMode: 8
        case .hardLightBlendMode: 9
        case .differenceBlendMode: 10
        case .exclusionBlendMode: 11
        case .hueBlendMode: 12
        case .saturationBlendMode: 13
        case .colorBlendMode: 14
        case .luminosityBlendMode: 15
        case .plusLighter: 16
        case .plusDarker: 17
        }
    }

    /// The mode of number `index` (normal for one out of range).
    public init(index: Int) {
        self = index >= 0 && index < Self.allCases.count ? Self.allCases[index] : .normalBlendMode
    }
}
