import LaminaGeometry
import LaminaModel
import LaminaTree

/// One layer visit of a build, in painter's order: what the walk made for it. A full build's
/// records are what `DrawListPatcher` patches later frames from; a visit re-emitted for a patch
/// is recorded again and checked against them (the same structure, counts and culling).
struct VisitRecord {
    var slot: Int32
    var parent: Int32
    /// The first record of the sublayers visited for real (after those of a blurred
    /// shadow's source, which start at the next record).
    var split: Int32
    /// The record after this visit's subtree.
    var subtreeEnd: Int32
    var itemStart: Int32, itemEnd: Int32
    var clipStart: Int32, clipEnd: Int32
    /// Its position among its superlayer's sublayers (the zPosition sort is stable).
    var childIndex: Int32
    /// Whether it passed the culling (hidden, transparent, facing away).
    var drawn: Bool
    /// Patching: whether it passed the culling this time.
    var drawnNow: Bool
    /// What the patcher's `moveLeaf` knows of the visit's items (in the record's padding:
    /// still 40 bytes).
    var moveKind: DrawListPatcher.MoveKind = .unknown
    /// The layer's `isDoubleSided`, noted with `moveKind` (the model's: a layer animating
    /// it is not moved).
    var doubleSided = false
}

/// The records a build makes (`DrawListBuilder`'s walk opens, marks and closes them).
struct VisitRecords {
    var list: [VisitRecord] = []
    /// Visits whose shape drew its meshes but may get a shape atlas entry next frame: a patch
    /// that does not redraw one of them gives way to a full build.
    var pendingShapes: [Int32] = []
    /// The visit being recorded.
    private var current = -1

    mutating func begin() {
        list.removeAll(keepingCapacity: true)
        pendingShapes.removeAll(keepingCapacity: true)
        current = -1
    }

    /// Opens the record of a visit; returns its index.
    @inline(__always)
    mutating func open(slot: Int, childIndex: Int, item: Int, clip: Int) -> Int {
        let r = list.count
        list.append(VisitRecord(slot: Int32(truncatingIfNeeded: slot), parent: Int32(truncatingIfNeeded: current),
                                split: Int32(truncatingIfNeeded: r + 1), subtreeEnd: Int32(truncatingIfNeeded: r + 1),
                                itemStart: Int32(truncatingIfNeeded: item), itemEnd: Int32(truncatingIfNeeded: item),
                                clipStart: Int32(truncatingIfNeeded: clip), clipEnd: Int32(truncatingIfNeeded: clip),
                                childIndex: Int32(truncatingIfNeeded: childIndex), drawn: false, drawnNow: false))
        current = r
        return r
    }

    @inline(__always)
    mutating func close(_ r: Int, item: Int, clip: Int) {
        list[r].itemEnd = Int32(truncatingIfNeeded: item)
        list[r].clipEnd = Int32(truncatingIfNeeded: clip)
        list[r].subtreeEnd = Int32(truncatingIfNeeded: list.count)
        current = Int(list[r].parent)
    }

    /// The visit passed the culling.
    @inline(__always)
    mutating func markDrawn(_ r: Int) { list[r].drawn = true }

    /// The layer's sublayers visited for real start at the next record.
    @inline(__always)
    mutating func markRealChildren(_ r: Int) { list[r].split = Int32(truncatingIfNeeded: list.count) }

    /// The visit being recorded drew a shape that may get an atlas entry next frame.
    mutating func notePendingShape() {
        if current >= 0 { pendingShapes.append(Int32(truncatingIfNeeded: current)) }
    }
}
