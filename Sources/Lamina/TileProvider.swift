import Glibc
import LaminaModel
import LaminaWire
import Synchronization

/// Draws one tile of a client-drawn tiled image (`Connection.createTiledImage`): `request`
/// names it (its level of detail, column and row, and the level's pixels it holds: `x`, `y`,
/// `width`, `height`, the level being the image scaled by 2^−level); `pixels` is
/// `width × height × 4` bytes of premultiplied RGBA, rows top first, tightly packed, zeroed.
/// Return false to leave the tile unanswered (the daemon keeps showing the coarser level).
/// Runs on the connection's delivery context, one tile at a time.
public typealias TileProvider = @Sendable (_ request: TileRequest, _ pixels: UnsafeMutableRawBufferPointer) -> Bool

/// A `TileProvider` that is also told when the tile it draws is cancelled meanwhile
/// (`tileCancelled`: the tile left the view, or the daemon stopped waiting for it): a provider
/// drawing a slow tile checks `cancellation.isCancelled` now and then and returns false to
/// stop (what it returns after the cancellation is not sent).
public typealias CancellableTileProvider = @Sendable (_ request: TileRequest, _ pixels: UnsafeMutableRawBufferPointer,
                                                      _ cancellation: TileCancellation) -> Bool

/// Whether the daemon cancelled a tile request (`tileCancelled`) while its provider draws it:
/// set by the connection's reader thread, read from any thread.
public final class TileCancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    public var isCancelled: Bool { flag.load(ordering: .acquiring) }
    func cancel() { flag.store(true, ordering: .releasing) }
}

extension Connection {
    /// Names a `width × height` image for tiled layers whose tiles this client draws on request
    /// (docs/protocol.md, Images, `createTiledImage`): as a tiled layer showing it draws, the
    /// daemon asks for each tile in view that is not in its cache (`tileWanted`); the library
    /// calls `provider` and answers with the pixels through shared memory (`provideTile`).
    /// Tiles not answered yet show the coarser level. With reconnection on, the image is named
    /// again after a daemon restart and the new daemon asks for its tiles again.
    /// - Parameter onCancelled: runs on the delivery context for each `tileCancelled` of a
    ///   tile asked for and not answered (one not drawn yet is then not drawn; one being drawn
    ///   is told through `TileCancellation` with `createTiledImage(name:width:height:onCancelled:cancellableProvider:)`).
    /// - Throws: `LaminaError.requestFailed` naming the image: `invalidValue` for a size
    ///   outside 1…2^30 a side or a bad name, `duplicateImage`.
    public func createTiledImage(name: String, width: Int, height: Int,
                                 onCancelled: (@Sendable (TileRequest) async -> Void)? = nil,
                                 provider: @escaping TileProvider) throws -> Image {
        try createTiledImage(name: name, width: width, height: height, onCancelled: onCancelled,
                             cancellableProvider: { request, pixels, _ in provider(request, pixels) })
    }

    /// `createTiledImage(name:width:height:onCancelled:provider:)` with a provider told of a
    /// cancellation while it draws.
    public func createTiledImage(name: String, width: Int, height: Int,
                                 onCancelled: (@Sendable (TileRequest) async -> Void)? = nil,
                                 cancellableProvider provider: @escaping CancellableTileProvider) throws -> Image {
        let supplier = TileSupplier(link: link, poolID: takeSurfaceID(), bufferID: takeSurfaceID(), provider: provider,
                                    onCancelled: onCancelled)
        link.state.withLock { $0.tileSuppliers[name] = supplier }
        let reply: Event
        do {
            reply = try roundTrip(.createTiledImage(name: name, width: UInt32(clamping: width), height: UInt32(clamping: height)))
        } catch {
            link.state.withLock { s in if s.tileSuppliers[name] === supplier { s.tileSuppliers[name] = nil } }
            throw error
        }
        guard case .imageUploaded(_, let w, let h) = reply else { throw LaminaError.protocolViolation("expected imageUploaded") }
        return Image(connection: self, name: name, width: Int(w), height: Int(h))
    }
}

extension TiledLayer {
    /// Shows a `width × height` image whose tiles `provider` draws on request
    /// (`Connection.createTiledImage`), staged like any `contents`; returns the image.
    @discardableResult
    public func drawTiles(name: String, width: Int, height: Int, onCancelled: (@Sendable (TileRequest) async -> Void)? = nil,
                          provider: @escaping TileProvider) throws -> Image {
        let image = try connection.createTiledImage(name: name, width: width, height: height, onCancelled: onCancelled,
                                                    provider: provider)
        setContents(image)
        return image
    }
}

extension TileRequest {
    /// Whether `other` names the same tile (of the same image).
    func isSameTile(_ other: TileRequest) -> Bool {
        level == other.level && column == other.column && row == other.row && tileWidth == other.tileWidth
            && tileHeight == other.tileHeight && name == other.name
    }
}

/// One client-drawn image's answers: a shared-memory pool (one memfd, grown to the largest
/// tile asked for) holding one buffer, drawn and sent per request. The reader thread notes
/// requests and cancellations; the delivery context draws (so one tile at a time).
final class TileSupplier: Sendable {
    nonisolated(unsafe) private weak var link: Link?
    private let poolID: UInt32, bufferID: UInt32
    private let provider: CancellableTileProvider
    let onCancelled: (@Sendable (TileRequest) async -> Void)?
    private struct State {
        /// Tiles asked for and not drawn yet (nor cancelled).
        var pending: Set<TileRequest> = []
        /// Tiles asked for and neither answered nor cancelled (drawn and declined included).
        var outstanding: Set<TileRequest> = []
        /// The tile the provider draws now, and its cancellation.
        var drawing: (request: TileRequest, cancellation: TileCancellation)?
        /// The pool's memfd (kept open: sent again after a reconnection) and mapping (its
        /// address as a number: the state is sendable).
        var mapping: (fd: Int32, address: Int, size: Int)?
        /// Whether the daemon now serving the connection has the pool.
        var poolSent = false
        /// The buffer's size now (nil: none made).
        var buffer: (width: Int, height: Int)?
        var closed = false
    }
    private let state = Mutex(State())

    init(link: Link, poolID: UInt32, bufferID: UInt32, provider: @escaping CancellableTileProvider,
         onCancelled: (@Sendable (TileRequest) async -> Void)?) {
        self.link = link; self.poolID = poolID; self.bufferID = bufferID; self.provider = provider; self.onCancelled = onCancelled
    }

    /// `tileWanted` (reader thread): the delivery job `draw` answers it.
    func wanted(_ request: TileRequest) {
        state.withLock { s in
            s.pending.insert(request)
            s.outstanding.insert(request)
        }
    }

    /// `tileCancelled` (reader thread): a request not drawn yet is dropped; one being drawn
    /// is told (`TileCancellation`). Whether it was asked for and not answered (then
    /// `onCancelled` is due).
    func cancelled(_ request: TileRequest) -> Bool {
        state.withLock { s in
            s.pending = s.pending.filter { !$0.isSameTile(request) }
            if let d = s.drawing, d.request.isSameTile(request) { d.cancellation.cancel() }
            let before = s.outstanding.count
            s.outstanding = s.outstanding.filter { !$0.isSameTile(request) }
            return s.outstanding.count != before
        }
    }

    /// The connection reconnected to a new daemon (reader thread, before it reads anything
    /// from it): what the old one asked for is dropped (the new one asks again); the pool and
    /// buffer are sent again when next needed.
    func reconnected() {
        state.withLock { s in
            s.pending = []
            s.outstanding = []
            s.drawing?.cancellation.cancel()
            s.poolSent = false
            s.buffer = nil
        }
    }

    /// Draws and answers `request` if it is still wanted (delivery context). A request the
    /// daemon refuses is dropped (the error also comes as `requestFailed`).
    func draw(_ request: TileRequest) {
        let cancellation = TileCancellation()
        guard let link, state.withLock({ s in
            guard s.pending.remove(request) != nil, !s.closed else { return false }
            s.drawing = (request, cancellation)
            return true
        }) else { return }
        defer { state.withLock { $0.drawing = nil } }
        let w = Int(request.width), h = Int(request.height), bytes = w * h * 4
        guard bytes > 0 else { return }
        do {
            let base = try room(bytes, link)
            base.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
            guard provider(request, UnsafeMutableRawBufferPointer(start: base, count: bytes), cancellation),
                  !cancellation.isCancelled else { return }
            if state.withLock({ $0.buffer.map { $0 != (w, h) } ?? true }) {
                if state.withLock({ $0.buffer != nil }) { _ = try link.roundTrip([], .destroyBuffer(id: bufferID)) }
                state.withLock { $0.buffer = nil }
                _ = try link.roundTrip([], .createBuffer(id: bufferID, pool: poolID, offset: 0, width: UInt32(w), height: UInt32(h),
                                                         stride: UInt32(w * 4), format: .rgba8))
                state.withLock { $0.buffer = (w, h) }
            }
            _ = try link.roundTrip([], .provideTile(request.answer(buffer: bufferID)))
            state.withLock { _ = $0.outstanding.remove(request) }
        } catch {
            return
        }
    }

    /// The pool's mapping, at least `bytes` long: a larger one made (and the old one let go)
    /// when it is not.
    private func room(_ bytes: Int, _ link: Link) throws(LaminaError) -> UnsafeMutableRawPointer {
        if let m = state.withLock({ $0.mapping }), m.size >= bytes {
            if !state.withLock({ $0.poolSent }) { try sendPool(m.fd, m.size, link) }
            return UnsafeMutableRawPointer(bitPattern: m.address)!
        }
        if let old = state.withLock({ s in defer { s.mapping = nil }; return s.mapping }) {
            if state.withLock({ $0.poolSent }) {
                if state.withLock({ $0.buffer != nil }) { _ = try link.roundTrip([], .destroyBuffer(id: bufferID)) }
                _ = try link.roundTrip([], .destroyPool(id: poolID))
            }
            state.withLock { $0.buffer = nil; $0.poolSent = false }
            munmap(UnsafeMutableRawPointer(bitPattern: old.address), old.size)
            Glibc.close(old.fd)
        }
        let size = max(bytes, 256 * 256 * 4)
        let fd = MemoryFile.make(name: "lamina-tiles", size: size)
        guard fd >= 0 else { throw LaminaError.protocolViolation("memfd_create: \(String(cString: strerror(errno)))") }
        guard let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), base != MAP_FAILED else {
            Glibc.close(fd)
            throw LaminaError.protocolViolation("shared memory: \(String(cString: strerror(errno)))")
        }
        state.withLock { $0.mapping = (fd, Int(bitPattern: base), size) }
        try sendPool(fd, size, link)
        return base
    }

    /// Sends the pool (its memfd) to the daemon now serving the connection.
    private func sendPool(_ fd: Int32, _ size: Int, _ link: Link) throws(LaminaError) {
        guard case .poolCreated = try link.roundTrip([], .createPool(id: poolID, size: UInt64(size)), descriptor: fd) else {
            throw LaminaError.protocolViolation("expected poolCreated")
        }
        state.withLock { $0.poolSent = true }
    }

    /// The image was released: nothing more is drawn (the daemon frees the pool when the
    /// connection ends; the mapping goes with this object).
    func close() { state.withLock { $0.closed = true; $0.pending = []; $0.outstanding = [] } }

    deinit {
        if let m = state.withLock({ $0.mapping }) {
            munmap(UnsafeMutableRawPointer(bitPattern: m.address), m.size)
            Glibc.close(m.fd)
        }
    }
}
