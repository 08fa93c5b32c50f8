import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaTree

/// Scene builders for tests that build trees and lists without a daemon (the trees', the
/// frame's and the renderer's): client 1 connected, its changes applied, layer ids client-local.
public enum TestScene {
    /// A tree (validating its own commits) with client 1 connected and `changes` applied at
    /// compositor time 0.
    public static func tree(_ changes: [LayerChange]) throws -> LayerTree {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 1, content: .operations(changes)), at: 0)
        return t
    }

    /// Creates layer `id` of `kind` under `parent` where `frame` says (bounds at the origin,
    /// position at the frame's center: the default anchor), then sets `properties` in order.
    public static func layer(_ id: UInt32, _ kind: LayerKind = .layer, parent: UInt32 = 0, frame: Rect,
                             _ properties: [(String, PropertyValue)] = []) -> [LayerChange] {
        var changes: [LayerChange] = [
            .create(id, kind), .addSublayer(parent: parent, child: id),
            .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, frame.width, frame.height))),
            .set(id, keyPath: "position", value: .point(Point(frame.midX, frame.midY))),
        ]
        for (key, value) in properties { changes.append(.set(id, keyPath: key, value: value)) }
        return changes
    }

    /// Client 1's layer `local`.
    public static func id(_ local: UInt32) -> LayerID { LayerID(client: 1, local: local) }

    /// The draw list of `tree` from a new builder (no GPU): `width × height` points at `scale`
    /// over `background` (white by default).
    /// `analyticBlurs` false: every filter group offscreen (`DrawListBuilder.drawsAnalyticBlurs`).
    public static func list(_ tree: LayerTree, width: Double = 64, height: Double = 64, scale: Double = 1,
                            background: Color = Color(1, 1, 1), analyticBlurs: Bool = true) -> DrawList {
        var builder = DrawListBuilder(widthPoints: width, heightPoints: height, scale: scale, background: background)
        builder.drawsAnalyticBlurs = analyticBlurs
        return builder.build(tree)
    }
}
