import Glibc
import LaminaModel
import LaminaWire
import Synchronization

/// A surface layer (`type: "surface"`): it shows pixels the client draws itself, through
/// shared memory (docs/protocol.md, Surfaces). `makeBuffers` makes a ring of buffers in one
/// memfd shared with the daemon; `nextBuffer()` hands one the daemon does not read, the client
/// draws into its `pixels`, `present(_:damage:)` stages it (with a frame callback) and the
/// connection's `commit()` shows it, atomically with the transaction's other changes. The
/// daemon copies the damaged rectangles and releases the buffer (`isBusy` turns false) — or,
/// where it samples the buffer in place, releases it once a later `present` replaced it and the
/// frame that last drew it finished (keep three buffers: a ring of two then waits for that
/// frame) — and `onFrame` says when to draw the next frame (the frame's time and the next
/// frame's target).
///
///     let surface = connection.makeSurfaceLayer()
///     try surface.makeBuffers(width: 320, height: 240)
///     surface.onFrame = { _, target in … draw the frame for `target`, present, commit … }
///     if let b = surface.nextBuffer() { draw(into: b.pixels); surface.present(b); try connection.commit() }
public final class SurfaceLayer: Layer {
    /// The ring `makeBuffers` made (empty before).
    public private(set) var buffers: [SurfaceBuffer] = []
    /// The GPU buffers `addGpuBuffer` made.
    public private(set) var gpuBuffers: [GpuSurfaceBuffer] = []
    private var poolID: UInt32 = 0
    private var mapping: (base: UnsafeMutableRawPointer, size: Int)?
    /// The memfd's name as /proc shows it (`lamina-surface-LAYER-SERIAL-`, unique in the
    /// process), once `makeBuffers` made it.
    public private(set) var memoryName: String?
    private static let serial = Atomic<Int>(0)
    /// The next buffer `nextBuffer` tries first (round robin).
    private var cursor = 0
    /// The connection's link (weak: a layer may outlive its connection).
    private weak var link: Link?

    /// Called on the connection's delivery context once the daemon made the frame that shows
    /// the last `present`: the frame's compositor time and the next frame's target time.
    public var onFrame: (@Sendable (_ time: Double, _ targetTime: Double) async -> Void)?
    /// When set, each `present` also asks for presentation feedback: called on the connection's
    /// delivery context when the frame showing it reached the target (or with `discarded`
    /// when a later commit replaced it in the same frame).
    public var onPresented: (@Sendable (PresentationFeedback) async -> Void)?

    /// Makes `count` buffers of `width × height` pixels (rows of `width × 4` bytes, laid end to
    /// end) in one memfd sealed against shrinking, and sends it to the daemon as a pool.
    /// - Throws: `LaminaError.requestFailed` (the daemon refused the pool or a buffer:
    ///   `limitExceeded` over the client's memory limit, `invalidBuffer`), or
    ///   `LaminaError.protocolViolation` when the memfd cannot be made.
    public func makeBuffers(width: Int, height: Int, format: BufferFormat = .bgra8, count: Int = 3) throws {
        precondition(buffers.isEmpty, "makeBuffers is called once per surface layer")
        precondition(width > 0 && height > 0 && count > 0)
        let stride = width * 4, size = stride * height * count
        let name = "lamina-surface-\(id)-\(Self.serial.wrappingAdd(1, ordering: .relaxed).oldValue)-"
        let fd = MemoryFile.make(name: name, size: size)
        guard fd >= 0 else { throw LaminaError.protocolViolation("memfd_create: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), base != MAP_FAILED else {
            throw LaminaError.protocolViolation("shared memory: \(String(cString: strerror(errno)))")
        }
        mapping = (base, size)
        memoryName = name
        link = connection.link
        poolID = connection.takeSurfaceID()
        guard case .poolCreated = try connection.roundTrip(.createPool(id: poolID, size: UInt64(size)), descriptor: fd) else {
            throw LaminaError.protocolViolation("expected poolCreated")
        }
        var made: [Request] = []
        for k in 0..<count {
            let id = connection.takeSurfaceID()
            let request = Request.createBuffer(id: id, pool: poolID, offset: UInt64(k * stride * height), width: UInt32(width),
                                               height: UInt32(height), stride: UInt32(stride), format: format)
            guard case .bufferCreated = try connection.roundTrip(request) else {
                throw LaminaError.protocolViolation("expected bufferCreated")
            }
            made.append(request)
            let buffer = SurfaceBuffer(id: id, pixels: base + k * stride * height, width: width, height: height,
                                       stride: stride, format: format)
            connection.link.state.withLock { $0.bufferReleases[id] = { buffer.busy.store($0, ordering: AtomicStoreOrdering.releasing) } }
            buffers.append(buffer)
        }
        // The pool's own id is no longer needed: the buffers keep the memory.
        _ = try connection.roundTrip(.destroyPool(id: poolID))
        // A connection that reconnects keeps the memfd open (a duplicate) to send the pool
        // and its buffers again after a daemon restart (ModelJournal.PoolRecord).
        if connection.link.isJournaling, let kept = KeptDescriptor(duplicating: fd) {
            let record = ModelJournal.PoolRecord(layer: id, pool: poolID, size: UInt64(size), fd: kept, buffers: made)
            connection.link.state.withLock { $0.journal?.madePool(record) }
        }
    }

    /// A buffer the daemon does not read now (the round robin's next free one), or nil while
    /// every buffer is attached and not released yet.
    public func nextBuffer() -> SurfaceBuffer? {
        for k in 0..<buffers.count {
            let b = buffers[(cursor + k) % buffers.count]
            if !b.isBusy {
                cursor = (cursor + k + 1) % buffers.count
                return b
            }
        }
        return nil
    }

    /// Stages `buffer`'s attachment with its damaged rectangles (buffer pixels; empty: all of
    /// it) and a frame callback (`onFrame`); the next `commit` shows it. The buffer is busy
    /// until the daemon releases it: don't draw into it before.
    public func present(_ buffer: SurfaceBuffer, damage: [DamageRect] = []) {
        present(id: buffer.id, busy: buffer.busy, damage: damage)
    }

    /// Shares a GPU image with the daemon as a buffer of this layer (docs/protocol.md, GPU
    /// buffers): `memoryFD` is the image memory's opaque fd (`vkGetMemoryFdKHR`; taken: closed
    /// here once sent), the rest describes the image (`GpuBufferDescription`; LaminaRender's
    /// `GpuImageExporter` makes such an image and has them all). Draw into the image and wait
    /// until the drawing is done before `present`: the daemon reads it when it applies the commit.
    /// - Throws: `LaminaError.requestFailed` (`invalidBuffer` naming what is wrong: another
    ///   device, a format the daemon does not sample, memory too small; `limitExceeded`).
    public func addGpuBuffer(memoryFD: Int32, width: Int, height: Int, format: UInt32, size: UInt64, memoryType: UInt32,
                             deviceUUID: [UInt8]) throws -> GpuSurfaceBuffer {
        defer { close(memoryFD) }
        precondition(deviceUUID.count == 16, "a device UUID is 16 bytes")
        link = connection.link
        let id = connection.takeSurfaceID()
        let description = GpuBufferDescription(id: id, width: UInt32(width), height: UInt32(height), format: format, size: size,
                                               memoryType: memoryType, deviceUUID: deviceUUID)
        // A connection that reconnects keeps a duplicate of the fd to share the image with a
        // restarted daemon (ModelJournal.GpuBufferRecord).
        let kept = connection.link.isJournaling ? KeptDescriptor(duplicating: memoryFD) : nil
        guard case .bufferCreated = try connection.roundTrip(.createGpuBuffer(description), descriptor: memoryFD) else {
            throw LaminaError.protocolViolation("expected bufferCreated")
        }
        if let kept {
            let record = ModelJournal.GpuBufferRecord(layer: self.id, request: .createGpuBuffer(description), fd: kept)
            connection.link.state.withLock { $0.journal?.madeGpuBuffer(record) }
        }
        let buffer = GpuSurfaceBuffer(id: id, width: width, height: height)
        connection.link.state.withLock { $0.bufferReleases[id] = { buffer.busy.store($0, ordering: AtomicStoreOrdering.releasing) } }
        gpuBuffers.append(buffer)
        return buffer
    }

    /// Stages a GPU buffer's attachment, as `present(_:damage:)` a shared-memory one's. Busy
    /// (don't draw into the image) until the daemon releases it.
    public func present(_ buffer: GpuSurfaceBuffer, damage: [DamageRect] = []) {
        present(id: buffer.id, busy: buffer.busy, damage: damage)
    }

    private func present(id bufferID: UInt32, busy: borrowing Atomic<Bool>, damage: [DamageRect]) {
        busy.store(true, ordering: AtomicStoreOrdering.releasing)
        connection.stage(.attachBuffer(layer: id, buffer: bufferID, damage: damage))
        let callback = connection.takeSurfaceID()
        let handler = onFrame
        connection.link.state.withLock { $0.frameCallbacks[callback] = { t, target in await handler?(t, target) } }
        connection.stage(.frameCallback(id: callback))
        if let presented = onPresented { connection.requestPresentationFeedback(presented) }
    }

    deinit {
        if let mapping { munmap(mapping.base, mapping.size) }
        let ids = buffers.map(\.id) + gpuBuffers.map(\.id)
        link?.state.withLock { s in for id in ids { s.bufferReleases[id] = nil } }
    }
}

/// One buffer of a `SurfaceLayer`'s ring: `pixels` (this process's mapping of the shared
/// memory, `height` rows of `stride` bytes, premultiplied, in `format`'s byte order).
public final class SurfaceBuffer: Sendable {
    public let id: UInt32
    nonisolated(unsafe) public let pixels: UnsafeMutableRawPointer
    public let width: Int, height: Int, stride: Int
    public let format: BufferFormat
    let busy = Atomic<Bool>(false)
    /// Attached and not released by the daemon yet: it may still read it.
    public var isBusy: Bool { busy.load(ordering: .acquiring) }

    init(id: UInt32, pixels: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int, format: BufferFormat) {
        self.id = id; self.pixels = pixels; self.width = width; self.height = height; self.stride = stride; self.format = format
    }
}

/// A GPU buffer of a `SurfaceLayer` (`addGpuBuffer`): the client's image, shown by `present`.
public final class GpuSurfaceBuffer: Sendable {
    public let id: UInt32
    public let width: Int, height: Int
    let busy = Atomic<Bool>(false)
    /// Attached and not released by the daemon yet: it may still read the image.
    public var isBusy: Bool { busy.load(ordering: .acquiring) }

    init(id: UInt32, width: Int, height: Int) { self.id = id; self.width = width; self.height = height }
}

/// What `presented` says of a commit's content (docs/protocol.md, Surfaces): the compositor
/// time of the frame that showed it (when it reached the window, or the offscreen target of a
/// headless daemon), the time between frames, the frame's number (increasing), and whether it
/// was discarded (every surface it attached was attached again by a later commit applied in
/// the same frame, so its content never reached a frame).
public struct PresentationFeedback: Sendable, Equatable {
    public var time: Double
    public var refreshInterval: Double
    public var frame: UInt64
    public var discarded: Bool
    public init(time: Double, refreshInterval: Double, frame: UInt64, discarded: Bool) {
        self.time = time; self.refreshInterval = refreshInterval; self.frame = frame; self.discarded = discarded
    }
}

extension Connection {
    /// Stages a `presentationFeedback` request: `handler` runs on the delivery context with
    /// the feedback about the content of the transaction it is staged in, once that content
    /// reached a frame (or was discarded).
    public func requestPresentationFeedback(_ handler: @escaping @Sendable (PresentationFeedback) async -> Void) {
        let id = takeSurfaceID()
        link.state.withLock { $0.presentationCallbacks[id] = handler }
        stage(.presentationFeedback(id: id))
    }

    /// Makes a new surface layer (`makeLayer(.surface)`, typed).
    public func makeSurfaceLayer() -> SurfaceLayer {
        makeLayer(.surface) as! SurfaceLayer
    }

    /// Sends a request with a descriptor (SCM_RIGHTS) and blocks until its reply.
    /// With reconnection on, a PNG file named (`openImageFile`) is recorded for the replay
    /// with a duplicate of its descriptor once the daemon accepts it.
    func roundTrip(_ request: Request, descriptor: Int32) throws(LaminaError) -> Event {
        var hooks: Link.CommitHooks?
        if link.isJournaling, case .openImageFile(let name) = request, let kept = KeptDescriptor(duplicating: descriptor) {
            hooks = Link.CommitHooks(journal: .upload(ModelJournal.ImageRecord(name: name, source: .file(kept))))
        }
        return try link.roundTrip(takeStaged(), request, hooks: hooks, descriptor: descriptor)
    }
}
