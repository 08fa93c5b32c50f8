import Dispatch
import Glibc
import LaminaGeometry
import LaminaModel
import LaminaWire

/// What a connection that reconnects keeps of what it committed, to replay it into a new
/// daemon (`ReconnectPolicy`): its layers (kind, hierarchy, committed properties), the
/// explicit animations still running with the time their commit began, the images it
/// uploaded (their bytes; PNG files named by descriptor as a duplicate of it; client-drawn
/// tiled images as their size), surface layers' pools (a duplicate of the memfd, the buffers,
/// the buffer each layer attached last), their GPU buffers (a duplicate of the image memory's
/// fd and its description) and the completion ids they count for. Updated only when the daemon
/// accepts something — a commit's requests when `committed` comes, an upload when
/// `imageUploaded` comes, a release when `imageReleased` comes — and when an animation
/// finishes (`animationStopped` finished), on the reader thread. Nothing per frame.
///
/// Properties are kept as the key paths set, in order, each dropping the earlier sets it
/// overwrites (`position` drops `position.x`); a `frame` is kept as the `bounds.size` and
/// `position` it sets (CALayer's setter reads `anchorPoint`, so replaying it after a later
/// `anchorPoint` would differ). So a replay sets exactly the model the daemon had.
struct ModelJournal: Sendable {
    struct AnimationRecord: Sendable {
        let key: String
        /// The `addAnimation` JSON, parsed (nil when it did not parse as an object: replayed
        /// as sent, its timing not shifted).
        let json: [JSON.Member]?
        let text: String
        /// The journal's timeline (`ReplayClock`) when its commit was sent.
        let time: Double
        /// The completion ids it counts for (those in force when it was staged).
        let completions: [UInt32]
        let removedOnCompletion: Bool
        let isExpression: Bool
    }

    struct LayerRecord: Sendable {
        let kind: LayerKind
        var properties: [(keyPath: String, value: PropertyValue)] = []
        var anchorPoint = Point(0.5, 0.5)
        var parent: UInt32?
        var sublayers: [UInt32] = []
        var animations: [AnimationRecord] = []
        /// Anonymous animations that finished while several were kept: which one is not known,
        /// so they are dropped together once as many finished as are kept.
        var finishedAnonymous = 0
        /// A surface layer's buffer attached last (`attachBuffer`; 0: none shown).
        var attached: UInt32 = 0
    }

    struct ImageRecord: Sendable {
        /// What names the image in the daemon: bytes uploaded, a PNG file's descriptor
        /// (`openImageFile`: a duplicate kept open by the journal), or a client-drawn tiled
        /// image's size (`createTiledImage`: its tiles are asked for again after a replay).
        enum Source: Sendable {
            case bytes(format: ImageUploadFormat, width: UInt32, height: UInt32, data: [UInt8])
            case file(KeptDescriptor)
            case tiled(width: UInt32, height: UInt32)
        }
        let name: String
        let source: Source
        var released = false

        init(name: String, source: Source) { self.name = name; self.source = source }

        init(name: String, format: ImageUploadFormat, width: UInt32, height: UInt32, data: [UInt8]) {
            self.init(name: name, source: .bytes(format: format, width: width, height: height, data: data))
        }

        /// The request that names it again in a new daemon, and the descriptor sent with it.
        var request: (Request, KeptDescriptor?) {
            switch source {
            case .bytes(let format, let width, let height, let data):
                (.uploadImage(name: name, format: format, width: width, height: height, data: data), nil)
            case .file(let fd): (.openImageFile(name: name), fd)
            case .tiled(let width, let height): (.createTiledImage(name: name, width: width, height: height), nil)
            }
        }
    }

    /// A surface layer's shared-memory pool (`SurfaceLayer.makeBuffers`): its memfd (kept
    /// open), size and buffers, sent again (pool, buffers, the pool's id ended) by a replay.
    struct PoolRecord: Sendable {
        let layer: UInt32
        let pool: UInt32
        let size: UInt64
        let fd: KeptDescriptor
        /// `createBuffer` requests, in the order made.
        let buffers: [Request]
        var bufferIDs: [UInt32] {
            buffers.compactMap { if case .createBuffer(let id, _, _, _, _, _, _) = $0 { id } else { nil } }
        }
    }

    /// A surface layer's GPU buffer (`SurfaceLayer.addGpuBuffer`): a duplicate of its image
    /// memory's fd (kept open) and the `createGpuBuffer` request, sent again by a replay — the
    /// new daemon imports the same memory, so it reads what the client drew last.
    struct GpuBufferRecord: Sendable {
        let layer: UInt32
        let request: Request
        let fd: KeptDescriptor
        var id: UInt32 { if case .createGpuBuffer(let d) = request { d.id } else { 0 } }
    }

    /// Layer records by id; 0 is the root container (its sublayers only).
    private(set) var layers: [UInt32: LayerRecord] = [0: LayerRecord(kind: .layer)]
    /// Images in upload order.
    private(set) var images: [ImageRecord] = []
    /// Surface layers' pools, in the order made.
    private(set) var pools: [PoolRecord] = []
    /// Surface layers' GPU buffers, in the order made.
    private(set) var gpuBuffers: [GpuBufferRecord] = []
    /// The buffers a replay makes again (shared-memory and GPU).
    var keptBufferIDs: Set<UInt32> { Set(pools.flatMap(\.bufferIDs) + gpuBuffers.map(\.id)) }

    // MARK: Recording

    /// Applies an accepted commit's requests, in the order staged.
    mutating func apply(_ requests: [Request], time: Double) {
        var completionsInForce: [UInt32] = []   // each commit starts with the default settings
        for r in requests {
            switch r {
            case .createLayer(let id, let kind): if id != 0 { layers[id] = LayerRecord(kind: kind) }
            case .deleteLayer(let id): delete(id)
            case .setProperty(let id, let keyPath, let value): set(id, keyPath, value)
            case .addSublayer(let p, let c): insert(c, into: p, at: nil)
            case .insertSublayer(let p, let c, let i): insert(c, into: p, at: Int(i))
            case .removeFromSuperlayer(let id): detach(id)
            case .setTransaction(let s): completionsInForce = s.completionIDs
            case .addAnimation(let id, let key, let json): addAnimation(id, key, json, time, completionsInForce)
            case .removeAnimation(let id, let key): layers[id]?.animations.removeAll { $0.key == key }
            case .removeAllAnimations(let id): layers[id]?.animations.removeAll()
            case .attachBuffer(let id, let buffer, _): if id != 0 { layers[id]?.attached = buffer }
            default: break
            }
        }
        dropUnshownReleasedImages()
    }

    private mutating func set(_ id: UInt32, _ keyPath: String, _ value: PropertyValue) {
        guard id != 0 else { return }
        // Changed in place (the dictionary's storage yields the record): a copy taken out and
        // written back would copy its property list on every set.
        layers[id]?.set(keyPath, value)
    }

    private mutating func delete(_ id: UInt32) {
        guard id != 0, let l = layers[id] else { return }
        detach(id)
        for c in l.sublayers { layers[c]?.parent = nil }
        layers[id] = nil
        pools.removeAll { $0.layer == id }   // its buffers are not sent again
        gpuBuffers.removeAll { $0.layer == id }
    }

    private mutating func detach(_ id: UInt32) {
        guard let p = layers[id]?.parent else { return }
        layers[p]?.sublayers.removeAll { $0 == id }
        layers[id]?.parent = nil
    }

    private mutating func insert(_ child: UInt32, into parent: UInt32, at index: Int?) {
        guard child != 0, layers[child] != nil, layers[parent] != nil else { return }
        detach(child)
        let n = layers[parent]!.sublayers.count
        layers[parent]!.sublayers.insert(child, at: min(max(index ?? n, 0), n))
        layers[child]!.parent = parent
    }

    private mutating func addAnimation(_ id: UInt32, _ key: String, _ text: String, _ time: Double, _ completions: [UInt32]) {
        guard id != 0, layers[id] != nil else { return }
        var members: [JSON.Member]?
        if case .object(let m)? = try? JSON.parse(text) { members = m }
        let isExpression = members.map { ExpressionJSON.isExpression(.object($0)) } ?? false
        var removed = true
        if let m = members?.first(where: { $0.key == "removedOnCompletion" }), case .bool(let b) = m.value { removed = b }
        if !key.isEmpty { layers[id]!.animations.removeAll { $0.key == key } }
        layers[id]!.animations.append(AnimationRecord(key: key, json: members, text: text, time: time, completions: completions,
                                                      removedOnCompletion: removed, isExpression: isExpression))
    }

    /// An explicit animation finished (`animationStopped` with finished): one removed on
    /// completion is no longer kept.
    mutating func animationFinished(layer: UInt32, key: String) {
        guard var l = layers[layer] else { return }
        if key.isEmpty {
            let anonymous = l.animations.filter { $0.key.isEmpty && $0.removedOnCompletion }.count
            l.finishedAnonymous += 1
            if l.finishedAnonymous >= anonymous {
                l.animations.removeAll { $0.key.isEmpty && $0.removedOnCompletion }
                l.finishedAnonymous = 0
            }
        } else if let i = l.animations.firstIndex(where: { $0.key == key }), l.animations[i].removedOnCompletion {
            l.animations.remove(at: i)
        }
        layers[layer] = l
    }

    /// A surface layer's pool and buffers were made (all accepted).
    mutating func madePool(_ r: PoolRecord) { pools.append(r) }
    mutating func madeGpuBuffer(_ r: GpuBufferRecord) { gpuBuffers.append(r) }

    mutating func uploaded(_ r: ImageRecord) {
        images.removeAll { $0.name == r.name }
        images.append(r)
    }

    /// A released image is kept while a layer shows it (the daemon keeps it too).
    mutating func released(_ name: String) {
        if let i = images.firstIndex(where: { $0.name == name }) { images[i].released = true }
        dropUnshownReleasedImages()
    }

    private mutating func dropUnshownReleasedImages() {
        guard images.contains(where: \.released) else { return }
        var shown = Set<String>()
        for l in layers.values {
            for p in l.properties where p.keyPath == "contents" { if case .string(let s) = p.value { shown.insert(s) } }
        }
        images.removeAll { $0.released && !shown.contains($0.name) }
    }

    /// The explicit animations kept (layer, key), in the order a replay adds them.
    var animationKeys: [(layer: UInt32, key: String)] {
        layers.keys.sorted().flatMap { id in layers[id]!.animations.map { (id, $0.key) } }
    }

    // MARK: Replaying

    /// The requests that rebuild the model in a new daemon: the images to upload first, the
    /// staged requests of one transaction (then `commit`), and the releases to send after it.
    /// Animations continue where they are at `now` (the journal's timeline): their
    /// `beginTime` is moved back by the time elapsed since their commit.
    /// - Parameter pending: completion ids whose blocks have not run: declared again, each
    ///   counting the replayed animations it counted before.
    /// Surface layers' pools go with the uploads (each `createPool` with its memfd, then its
    /// buffers and `destroyPool`), then their GPU buffers (each `createGpuBuffer` with its
    /// memory's fd), and each surface layer's last attached buffer is attached again in the
    /// transaction (whole: the buffer's pixels as they are now in the client's memory or image).
    /// - Parameter frameCallbacks: `frameCallback`/`presentationFeedback` ids still waiting:
    ///   staged again, so they come from the new daemon's first frame.
    func replay(now: Double, pending: Set<UInt32>, waiting: [Request] = [])
        -> (uploads: [(Request, KeptDescriptor?)], staged: [Request], releases: [Request]) {
        var uploads = images.map(\.request)
        var buffers = Set<UInt32>()
        for p in pools {
            uploads.append((.createPool(id: p.pool, size: p.size), p.fd))
            for b in p.buffers { uploads.append((b, nil)) }
            uploads.append((.destroyPool(id: p.pool), nil))
            buffers.formUnion(p.bufferIDs)
        }
        for g in gpuBuffers {
            uploads.append((g.request, g.fd))
            buffers.insert(g.id)
        }
        let releases = images.filter(\.released).map { Request.releaseImage(name: $0.name) }
        var staged: [Request] = []
        let ids = layers.keys.sorted().filter { $0 != 0 }
        var settings = TransactionSettings(duration: 0, disableActions: true)
        staged.append(.setTransaction(settings))
        for id in ids { staged.append(.createLayer(id: id, kind: layers[id]!.kind)) }
        for id in ids {
            for p in layers[id]!.properties { staged.append(.setProperty(id: id, keyPath: p.keyPath, value: p.value)) }
        }
        for id in [0] + ids {
            for c in layers[id]!.sublayers { staged.append(.addSublayer(parent: id, child: c)) }
        }
        for id in ids {
            for a in layers[id]!.animations {
                let counted = a.completions.filter(pending.contains)
                if counted != settings.completionIDs {
                    settings.completionIDs = counted
                    staged.append(.setTransaction(settings))
                }
                staged.append(.addAnimation(id: id, key: a.key, json: Self.shifted(a, by: now - a.time)))
            }
        }
        for id in ids where layers[id]!.attached != 0 && buffers.contains(layers[id]!.attached) {
            staged.append(.attachBuffer(layer: id, buffer: layers[id]!.attached, damage: []))
        }
        staged += waiting
        for c in pending.sorted() { staged.append(.completion(id: c)) }
        return (uploads, staged, releases)
    }

    /// The animation's JSON with `beginTime` moved `elapsed` seconds back, so that in a commit
    /// made now it is where it would be had it never stopped (expressions have no timing).
    static func shifted(_ a: AnimationRecord, by elapsed: Double) -> String {
        guard var m = a.json, !a.isExpression, elapsed != 0 else { return a.text }
        var begin = 0.0
        if let i = m.firstIndex(where: { $0.key == "beginTime" }) {
            if case .number(let b) = m[i].value { begin = b }
            m.remove(at: i)
        }
        m.append(JSON.Member(key: "beginTime", value: .number(begin - elapsed)))
        return JSON.object(m).text
    }
}

extension ModelJournal.LayerRecord {
    /// Keeps a set, dropping the earlier sets of the same key path and of key paths under it.
    /// Records one committed set (`frame` as the `bounds.size` and `position` it sets).
    mutating func set(_ keyPath: String, _ value: PropertyValue) {
        if keyPath == "frame", case .rect(let f) = value {
            record("bounds.size", .size(f.size))
            record("position", .point(Point(f.origin.x + anchorPoint.x * f.size.width,
                                            f.origin.y + anchorPoint.y * f.size.height)))
            return
        }
        switch (keyPath, value) {
        case ("anchorPoint", .point(let p)): anchorPoint = p
        case ("anchorPoint.x", .number(let x)): anchorPoint.x = x
        case ("anchorPoint.y", .number(let y)): anchorPoint.y = y
        default: break
        }
        record(keyPath, value)
    }

    mutating func record(_ keyPath: String, _ value: PropertyValue) {
        // The same key path set again last (a property updated commit after commit): its value
        // replaced where it is, the order unchanged.
        if let last = properties.indices.last, properties[last].keyPath == keyPath {
            properties[last].value = value
            return
        }
        let path = keyPath.utf8
        properties.removeAll { recorded in
            let k = recorded.keyPath.utf8
            guard k.count >= path.count, k.starts(with: path) else { return false }
            // The key path itself, or one below it (`position.x` under `position`).
            return k.count == path.count || k[k.index(k.startIndex, offsetBy: path.count)] == UInt8(ascii: ".")
        }
        properties.append((keyPath, value))
    }
}

/// A descriptor the journal keeps open (a PNG file's, a surface pool's memfd) to send again
/// after a reconnection; closed when the last record holding it goes.
final class KeptDescriptor: Sendable {
    let fd: Int32
    /// Keeps a duplicate of `fd` (the caller's stays the caller's); nil when `dup` fails.
    init?(duplicating fd: Int32) {
        let d = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard d >= 0 else { return nil }
        self.fd = d
    }
    deinit { close(fd) }
}

/// The journal's timeline, in seconds: animations' commit times and "now" for a replay. Under
/// a realtime daemon it follows this process's monotonic clock (the daemon's follows its own;
/// the two advance alike); under the manual clock it moves only as far as this client's own
/// `advanceClock` replies say the daemon's clock moved (other clients' advances are not
/// seen). A reconnection carries it on from where it was, whatever the new daemon's clock
/// reads.
struct ReplayClock: Sendable {
    private var manual: Bool
    private var base: Double = 0
    private var baseUptime: UInt64
    private var daemonTime: Double

    init(manual: Bool, daemonTime: Double) {
        self.manual = manual
        self.daemonTime = daemonTime
        baseUptime = DispatchTime.now().uptimeNanoseconds
    }

    var now: Double {
        manual ? base : base + Double(DispatchTime.now().uptimeNanoseconds - baseUptime) / 1e9
    }

    /// The daemon's manual clock moved to `time` (an `advanceClock` reply).
    mutating func clockAdvanced(to time: Double) {
        guard manual else { return }
        base += max(0, time - daemonTime)
        daemonTime = time
    }

    /// A new daemon welcomed the client: the timeline goes on from now, at that daemon's pace.
    mutating func rebase(manual: Bool, daemonTime: Double) {
        base = now
        baseUptime = DispatchTime.now().uptimeNanoseconds
        self.manual = manual
        self.daemonTime = daemonTime
    }
}
