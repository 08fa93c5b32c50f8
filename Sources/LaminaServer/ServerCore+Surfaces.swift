#if canImport(Glibc)
import Glibc
#endif
import LaminaImage
import LaminaModel
import LaminaRender
import LaminaTree
import LaminaWire

/// One client's surfaces (docs/protocol.md, Surfaces): the descriptors it sent and no
/// `createPool` took yet, its pools and buffers by its own ids (no request names another
/// client's: the ids are looked up in its own table only), and its surface layers' image names
/// and pixel bytes.
struct ClientSurfaces {
    /// Descriptors received (SCM_RIGHTS) in order, waiting for their `createPool`.
    var fds: [Int32] = []
    var pools: [UInt32: SharedMemoryPool] = [:]
    var buffers: [UInt32: (pool: SharedMemoryPool, layout: SurfaceBufferLayout)] = [:]
    /// GPU buffers (`createGpuBuffer`), by buffer id (the same ids as shared-memory buffers).
    var gpuBuffers: [UInt32: ImportedGpuImage] = [:]
    /// Surface layers (local id) → the image name their `contents` holds.
    var names: [UInt32: String] = [:]
    /// Surface layers (local id) → bytes of the pixels the daemon keeps for them (w × h × 4 of
    /// the last buffer attached).
    var shown: [UInt32: Int] = [:]

    /// Bytes of shared memory mapped for the client (each pool once, while it or a buffer of it
    /// lives), of its imported GPU buffers and of its surfaces' pixels: what counts against
    /// `maxImageBytesPerClient`.
    var bytes: Int {
        var seen: Set<ObjectIdentifier> = []
        var n = 0
        for p in pools.values where seen.insert(ObjectIdentifier(p)).inserted { n += p.size }
        for b in buffers.values where seen.insert(ObjectIdentifier(b.pool)).inserted { n += b.pool.size }
        return n + gpuBuffers.values.reduce(0) { $0 + $1.bytes } + shown.values.reduce(0, +)
    }
}

/// What a commit's surface requests wait for: the frame that applies its packet.
struct SurfaceWait {
    /// `.attachedOnly`: sends nothing; records what the packet attached (for `discarded`).
    enum Kind { case release(buffer: UInt32), frame(UInt32), feedback(UInt32, layers: [UInt32]), attachedOnly }
    var client: UInt32
    var sequence: UInt64
    var kind: Kind
    /// Layers the packet attached a buffer to (to tell a feedback's content replaced before any frame).
    var attached: [UInt32] = []
    /// A release's attachment as the render side sampled it (in place: the release waits until
    /// it ended; nil: a GPU buffer, released after the read).
    var lease: SurfaceLease?
}

extension ServerCore {
    /// The most descriptors a client may have sent ahead of their `createPool`s.
    static let maxQueuedDescriptors = 16

    /// Descriptors that came with a client's bytes (Daemon: SCM_RIGHTS); closed at once when
    /// the client is unknown or has too many waiting.
    public mutating func receiveDescriptors(_ fds: [Int32], from id: UInt32) {
        guard !fds.isEmpty else { return }
        guard clientExists(id) else { fds.forEach { close($0) }; return }
        var table = surfaceTables[id] ?? ClientSurfaces()
        for fd in fds {
            if table.fds.count < Self.maxQueuedDescriptors { table.fds.append(fd) } else { close(fd) }
        }
        surfaceTables[id] = table
    }

    /// The client's image name for surface layer `layer` (nil: not a surface layer of it).
    func surfaceName(client: UInt32, layer: UInt32) -> String? { surfaceTables[client]?.names[layer] }

    /// Bytes of the client's shared memory and surfaces (they count with its images).
    func surfaceBytes(_ client: UInt32) -> Int { surfaceTables[client]?.bytes ?? 0 }

    /// `createPool`, `destroyPool`, `createBuffer`, `destroyBuffer`: answered at once.
    mutating func handleSurface(_ request: Request, client: UInt32, requestID: UInt32, _ effects: inout [ServerEffect]) {
        var table = surfaceTables[client] ?? ClientSurfaces()
        defer { surfaceTables[client] = table }
        func reply(_ event: Event) {
            effects.append(.write(client: client, bytes: MessageEncoder.encode(event, requestID: requestID)))
        }
        func fail(_ code: ErrorCode, _ message: String) {
            reply(.error(opcode: request.opcode, code: code, message: message, request: requestID))
        }
        switch request {
        case .createPool(let id, let size):
            // The descriptor is taken first, whatever else is wrong: it belongs to this request.
            guard !table.fds.isEmpty else {
                return fail(.invalidBuffer, "pool \(id): no file descriptor came with createPool (send one memfd with the message, SCM_RIGHTS)")
            }
            let fd = table.fds.removeFirst()
            guard id != 0, table.pools[id] == nil else {
                close(fd)
                return fail(.invalidValue, "pool \(id): " + (id == 0 ? "pool id 0 is reserved" : "the id is in use; destroy it first"))
            }
            let limit = config.maxImageBytesPerClient
            let used = (imageTables[client]?.bytes ?? 0) + table.bytes
            guard size <= UInt64(Int.max), Int(size) <= limit - used else {
                close(fd)
                return fail(.limitExceeded, "pool \(id): \(size) bytes is over the client's memory limit (maxImageBytesPerClient \(limit) bytes, \(used) in use by images and surfaces)")
            }
            do {
                table.pools[id] = try SharedMemoryPool(fd: fd, size: Int(size))
            } catch {
                return fail(.invalidBuffer, "pool \(id): \(error.message)")
            }
            reply(.poolCreated(id: id))
        case .destroyPool(let id):
            guard table.pools.removeValue(forKey: id) != nil else {
                return fail(.unknownBuffer, "pool \(id): no pool of this id (createPool makes one)")
            }
            reply(.poolDestroyed(id: id))
        case .createBuffer(let id, let poolID, let offset, let width, let height, let stride, let format):
            guard let pool = table.pools[poolID] else {
                return fail(.unknownBuffer, "buffer \(id): no pool \(poolID) (createPool makes one)")
            }
            guard id != 0, table.buffers[id] == nil, table.gpuBuffers[id] == nil else {
                return fail(.invalidValue, "buffer \(id): " + (id == 0 ? "buffer id 0 means none" : "the id is in use; destroy it first"))
            }
            guard offset <= UInt64(Int32.max) * 4 else {
                return fail(.invalidBuffer, "buffer \(id): offset \(offset) is past the pool's \(pool.size) bytes")
            }
            let layout = SurfaceBufferLayout(offset: Int(offset), width: Int(width), height: Int(height), stride: Int(stride),
                                             format: format == .bgra8 ? .bgra8 : .rgba8)
            if let why = layout.misfit(poolSize: pool.size) {
                return fail(.invalidBuffer, "buffer \(id) in pool \(poolID): \(why)")
            }
            table.buffers[id] = (pool, layout)
            reply(.bufferCreated(id: id))
        case .createGpuBuffer(let g):
            guard !table.fds.isEmpty else {
                return fail(.invalidBuffer, "buffer \(g.id): no file descriptor came with createGpuBuffer (send the image memory's opaque fd from vkGetMemoryFdKHR with the message, SCM_RIGHTS)")
            }
            let fd = table.fds.removeFirst()
            guard g.id != 0, table.buffers[g.id] == nil, table.gpuBuffers[g.id] == nil else {
                close(fd)
                return fail(.invalidValue, "buffer \(g.id): " + (g.id == 0 ? "buffer id 0 means none" : "the id is in use; destroy it first"))
            }
            let limit = config.maxImageBytesPerClient
            let used = (imageTables[client]?.bytes ?? 0) + table.bytes
            guard g.size <= UInt64(Int.max), Int(g.size) <= limit - used else {
                close(fd)
                return fail(.limitExceeded, "buffer \(g.id): \(g.size) bytes of GPU memory is over the client's memory limit (maxImageBytesPerClient \(limit) bytes, \(used) in use by images and surfaces)")
            }
            let importer: GpuBufferImporter
            switch gpuBufferImporter() {
            case .success(let i): importer = i
            case .failure(let f):
                close(fd)
                return fail(.invalidBuffer, "buffer \(g.id): \(f.message)")
            }
            do {
                table.gpuBuffers[g.id] = try importer.importImage(
                    fd: fd, width: Int(g.width), height: Int(g.height), format: g.format, size: g.size,
                    memoryType: g.memoryType, deviceUUID: g.deviceUUID)
            } catch {
                return fail(.invalidBuffer, "buffer \(g.id): \(error.message)")
            }
            reply(.bufferCreated(id: g.id))
        case .destroyBuffer(let id):
            guard table.buffers.removeValue(forKey: id) != nil || table.gpuBuffers.removeValue(forKey: id) != nil else {
                return fail(.unknownBuffer, "buffer \(id): no buffer of this id (createBuffer makes one)")
            }
            // Its pending release is not sent: the id may be used again at once.
            surfaceWaits.removeAll { w in
                if w.client == client, case .release(id) = w.kind { true } else { false }
            }
            heldReleases.removeAll { w in
                if w.client == client, case .release(id) = w.kind { true } else { false }
            }
            sampledInPlace.removeAll { w in
                if w.client == client, case .release(id) = w.kind { true } else { false }
            }
            reply(.bufferDestroyed(id: id))
        default:
            preconditionFailure("not a surface request")
        }
    }

    /// What a commit does to surfaces, checked before the model tree validates it.
    struct SurfacePlan {
        /// `contents` sets for the surface layers the commit creates (appended to its operations).
        var contents: [LayerChange] = []
        var names: [UInt32: String] = [:]
        var updates: [SurfaceUpdate] = []
        var waits: [SurfaceWait.Kind] = []
        /// The lease of each buffer the commit attaches (one per buffer, shared by its attachments).
        var leases: [UInt32: SurfaceLease] = [:]
        var attached: [UInt32] = []
        var shown: [UInt32: Int] = [:]
        /// Surface layers the commit deletes.
        var deleted: [UInt32] = []
    }

    /// Checks the commit's surface requests against its layer changes and the client's tables:
    /// each `attachBuffer` names a layer that is a surface layer once the commit's changes are
    /// made and a buffer of this client (or 0), and the surfaces' pixels fit the memory limit;
    /// a `setProperty` of `contents` on a surface layer is refused (its buffer is its
    /// contents). Returns the plan, or the failure (the index is into the operations, or past
    /// them into the surface requests).
    mutating func planSurfaces(_ commit: Commit) -> Result<SurfacePlan, SurfaceFailure> {
        guard case .operations(let ops) = commit.content else { return .success(SurfacePlan()) }
        let client = commit.client
        let table = surfaceTables[client] ?? ClientSurfaces()
        var plan = SurfacePlan()
        // Each layer's kind after the commit's changes (nil: absent), from the model's.
        var kinds: [UInt32: LayerKind?] = [:]
        func kind(_ id: UInt32) -> LayerKind? {
            if let k = kinds[id] { return k }
            return model[LayerID(client: client, local: id)]?.kind
        }
        for (i, op) in ops.enumerated() {
            switch op {
            case .create(let id, let k):
                // (A create of an id in use fails in the model tree, and the commit with it.)
                guard kind(id) == nil else { continue }
                kinds[id] = .some(k)
                if k == .surface {
                    surfaceSerial += 1
                    plan.names[id] = "\(client)/surface/\(surfaceSerial)/\(id)"
                }
            case .delete(let id):
                if kind(id) == .surface {
                    if plan.names.removeValue(forKey: id) == nil, table.names[id] != nil { plan.deleted.append(id) }
                }
                kinds[id] = .some(nil)
            case .set(let id, let keyPath, _) where keyPath == "contents" && kind(id) == .surface:
                return .failure(SurfaceFailure(index: i, code: .invalidProperty,
                                               message: "layer \(id) is a surface layer: its contents are the buffer attachBuffer shows"))
            default: break
            }
        }
        for (id, name) in plan.names.sorted(by: { $0.key < $1.key }) {
            plan.contents.append(.set(id, keyPath: "contents", value: .string(name)))
        }
        var budget = config.maxImageBytesPerClient - (imageTables[client]?.bytes ?? 0) - table.bytes
        var released: Set<UInt32> = []
        for (j, op) in commit.surfaceOperations.enumerated() {
            let index = ops.count + j
            switch op {
            case .attach(let layer, let bufferID, let damage):
                guard let k = kind(layer) else {
                    return .failure(SurfaceFailure(index: index, code: .unknownLayer, message: "attachBuffer: no layer \(layer)"))
                }
                guard k == .surface, let name = plan.names[layer] ?? table.names[layer] else {
                    return .failure(SurfaceFailure(index: index, code: .invalidProperty,
                                                   message: "attachBuffer: layer \(layer) is a \(k.name) layer, not a surface layer"))
                }
                if bufferID == 0 {
                    plan.updates.append(SurfaceUpdate(name: name, pool: nil, layout: SurfaceBufferLayout(
                        offset: 0, width: 0, height: 0, stride: 0, format: .rgba8), damage: []))
                    budget += plan.shown[layer] ?? table.shown[layer] ?? 0
                    plan.shown[layer] = 0
                    continue
                }
                let buffer: (pool: SharedMemoryPool?, source: ImportedGpuImage?, layout: SurfaceBufferLayout)
                if let b = table.buffers[bufferID] {
                    buffer = (b.pool, nil, b.layout)
                } else if let g = table.gpuBuffers[bufferID] {
                    buffer = (nil, g, SurfaceBufferLayout(offset: 0, width: g.width, height: g.height, stride: g.width * 4,
                                                          format: g.format))
                } else {
                    return .failure(SurfaceFailure(index: index, code: .unknownBuffer,
                                                   message: "attachBuffer: no buffer \(bufferID) (createBuffer or createGpuBuffer makes one)"))
                }
                let bytes = buffer.layout.width * buffer.layout.height * 4
                budget += (plan.shown[layer] ?? table.shown[layer] ?? 0) - bytes
                guard budget >= 0 else {
                    return .failure(SurfaceFailure(index: index, code: .limitExceeded,
                                                   message: "attachBuffer: layer \(layer)'s \(bytes) bytes of pixels are over the client's memory limit (maxImageBytesPerClient \(config.maxImageBytesPerClient))"))
                }
                plan.shown[layer] = bytes
                let rects = damage.compactMap {
                    SurfaceRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height))
                        .clipped(width: buffer.layout.width, height: buffer.layout.height)
                }
                var lease: SurfaceLease? = nil
                if buffer.pool != nil {
                    lease = plan.leases[bufferID] ?? SurfaceLease()
                    plan.leases[bufferID] = lease
                }
                // Damage wholly outside the buffer changes nothing (but the update still counts).
                plan.updates.append(SurfaceUpdate(name: name, pool: buffer.pool, source: buffer.source, layout: buffer.layout,
                                                  damage: damage.isEmpty ? [] : (rects.isEmpty ? [SurfaceRect(x: 0, y: 0, width: 0, height: 0)] : rects),
                                                  lease: lease))
                plan.attached.append(layer)
                if released.insert(bufferID).inserted { plan.waits.append(.release(buffer: bufferID)) }
            case .frameCallback(let id):
                plan.waits.append(.frame(id))
            case .presentationFeedback(let id):
                plan.waits.append(.feedback(id, layers: []))
            }
        }
        return .success(plan)
    }

    /// The importer of GPU buffers, made the first time one is asked for (or why it cannot be).
    mutating func gpuBufferImporter() -> Result<GpuBufferImporter, GpuBufferImporter.Failure> {
        if let made = gpuImporter { return made }
        let made: Result<GpuBufferImporter, GpuBufferImporter.Failure>
        do {
            made = .success(try GpuBufferImporter())
        } catch {
            made = .failure(GpuBufferImporter.Failure(message: "this daemon cannot import GPU buffers: \(error)"))
        }
        gpuImporter = made
        return made
    }

    /// The model tree's failure of the commit's operations before `index` (all of them when
    /// `index` is past them), if one fails: validated on a copy, so nothing changes.
    func earlierFailure(_ commit: Commit, before index: Int) -> CommitError? {
        guard case .operations(let ops) = commit.content, index > 0 else { return nil }
        var probe = model
        var prefix = commit
        prefix.content = .operations(Array(ops[..<min(index, ops.count)]))
        prefix.surfaceOperations = []
        do { _ = try probe.validate(prefix, at: commit.time ?? 0) } catch { return error }
        return nil
    }

    struct SurfaceFailure: Error {
        var index: Int
        var code: ErrorCode
        var message: String
    }

    /// After the commit's packet was made: records the plan (names, pixel bytes, what waits
    /// for the applying frame) and removes deleted surfaces' images.
    mutating func commitSurfaces(_ plan: SurfacePlan, client: UInt32, sequence: UInt64, _ effects: inout [ServerEffect]) {
        var table = surfaceTables[client] ?? ClientSurfaces()
        for id in plan.deleted {
            if let name = table.names.removeValue(forKey: id) { effects.append(.setImage(name: name, image: nil)) }
            table.shown[id] = nil
        }
        for (id, name) in plan.names { table.names[id] = name }
        for (id, bytes) in plan.shown where table.names[id] != nil { table.shown[id] = bytes }
        surfaceTables[client] = table
        for kind in plan.waits {
            var k = kind
            var lease: SurfaceLease? = nil
            if case .feedback(let id, _) = kind { k = .feedback(id, layers: plan.attached) }
            if case .release(let buffer) = kind { lease = plan.leases[buffer] }
            surfaceWaits.append(SurfaceWait(client: client, sequence: sequence, kind: k, lease: lease))
        }
        if !plan.attached.isEmpty {
            surfaceWaits.append(SurfaceWait(client: client, sequence: sequence, kind: .attachedOnly, attached: plan.attached))
        }
        // The frame that applies the packet must be reported (`snapshotPublished`) even when it
        // has no other events: the render side wakes the server only for a requested frame.
        if !plan.waits.isEmpty { effects.append(.requestFrame) }
    }

    /// A snapshot came: the waits of the packets it applied go out, in packet order: buffer
    /// releases (the frame copied their pixels), presentation feedback (presented at the
    /// frame's time, or discarded when every layer its commit attached was attached again by
    /// a later commit applied in the same frame), frame callbacks (with the next frame's target
    /// time).
    mutating func surfaceEvents(for snapshot: PresentationSnapshot) -> [ServerEffect] {
        guard !surfaceWaits.isEmpty else { return [] }
        let due = surfaceWaits.filter { $0.sequence <= snapshot.sequence }
        guard !due.isEmpty else { return [] }
        surfaceWaits.removeAll { $0.sequence <= snapshot.sequence }
        var lastAttach: [LayerID: UInt64] = [:]
        for w in due {
            for l in w.attached { lastAttach[LayerID(client: w.client, local: l)] = max(lastAttach[LayerID(client: w.client, local: l)] ?? 0, w.sequence) }
        }
        let refresh = display.refreshRate > 0 ? 1 / display.refreshRate : 0
        var releases: [ServerEffect] = [], feedback: [ServerEffect] = [], frames: [ServerEffect] = []
        func event(_ e: Event, _ client: UInt32) -> ServerEffect {
            .write(client: client, bytes: MessageEncoder.encode(e, requestID: 0))
        }
        for w in due where isConnected(w.client) {
            switch w.kind {
            case .release(let buffer):
                // The GPU may still be reading it (zero copy), or samples it in place until a
                // later attach replaced it: released when it is done.
                if let done = readsCompleted, w.sequence > done { heldReleases.append(w); continue }
                switch w.lease?.state {
                case .held?: sampledInPlace.append(w)
                case .superseded?: break
                default: releases.append(event(.bufferReleased(id: buffer), w.client))
                }
            case .attachedOnly: continue
            case .feedback(let id, let layers):
                let discarded = !layers.isEmpty && layers.allSatisfy { lastAttach[LayerID(client: w.client, local: $0)]! > w.sequence }
                feedback.append(event(.presented(id: id, discarded: discarded, time: snapshot.time, refresh: refresh,
                                                 frame: snapshot.frame), w.client))
            case .frame(let id):
                frames.append(event(.frameDone(id: id, time: snapshot.time, targetTime: snapshot.time + refresh), w.client))
            }
        }
        return releases + feedback + frames
    }

    /// The render side's GPU reads of the buffers of every packet up to `sequence` are done
    /// (`RenderLoop.Outbox.surfaceReadsCompleted`): the releases held for them go out, in
    /// packet order. From the first call on, a release waits for it.
    /// Releases of buffers sampled in place go out once their lease ended (dropped when
    /// superseded: a later attachment of the same buffer is released instead).
    public mutating func surfaceReadsCompleted(through sequence: UInt64) -> [ServerEffect] {
        readsCompleted = max(readsCompleted ?? 0, sequence)
        guard !heldReleases.isEmpty || !sampledInPlace.isEmpty else { return [] }
        var effects: [ServerEffect] = []
        func release(_ w: SurfaceWait) {
            if case .release(let buffer) = w.kind, isConnected(w.client) {
                effects.append(.write(client: w.client, bytes: MessageEncoder.encode(Event.bufferReleased(id: buffer), requestID: 0)))
            }
        }
        for w in heldReleases where w.sequence <= sequence {
            switch w.lease?.state {
            case .held?: sampledInPlace.append(w)
            case .superseded?: break
            default: release(w)
            }
        }
        heldReleases.removeAll { $0.sequence <= sequence }
        var stillHeld: [SurfaceWait] = []
        for w in sampledInPlace {
            switch w.lease?.state {
            case .ended?: release(w)
            case .superseded?: break
            default: stillHeld.append(w)
            }
        }
        sampledInPlace = stillHeld
        return effects
    }

    /// The client is gone: its descriptors are closed, its pools and buffers unmapped (once no
    /// packet in flight copies from them), its surfaces' images removed.
    mutating func dropSurfaces(of client: UInt32) -> [ServerEffect] {
        surfaceWaits.removeAll { $0.client == client }
        heldReleases.removeAll { $0.client == client }
        sampledInPlace.removeAll { $0.client == client }
        guard let table = surfaceTables.removeValue(forKey: client) else { return [] }
        table.fds.forEach { close($0) }
        var effects: [ServerEffect] = table.names.values.sorted().map { .setImage(name: $0, image: nil) }
        // A frame after the table is gone lets the render side free its imports of the pools
        // (HostMemorySurfaces.finishReads(through:)), so their mappings go at once.
        if !table.pools.isEmpty || !table.buffers.isEmpty { effects.append(.requestFrame) }
        return effects
    }
}
