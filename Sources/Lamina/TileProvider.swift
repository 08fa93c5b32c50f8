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

extension Connection {
    /// Names a `width × height` image for tiled layers whose tiles this client draws on request
    /// (docs/protocol.md, Images, `createTiledImage`): as a tiled layer showing it draws, the
    /// daemon asks for each tile in view that is not in its cache (`tileWanted`); the library
    /// calls `provider` and answers with the pixels through shared memory (`provideTile`).
    /// Tiles not answered yet show the coarser level. Not replayed after a reconnect.
    /// - Throws: `LaminaError.requestFailed` naming the image: `invalidValue` for a size
    ///   outside 1…2^30 a side or a bad name, `duplicateImage`.
    public func createTiledImage(name: String, width: Int, height: Int, provider: @escaping TileProvider) throws -> Image {
        let supplier = TileSupplier(link: link, poolID: takeSurfaceID(), bufferID: takeSurfaceID(), provider: provider)
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
    public func drawTiles(name: String, width: Int, height: Int, provider: @escaping TileProvider) throws -> Image {
        let image = try connection.createTiledImage(name: name, width: width, height: height, provider: provider)
        setContents(image)
        return image
    }
}

/// One client-drawn image's answers: a shared-memory pool (one memfd, grown to the largest
/// tile asked for) holding one buffer, drawn and sent per request. The reader thread notes
/// requests and cancellations; the delivery context draws (so one tile at a time).
final class TileSupplier: Sendable {
    nonisolated(unsafe) private weak var link: Link?
    private let poolID: UInt32, bufferID: UInt32
    private let provider: TileProvider
    private struct State {
        /// Tiles asked for and neither answered nor cancelled.
        var pending: Set<TileRequest> = []
        /// The pool's mapping (its address as a number: the state is sendable).
        var mapping: (address: Int, size: Int)?
        /// The buffer's size now (nil: none made).
        var buffer: (width: Int, height: Int)?
        var closed = false
    }
    private let state = Mutex(State())

    init(link: Link, poolID: UInt32, bufferID: UInt32, provider: @escaping TileProvider) {
        self.link = link; self.poolID = poolID; self.bufferID = bufferID; self.provider = provider
    }

    /// `tileWanted` (reader thread): the delivery job `draw` answers it.
    func wanted(_ request: TileRequest) { state.withLock { _ = $0.pending.insert(request) } }

    /// `tileCancelled` (reader thread): a request not drawn yet is dropped.
    func cancelled(_ request: TileRequest) {
        state.withLock { s in
            s.pending = s.pending.filter { !($0.level == request.level && $0.column == request.column && $0.row == request.row
                                             && $0.tileWidth == request.tileWidth && $0.tileHeight == request.tileHeight) }
        }
    }

    /// Draws and answers `request` if it is still wanted (delivery context). A request the
    /// daemon refuses is dropped (the error also comes as `requestFailed`).
    func draw(_ request: TileRequest) {
        guard let link, state.withLock({ $0.pending.remove(request) != nil && !$0.closed }) else { return }
        let w = Int(request.width), h = Int(request.height), bytes = w * h * 4
        guard bytes > 0 else { return }
        do {
            let base = try room(bytes, link)
            base.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
            guard provider(request, UnsafeMutableRawBufferPointer(start: base, count: bytes)) else { return }
            if state.withLock({ $0.buffer.map { $0 != (w, h) } ?? true }) {
                if state.withLock({ $0.buffer != nil }) { _ = try link.roundTrip([], .destroyBuffer(id: bufferID)) }
                state.withLock { $0.buffer = nil }
                _ = try link.roundTrip([], .createBuffer(id: bufferID, pool: poolID, offset: 0, width: UInt32(w), height: UInt32(h),
                                                         stride: UInt32(w * 4), format: .rgba8))
                state.withLock { $0.buffer = (w, h) }
            }
            _ = try link.roundTrip([], .provideTile(request.answer(buffer: bufferID)))
        } catch {
            return
        }
    }

    /// The pool's mapping, at least `bytes` long: a larger one made (and the old one let go)
    /// when it is not.
    private func room(_ bytes: Int, _ link: Link) throws(LaminaError) -> UnsafeMutableRawPointer {
        if let m = state.withLock({ $0.mapping }), m.size >= bytes { return UnsafeMutableRawPointer(bitPattern: m.address)! }
        if let old = state.withLock({ s in defer { s.mapping = nil }; return s.mapping }) {
            if state.withLock({ $0.buffer != nil }) { _ = try link.roundTrip([], .destroyBuffer(id: bufferID)) }
            state.withLock { $0.buffer = nil }
            _ = try link.roundTrip([], .destroyPool(id: poolID))
            munmap(UnsafeMutableRawPointer(bitPattern: old.address), old.size)
        }
        let size = max(bytes, 256 * 256 * 4)
        let fd = MemoryFile.make(name: "lamina-tiles", size: size)
        guard fd >= 0 else { throw LaminaError.protocolViolation("memfd_create: \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        guard let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), base != MAP_FAILED else {
            throw LaminaError.protocolViolation("shared memory: \(String(cString: strerror(errno)))")
        }
        let created: Event
        do {
            created = try link.roundTrip([], .createPool(id: poolID, size: UInt64(size)), descriptor: fd)
        } catch {
            munmap(base, size)
            throw error
        }
        guard case .poolCreated = created else {
            munmap(base, size)
            throw LaminaError.protocolViolation("expected poolCreated")
        }
        let address = Int(bitPattern: base)
        state.withLock { $0.mapping = (address, size) }
        return base
    }

    /// The image was released: nothing more is drawn (the daemon frees the pool when the
    /// connection ends; the mapping goes with this object).
    func close() { state.withLock { $0.closed = true; $0.pending = [] } }

    deinit {
        if let m = state.withLock({ $0.mapping }) { munmap(UnsafeMutableRawPointer(bitPattern: m.address), m.size) }
    }
}
