import Foundation
import LaminaGeometry
import LaminaRender
import LaminaTree
import LaminaModel

/// `lamina-bench tree share [--layers N]`: what sharing an idle model's nodes with the render
/// side's costs (ModelTree+Sharing.swift), with N (50,000) of the memory bench's plain layers:
/// - `shareMs`: `ModelTree.shareNodes(with:)` (the content check and the swap), as the server
///   runs it once the daemon is idle;
/// - `firstCommitMs`: the first commit after idle — one layer's opacity, actions off —
///   validated by the model (`modelValidate`: with shared nodes it copies them) and applied by
///   the render tree (`renderApply`: it copies its nodes, which the snapshot shares, either
///   way), shared against not shared (as before sharing existed);
/// - `heapBytesPerLayer`: the live heap of the model, render and presentation trees per
///   layer, not shared against shared.
/// Medians of 7 rounds.
func runShareBench(_ arguments: [String]) {
    var layers = 50_000
    var args = arguments[...]
    while let flag = args.popFirst() {
        guard let v = args.popFirst(), let n = Int(v), n > 0, flag == "--layers" else { benchFail("tree share: --layers N") }
        layers = n
    }
    func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    func ms(_ a: UInt64, _ b: UInt64) -> Double { Double(b - a) / 1e6 }
    func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }

    var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
    for i in 1...layers {
        let id = UInt32(i)
        ops += [.create(id, .layer), .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, 8, 8))),
                .set(id, keyPath: "position", value: .point(Point(Double(i % 160) * 8 + 4, Double(i / 160 % 90) * 8 + 4))),
                .set(id, keyPath: "backgroundColor", value: .color(Color(Double(i % 7) / 7, 0.5, 1))),
                .addSublayer(parent: 0, child: id)]
    }
    let build = Commit(client: 1, content: .operations(ops))
    ops = []
    var share: [Double] = [], heapUnshared: [Double] = [], heapShared: [Double] = []
    var validate: [Bool: [Double]] = [false: [], true: []], apply: [Bool: [Double]] = [false: [], true: []]
    for round in 0..<14 {
        let shared = round % 2 == 1   // alternating
        var model = ModelTree()
        var render = LayerTree()
        render.apply(try! model.validate(Commit(client: 1, content: .connect)), at: 0)
        HeapTrim.trim()
        let heap0 = HeapTrim.bytesInUse()
        render.apply(try! model.validate(build), at: 0)
        // The published snapshot's tree shares the render tree's storage (nothing animates).
        var snapshot = LayerTree()
        render.updatePresentation(&snapshot, at: 0)
        HeapTrim.trim()
        if shared {
            let t0 = now()
            guard model.shareNodes(with: snapshot) else { benchFail("tree share: the trees differ") }
            share.append(ms(t0, now()))
            HeapTrim.trim()
            heapShared.append(Double(HeapTrim.bytesInUse() - heap0) / Double(layers))
        } else {
            heapUnshared.append(Double(HeapTrim.bytesInUse() - heap0) / Double(layers))
        }
        let commit = Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(disableActions: true)),
            .set(UInt32(1 + round), keyPath: "opacity", value: .number(0.5)),
        ]))
        let t0 = now()
        let packet = try! model.validate(commit, at: 1)
        let t1 = now()
        render.apply(packet, at: 1)
        let t2 = now()
        validate[shared]!.append(ms(t0, t1))
        apply[shared]!.append(ms(t1, t2))
        withExtendedLifetime(snapshot) {}
    }
    func f(_ v: Double) -> String { String(format: "%.3f", v) }
    func g(_ v: Double) -> String { String(format: "%.1f", v) }
    print("""
    {"bench": "tree share", "layers": \(layers), "shareMs": \(f(median(share))),
     "firstCommitMs": {"notShared": {"modelValidate": \(f(median(validate[false]!))), "renderApply": \(f(median(apply[false]!)))}, \
    "shared": {"modelValidate": \(f(median(validate[true]!))), "renderApply": \(f(median(apply[true]!)))}},
     "heapBytesPerLayer": {"notShared": \(g(median(heapUnshared))), "shared": \(g(median(heapShared)))},
     "note": "medians of 7 rounds each, alternating; model, render and presentation trees in this process"}
    """)
}
