import LaminaGeometry
import LaminaTree
import LaminaModel

/// The retained list's cheap case: a leaf layer (no sublayers, no clip of its own) that a
/// patch must redraw only because it, or a layer above it, moved or faded — its own
/// animations, if any, change only position, anchor point, zPosition, transform,
/// sublayerTransform or opacity (`LayerTree.markMotionOnlySlots`), so its bounds, colors,
/// radii, border, shadow, gradient and shape are the model's, as when its items were made.
/// Its items then differ from a full build's only in their transform and opacity, which are
/// written in place (a full item is 160 bytes and may hold a payload reference; these are 80
/// bytes of plain values), provided that
/// - it passes the culling as before (not hidden, opacity above 0, not facing away);
/// - every item is a kind whose other values do not follow the transform: a rect, an analytic
///   shadow (moved by the shadow offset), a gradient, the layer's contents image (its pieces,
///   texture rect and filters come from model values; the renderer chooses the lean or the
///   perspective image pipeline from the transform each time it writes the item), a glyph
///   run whose layout scale the new transform keeps, or a shape atlas entry whose scale and
///   mesh bucket the new transform keeps, under a similarity (what the atlas itself checks).
/// Anything else — meshes (the atlas could take them now), groups, blurred shadows — is
/// re-emitted by the normal walk.
extension DrawListPatcher {
    /// Moves a leaf visit's items in place; false (the visit is then re-emitted, which
    /// overwrites whatever was written) when it is not that simple.
    ///
    /// What it reads is kept small (the walk is bound by memory traffic): the record's
    /// `moveKind` says which items are rects and gradients, so their payloads are not read,
    /// and a layer that animates neither zPosition nor anchorPointZ has those and its shadow
    /// offset (in the rare-properties box, a pointer away) kept in `statics`, read
    /// from the box the first time only (the model's values: the same for the whole full
    /// build, `version` being the same).
    mutating func moveLeaf(_ c: Int, _ record: VisitRecord, _ nodes: UnsafeBufferPointer<LayerNode>,
                           _ builder: inout DrawListBuilder, parentToPixels: Transform3D, parentOpacity: Double) -> Bool {
        let slot = Int(record.slot)
        guard record.drawn, Int(record.subtreeEnd) == c + 1, record.clipEnd == record.clipStart,
              record.moveKind != .reemitted, slot < motion.count else { return false }
        let flags = motion[slot]
        guard !dirty[slot] || flags.contains(.motionOnly) else { return false }
        let address = nodes.baseAddress! + slot
        var p: LayerProperties { _read { yield address.pointee.properties } }
        guard address.pointee.sublayers.isEmpty, !address.pointee.id.isClientRoot, !p.isHidden else { return false }
        // As `visit` computes them (the same operations, so the same values).
        let opacity = parentOpacity * min(max(p.opacity, 0), 1)
        guard opacity > 0 else { return false }
        let statics = leafStatics(slot, flags, address)
        let a = p.transformToSuperlayer(anchorPointZ: statics.anchorPointZ, zPosition: statics.zPosition)
        let toPixels = Self.withRow3(Self.placement(a, parentToPixels), a, parentToPixels)
        guard p.isDoubleSided || !DrawListBuilder.facesAway(toPixels) else { return false }
        let start = Int(record.itemStart), end = Int(record.itemEnd)
        guard end <= builder.items.count else { return false }
        let atlas = builder.shapeAtlas
        let ok = builder.items.withUnsafeMutableBufferPointer { items -> Bool in
            var buckets = BucketMemo()
            return Self.placeMoved(items.baseAddress!, start..<end, kind: record.moveKind, toPixels: toPixels,
                                   opacity: opacity, shadowOffset: statics.shadowOffset, atlas: atlas,
                                   buckets: &buckets)
        }
        guard ok else { return false }
        if record.moveKind == .unknown {
            records[c].moveKind = Self.moveKind(builder.items, start..<end)
            records[c].doubleSided = p.isDoubleSided
        }
        records[c].drawnNow = true
        moved += 1
        cursor = end
        clipCursor = Int(record.clipEnd)
        return true
    }

    /// Writes a moved leaf's items (`range` of `base`) at `toPixels` with `opacity`, as its
    /// record's `kind` tells: rects and gradients take them as they are, an analytic shadow
    /// first is placed by its offset, and other kinds read each item (`moveItems`). False when
    /// an item cannot be moved in place (a shape atlas entry that no longer fits).
    @inline(__always)
    static func placeMoved(_ base: UnsafeMutablePointer<DrawItem>, _ range: Range<Int>, kind: DrawListPatcher.MoveKind,
                           toPixels: Transform3D, opacity: Double, shadowOffset: Size, atlas: ShapeAtlas,
                           buckets: inout BucketMemo) -> Bool {
        switch kind {
        case .plain, .shadowFirst:
            var k = range.lowerBound
            if kind == .shadowFirst, k < range.upperBound {
                base[k].place(shadowPlacement(shadowOffset, toPixels), opacity: opacity)
                k += 1
            }
            while k < range.upperBound {
                base[k].place(toPixels, opacity: opacity)
                k += 1
            }
            return true
        default:
            return moveItems(base, range, toPixels: toPixels, opacity: opacity, shadowOffset: shadowOffset,
                             atlas: atlas, buckets: &buckets)
        }
    }

    /// The layer's `LeafStatics`: kept ones when it animates neither zPosition nor anchorPointZ
    /// (read and kept on first use), else its presentation values.
    @inline(__always)
    private mutating func leafStatics(_ slot: Int, _ flags: MotionSlotFlags,
                                      _ address: UnsafePointer<LayerNode>) -> DrawListPatcher.LeafStatics {
        var p: LayerProperties { _read { yield address.pointee.properties } }
        if flags.contains(.spare) { return statics[slot] }
        let leaf = LeafStatics(anchorPointZ: p.anchorPointZ, zPosition: p.zPosition, shadowOffset: p.shadowOffset)
        if !flags.contains(.depth) {
            if statics.count != motion.count {
                statics = Array(repeating: LeafStatics(anchorPointZ: 0, zPosition: 0, shadowOffset: .zero), count: motion.count)
            }
            statics[slot] = leaf
            motion[slot].formUnion(Self.keptFlags(leaf))
        }
        return leaf
    }

    /// The flags of a slot whose `statics` are kept: `.spare`, and `.spare2` when its
    /// anchorPointZ and zPosition are both +0 (the defaults, bit for bit).
    @inline(__always)
    static func keptFlags(_ leaf: DrawListPatcher.LeafStatics) -> MotionSlotFlags {
        leaf.anchorPointZ.bitPattern == 0 && leaf.zPosition.bitPattern == 0 ? [.spare, .spare2] : .spare
    }

    /// `m` (`placement(a, b)`) with row 3's columns 1, 2 and 4 of `a.concatenating(b)`.
    @inline(__always)
    static func withRow3(_ m: Transform3D, _ a: Transform3D, _ b: Transform3D) -> Transform3D {
        var m = m
        m.m31 = a.m31 * b.m11 + a.m32 * b.m21 + a.m33 * b.m31 + a.m34 * b.m41
        m.m32 = a.m31 * b.m12 + a.m32 * b.m22 + a.m33 * b.m32 + a.m34 * b.m42
        m.m34 = a.m31 * b.m14 + a.m32 * b.m24 + a.m33 * b.m34 + a.m34 * b.m44
        return m
    }

    /// An analytic shadow's transform (as `appendShadow` makes it), its columns 1, 2 and 4.
    @inline(__always)
    static func shadowPlacement(_ offset: Size, _ toPixels: Transform3D) -> Transform3D {
        placement(Transform3D.translation(offset.width, offset.height), toPixels)
    }

    /// Columns 1, 2 and 4 of `a.concatenating(b)` in rows 1, 2 and 4 (the same operations in the
    /// same order, so the same values; the rest is left 0): all that items, culling and the
    /// shape atlas' checks read; an analytic shadow's placement needs row 3 too (`withRow3`).
    /// Inlined, in registers (the general product was a call with both in memory).
    @inline(__always)
    static func placement(_ a: Transform3D, _ b: Transform3D) -> Transform3D {
        Transform3D(
            m11: a.m11 * b.m11 + a.m12 * b.m21 + a.m13 * b.m31 + a.m14 * b.m41,
            m12: a.m11 * b.m12 + a.m12 * b.m22 + a.m13 * b.m32 + a.m14 * b.m42,
            m13: 0,
            m14: a.m11 * b.m14 + a.m12 * b.m24 + a.m13 * b.m34 + a.m14 * b.m44,
            m21: a.m21 * b.m11 + a.m22 * b.m21 + a.m23 * b.m31 + a.m24 * b.m41,
            m22: a.m21 * b.m12 + a.m22 * b.m22 + a.m23 * b.m32 + a.m24 * b.m42,
            m23: 0,
            m24: a.m21 * b.m14 + a.m22 * b.m24 + a.m23 * b.m34 + a.m24 * b.m44,
            m31: 0, m32: 0, m33: 0, m34: 0,
            m41: a.m41 * b.m11 + a.m42 * b.m21 + a.m43 * b.m31 + a.m44 * b.m41,
            m42: a.m41 * b.m12 + a.m42 * b.m22 + a.m43 * b.m32 + a.m44 * b.m42,
            m43: 0,
            m44: a.m41 * b.m14 + a.m42 * b.m24 + a.m43 * b.m34 + a.m44 * b.m44)
    }

    /// The general case: each item's payload read in place (no copy of the item); false when
    /// one is of a kind that does not simply follow the transform.
    static func moveItems(_ base: UnsafeMutablePointer<DrawItem>, _ range: Range<Int>, toPixels: Transform3D,
                                  opacity: Double, shadowOffset: Size, atlas: ShapeAtlas,
                          buckets: inout BucketMemo) -> Bool {
        var shapeScale = 0.0
        // (Not an optional: a `Transform3D?` was copied in and out of memory per item.)
        var shadowToPixels = toPixels, shadowPlaced = false
        for k in range {
            let item = base + k
            // The case alone (binding the payload retained and released its box per item).
            switch item.pointee.writeCase {
            case .rect, .gradient:
                item.pointee.place(toPixels, opacity: opacity)
            case .shadow:
                if !shadowPlaced { shadowToPixels = Self.shadowPlacement(shadowOffset, toPixels); shadowPlaced = true }
                item.pointee.place(shadowToPixels, opacity: opacity)
            case .image:
                // A layer's contents: nothing in it but the transform and opacity follows them.
                if item.pointee.isContentsImage {
                    item.pointee.place(toPixels, opacity: opacity)
                    continue
                }
                // A text layer's glyph run: its layout scale (size buckets, pixel snapping) the
                // same, exactly — then a full build would make the same quads.
                let glyphScale = item.pointee.glyphScale
                if glyphScale != 0 {
                    if shapeScale == 0 { shapeScale = DrawListBuilder.pixelScale(toPixels) }
                    guard glyphScale == GlyphRun.layoutScale(shapeScale) else { return false }
                    item.pointee.place(toPixels, opacity: opacity)
                    continue
                }
                // What `appendShape` and `ShapeAtlas.item` decide: the same meshes (bucket),
                // the same entry (scale), still a similarity.
                let entry = item.pointee.atlasEntry
                guard entry.slot >= 0 else { return false }
                if shapeScale == 0 { shapeScale = DrawListBuilder.pixelScale(toPixels) }
                guard buckets.bucket(forScale: shapeScale) == entry.bucket,
                      ShapeAtlas.sameScale(entry.scale, shapeScale),
                      ShapeAtlas.isSimilarity(toPixels, scale: shapeScale) else { return false }
                atlas.touch(entry.slot)
                item.pointee.place(toPixels, opacity: opacity)
            case .mesh, .group:
                return false
            }
        }
        return true
    }

    /// `MeshCache.bucket(forScale:)` and the scale it was last computed for (moved shapes mostly
    /// keep their scale: a logarithm each otherwise).
    struct BucketMemo {
        var scale = -1.0, bucket = 0
        mutating func bucket(forScale scale: Double) -> Int {
            if scale != self.scale { self.scale = scale; bucket = MeshCache.bucket(forScale: scale) }
            return bucket
        }
    }

    /// What a leaf's items are (see `DrawListPatcher.MoveKind`), once they were moved in place.
    private static func moveKind(_ items: [DrawItem], _ range: Range<Int>) -> DrawListPatcher.MoveKind {
        var shadowFirst = false, atlas = false
        for k in range {
            // A layer's contents take the transform and opacity as a rect does.
            if items[k].isContentsImage { continue }
            switch items[k].payload {
            case .rect, .gradient: continue
            case .shadow where k == range.lowerBound: shadowFirst = true
            case .image(let box) where box.atlasSlot >= 0 || box.glyphs != nil: atlas = true
            default: return .mixed
            }
        }
        return atlas ? (shadowFirst ? .mixed : .atlas) : shadowFirst ? .shadowFirst : .plain
    }
}
