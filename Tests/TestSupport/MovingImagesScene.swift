import LaminaAnimation
import LaminaGeometry
import LaminaImage
import LaminaModel

/// Layers showing images that move, turn, scale and fade (issue 30: the image mix's layers,
/// whose contents a patch used to re-emit every frame): contents placed by each gravity, cut by
/// a contentsRect, nine-sliced by a contentsCenter, cut by a square masksToBounds, under a
/// background, before a border, after an analytic shadow (a shadowPath: a layer with contents
/// and no path casts a blurred one), with each filter, from the small-image atlas and from a
/// texture of its own; layer 20 shows an image and holds four of them.
public enum MovingImagesScene {
    /// The layers animated: 1 to 24 (21–24 in layer 20).
    public static let ids: ClosedRange<UInt32> = 1...24

    /// "photo" (96 × 64, the benchmark's size: a smooth ramp with a checker, so that a texel
    /// off shows), "frame" (12 × 12: a border two texels wide) and "big" (300 × 200: past the
    /// small-image atlas), opaque and premultiplied.
    public static func images() -> [String: Image] {
        func image(_ w: Int, _ h: Int, _ texel: (Int, Int) -> (UInt8, UInt8, UInt8)) -> Image {
            var pixels: [UInt8] = []
            pixels.reserveCapacity(w * h * 4)
            for y in 0..<h {
                for x in 0..<w {
                    let (r, g, b) = texel(x, y)
                    pixels += [r, g, b, 255]
                }
            }
            return Image(width: w, height: h, premultipliedPixels: pixels)
        }
        return [
            "photo": image(96, 64) { x, y in
                (UInt8(x * 255 / 95), UInt8(y * 255 / 63), (x / 8 + y / 8) % 2 == 0 ? 230 : 40)
            },
            "frame": image(12, 12) { x, y in
                x < 2 || y < 2 || x > 9 || y > 9 ? (250, 200, 30) : (20, 60, UInt8(120 + 10 * x))
            },
            "big": image(300, 200) { x, y in (UInt8(x % 256), UInt8((x + y) % 256), UInt8(y % 256)) },
        ]
    }

    /// The layers, in a `width` × `height` point area.
    public static func layers(width: Double, height: Double) -> [LayerChange] {
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
        let columns = 6
        for i in ids {
            let parent: UInt32 = i > 20 ? 20 : 0
            let k = Int(i) - 1
            let x = (Double(k % columns) + 0.5) * width / Double(columns)
            let y = (Double(k / columns) + 0.5) * height / 4
            ops += [.create(i, .layer), .addSublayer(parent: parent, child: i),
                    .set(i, keyPath: "bounds", value: .rect(Rect(0, 0, 24, 16))),
                    .set(i, keyPath: "position", value: .point(parent == 0 ? Point(x, y) : Point(Double(i - 20) * 6, 12))),
                    .set(i, keyPath: "contents", value: .string(i % 6 == 4 ? "big" : i % 6 == 2 ? "frame" : "photo"))]
            switch i % 6 {
            case 0:
                ops += [.set(i, keyPath: "contentsGravity", value: .string("resizeAspectFill")),
                        .set(i, keyPath: "masksToBounds", value: .bool(true))]
            case 1:
                ops += [.set(i, keyPath: "contentsRect", value: .rect(Rect(0.25, 0.1, 0.5, 0.6))),
                        .set(i, keyPath: "backgroundColor", value: .color(Color(0.9, 0.3, 0.2)))]
            case 2:
                ops += [.set(i, keyPath: "contentsCenter", value: .rect(Rect(0.25, 0.25, 0.5, 0.5))),
                        .set(i, keyPath: "magnificationFilter", value: .string("nearest"))]
            case 3:
                ops += [.set(i, keyPath: "contentsGravity", value: .string("center")),
                        .set(i, keyPath: "shadowOpacity", value: .number(0.6)),
                        .set(i, keyPath: "shadowRadius", value: .number(2)),
                        .set(i, keyPath: "shadowOffset", value: .size(Size(1.5, 2))),
                        .set(i, keyPath: "shadowPath", value: .path(.rect(Rect(0, 0, 24, 16))))]
            case 4:
                ops += [.set(i, keyPath: "contentsGravity", value: .string("resizeAspect")),
                        .set(i, keyPath: "minificationFilter", value: .string("trilinear")),
                        .set(i, keyPath: "borderWidth", value: .number(1)),
                        .set(i, keyPath: "borderColor", value: .color(Color(1, 1, 1, 0.8)))]
            default:
                ops += [.set(i, keyPath: "contentsGravity", value: .string("topLeft")),
                        .set(i, keyPath: "contentsScale", value: .number(2))]
            }
        }
        return ops
    }

    /// The benchmark's motion on layer `id`: position, rotation and opacity (a few layers also
    /// scale); every one repeats forever.
    public static func motion(_ id: UInt32) -> [LayerChange] {
        func animation(_ key: String, _ keyPath: String, _ from: Double, _ to: Double, _ duration: Double) -> LayerChange {
            var timing = AnimationTiming(duration: duration)
            timing.repeatCount = .infinity
            timing.autoreverses = true
            return .addAnimation(id, key: key, animation: .basic(BasicAnimation(keyPath: keyPath, from: .double(from),
                                                                                 to: .double(to), timing: timing)))
        }
        var ops = [animation("move", "position.x", 20, id > 20 ? 60 : 200, 0.9 + Double(id % 3) * 0.2),
                   animation("spin", "transform.rotation.z", 0, Double(id % 5) + 1, 1.3),
                   animation("fade", "opacity", 1, 0.3, 0.7)]
        if id % 4 == 1 { ops.append(animation("grow", "transform.scale", 0.5, 2.2, 1.1)) }
        return ops
    }
}
