#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A client's shared-memory pool as the daemon maps it (docs/protocol.md, Surfaces): a
/// `memfd` sealed against shrinking (`F_SEAL_SHRINK`), mapped read-only and shared, its
/// descriptor closed at once (the mapping keeps the pages). Unmapped when the last holder lets
/// it go: the server's pool table, a buffer carved from it, or a commit in flight that copies
/// from it. Any thread may read it; nobody writes through it.
public final class SharedMemoryPool: @unchecked Sendable {
    // @unchecked: `base` is a read-only mapping that lives as long as this object.
    public let base: UnsafeRawPointer
    public let size: Int

    /// Why a descriptor is not a pool.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var message: String
        public var description: String { message }
    }

    /// Linux's `fcntl` seal commands and bits (linux/fcntl.h), which Glibc's module may lack.
    public static let getSeals: Int32 = 1034, addSeals: Int32 = 1033
    public static let sealShrink: Int32 = 2, sealGrow: Int32 = 4, sealSeal: Int32 = 1, sealWrite: Int32 = 8

    /// Maps `size` bytes of `fd` and closes `fd` (whatever the outcome). Refused: a size of 0,
    /// a descriptor that is not a memfd (no seals to read), a memfd without `F_SEAL_SHRINK`
    /// (a client could truncate it under the daemon's reads), one smaller than `size`, or one
    /// the kernel will not map.
    public init(fd: Int32, size: Int) throws(Failure) {
        defer { close(fd) }
        guard size > 0 else { throw Failure(message: "a pool's size must be > 0") }
        let seals = fcntl(fd, Self.getSeals)
        guard seals >= 0 else {
            throw Failure(message: "the file descriptor is not a memfd (F_GET_SEALS: \(String(cString: strerror(errno))))")
        }
        guard seals & Self.sealShrink != 0 else {
            throw Failure(message: "the memfd is not sealed with F_SEAL_SHRINK (add it with fcntl(F_ADD_SEALS) before sending)")
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Failure(message: "fstat: \(String(cString: strerror(errno)))") }
        guard st.st_mode & S_IFMT == S_IFREG else { throw Failure(message: "the file descriptor is not a regular memfd") }
        guard Int(st.st_size) >= size else {
            throw Failure(message: "the pool is \(size) bytes but the memfd holds \(st.st_size)")
        }
        guard let p = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw Failure(message: "mmap: \(String(cString: strerror(errno)))")
        }
        base = UnsafeRawPointer(p)
        self.size = size
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), size) }
}

/// Pixel layouts of a shared-memory buffer: 8 bits a channel, premultiplied, sRGB-encoded.
public enum SurfacePixelFormat: UInt8, Sendable, Hashable {
    /// B, G, R, A bytes (cairo's ARGB32 and Wayland's ARGB8888 on a little-endian machine).
    case bgra8 = 0
    /// R, G, B, A bytes.
    case rgba8 = 1
}

/// A buffer carved from a pool: where its pixels lie and how.
public struct SurfaceBufferLayout: Sendable, Hashable {
    public var offset: Int
    public var width: Int
    public var height: Int
    /// Bytes from one row's start to the next (≥ width × 4).
    public var stride: Int
    public var format: SurfacePixelFormat

    public init(offset: Int, width: Int, height: Int, stride: Int, format: SurfacePixelFormat) {
        self.offset = offset; self.width = width; self.height = height; self.stride = stride; self.format = format
    }

    /// The bytes it spans from `offset`: (height − 1) × stride + width × 4.
    public var span: Int { height == 0 ? 0 : (height - 1) * stride + width * 4 }

    /// A copy of its pixels in `pool` (which it fits) as premultiplied RGBA rows, tightly packed.
    public func rgbaPixels(in pool: SharedMemoryPool) -> [UInt8] {
        precondition(misfit(poolSize: pool.size) == nil)
        return [UInt8](unsafeUninitializedCapacity: width * height * 4) { out, count in
            let to = UnsafeMutableRawPointer(out.baseAddress!)
            for row in 0..<height {
                let from = pool.base + offset + row * stride
                switch format {
                case .rgba8: (to + row * width * 4).copyMemory(from: from, byteCount: width * 4)
                case .bgra8: SurfaceStorage.swizzle(from: from, to: to + row * width * 4, pixels: width)
                }
            }
            count = width * height * 4
        }
    }

    /// Why it does not fit a pool of `poolSize` bytes, or nil.
    public func misfit(poolSize: Int) -> String? {
        guard width > 0, height > 0 else { return "width and height must be > 0 (got \(width)×\(height))" }
        guard width <= 16384, height <= 16384 else { return "width and height are at most 16384 (got \(width)×\(height))" }
        guard stride >= width * 4 else { return "stride \(stride) is less than width × 4 = \(width * 4)" }
        guard stride % 4 == 0 else { return "stride \(stride) is not a multiple of 4" }
        guard offset >= 0, offset % 4 == 0 else { return "offset \(offset) is not a multiple of 4" }
        let (end, over) = offset.addingReportingOverflow(span)
        guard !over, end <= poolSize else {
            return "the buffer needs bytes \(offset)…\(offset &+ span) but the pool holds \(poolSize)"
        }
        return nil
    }
}

/// A rectangle of pixels (x, y from the top left).
public struct SurfaceRect: Sendable, Hashable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) { self.x = x; self.y = y; self.width = width; self.height = height }

    /// This rectangle cut to 0…w × 0…h (nil when nothing is left).
    public func clipped(width w: Int, height h: Int) -> SurfaceRect? {
        let x0 = max(x, 0), y0 = max(y, 0)
        let x1 = min(x.addingReportingOverflow(width).overflow ? Int.max : x + width, w)
        let y1 = min(y.addingReportingOverflow(height).overflow ? Int.max : y + height, h)
        guard x1 > x0, y1 > y0 else { return nil }
        return SurfaceRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
    public var area: Int { width * height }
}

/// Pixels of a surface buffer that are not in shared memory: a client's GPU image
/// (LaminaRender's `ImportedGpuImage`), read on the render thread when the packet that
/// attached it is applied, so the client may draw into it again once `bufferReleased` came.
public protocol SurfacePixelSource: AnyObject, Sendable {
    var width: Int { get }
    var height: Int { get }
    /// Calls `body` once with the pixels (row 0 at the pointer, rows `stride` bytes apart, in
    /// the format given), valid during the call, of which it reads only `rects`. False, and
    /// `body` not called, when they could not be read.
    func withPixels(_ rects: [SurfaceRect],
                    _ body: (_ base: UnsafeRawPointer, _ stride: Int, _ format: SurfacePixelFormat) -> Void) -> Bool
}

/// Copies shared-memory buffers straight into surfaces' GPU copies, without a CPU copy
/// (LaminaRender's `HostMemorySurfaces`: the pool's pages imported with
/// `VK_EXT_external_memory_host`). The render thread's `FrameDriver` asks it first for each
/// update of a pool's buffer; the reads it queues are finished before the frame that applies
/// them is published, so a `bufferReleased` never comes before the GPU read the buffer.
public protocol SurfaceDirectUploader: AnyObject {
    /// Queues the copy of `rects` (inside the buffer) of `update`'s buffer into `storage`'s GPU
    /// copy (made when it has none), in the buffer's byte order; false (nothing queued) when it
    /// cannot: the caller copies on the CPU instead.
    func upload(_ update: SurfaceUpdate, rects: [SurfaceRect], into storage: SurfaceStorage) -> Bool
    /// `storage` no longer shows anything (its layer shows nothing, is gone, or has a new
    /// storage): a buffer it sampled in place is let go once the frames that drew it finished.
    func dropped(_ storage: SurfaceStorage)
}

/// One attachment of a shared-memory buffer, shared by the server (which owes the client its
/// `bufferReleased`) and the render side (which may sample the buffer in place: then it is
/// released only after a later attach replaced it and the last frame that sampled it finished
/// on the GPU — docs/protocol.md, "Sampled in place"). `copied` (never sampled in place:
/// released once its packet's reads are done), `held` (sampled in place by one surface or more),
/// `ended` (no longer sampled, those frames finished: release it now) or `superseded` (no
/// longer sampled under this attachment, but the same buffer still is under a later one, whose
/// release stands for both: a buffer is never released while it is shown). Any thread.
public final class SurfaceLease: Sendable {
    public enum State: Sendable, Equatable { case copied, held, ended, superseded }
    private struct Counts { var holds = 0; var everHeld = false; var superseded = false }
    private let counts = Mutex(Counts())

    public init() {}

    public var state: State {
        counts.withLock { c in
            !c.everHeld ? .copied : c.holds > 0 ? .held : c.superseded ? .superseded : .ended
        }
    }

    /// A surface samples the buffer in place (before the frame that applies it is published).
    public func hold() { counts.withLock { $0.holds += 1; $0.everHeld = true } }
    /// A surface that sampled it in place no longer does, and its last frame finished on the GPU.
    public func end() { counts.withLock { $0.holds = max($0.holds - 1, 0) } }
    /// A surface that sampled it in place no longer does under this attachment, but the buffer
    /// is still sampled in place under a later one: this attachment's release is dropped.
    public func supersede() { counts.withLock { $0.holds = max($0.holds - 1, 0); $0.superseded = true } }
}

/// One commit's change of a surface layer: copy `damage` of the buffer (`layout` in `pool`, or
/// `source`'s pixels) into the surface's pixels, or (neither) show nothing. Applied by the render side when it
/// applies the commit's packet, so the new pixels appear in the same frame as the commit's
/// other changes.
public struct SurfaceUpdate: Sendable {
    /// The image name the layer's `contents` holds (`CLIENT/surface/LAYER`).
    public var name: String
    public var pool: SharedMemoryPool?
    /// A GPU buffer's pixels (then `pool` is nil and `layout` gives only width and height).
    public var source: SurfacePixelSource?
    public var layout: SurfaceBufferLayout
    /// In buffer pixels, clipped to it; empty: the whole buffer.
    public var damage: [SurfaceRect]
    /// The attachment's release state (a pool's buffer only; nil: the buffer is never sampled
    /// in place, or nobody waits for its release).
    public var lease: SurfaceLease?

    public init(name: String, pool: SharedMemoryPool?, source: SurfacePixelSource? = nil, layout: SurfaceBufferLayout,
                damage: [SurfaceRect], lease: SurfaceLease? = nil) {
        self.name = name; self.pool = pool; self.source = source; self.layout = layout; self.damage = damage
        self.lease = lease
    }

    /// Whether it shows a buffer (else the layer shows nothing).
    public var showsBuffer: Bool { pool != nil || source != nil }
}

/// A surface layer's pixels on the render side: premultiplied RGBA8, rows top first, tightly
/// packed, changed in place by `apply` (only the damaged rectangles are copied), with a log of
/// what changed since each version so that a GPU copy can take only the damage too
/// (`damage(since:)`). Render thread only (made there, written there, read there).
public final class SurfaceStorage: @unchecked Sendable {
    // @unchecked: one thread (the render thread) owns it; `Image`s that name it are read there.
    /// Distinct from every `Image.id` (the same counter): the key of its GPU copy.
    public let id: UInt64
    public let width: Int
    public let height: Int
    /// The pixels on the CPU, allocated (zeroed) when first asked for: a surface whose buffers
    /// go to the GPU without a copy (`directFormat`) never has them.
    public var pixels: UnsafeMutableRawPointer {
        if let p = cpuPixels { return p }
        let p = UnsafeMutableRawPointer.allocate(byteCount: width * height * 4, alignment: 64)
        p.initializeMemory(as: UInt8.self, repeating: 0, count: width * height * 4)
        cpuPixels = p
        return p
    }
    private var cpuPixels: UnsafeMutableRawPointer?
    /// Set by the first `noteDirectUpload`: the pixels live only in the surface's GPU copy,
    /// in this byte order (BGRA stays BGRA: the copy does not swizzle), written there by a
    /// `SurfaceDirectUploader`; `pixels` are then not kept up to date.
    public private(set) var directFormat: SurfacePixelFormat?
    /// Bytes the GPU copied straight from shared memory so far (tests, benchmarks).
    public private(set) var directBytes = 0
    /// Changes applied so far (0: nothing copied in yet).
    public private(set) var version: UInt64 = 0
    /// The rectangles each recent version changed (the newest `logLimit`).
    private var log: [(version: UInt64, rects: [SurfaceRect])] = []
    private static let logLimit = 16
    /// Bytes copied in so far (tests, benchmarks).
    public private(set) var copiedBytes = 0

    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0)
        id = Image.nextID()
        self.width = width
        self.height = height
    }

    deinit { cpuPixels?.deallocate() }

    public var byteCount: Int { width * height * 4 }

    /// Copies the damaged rectangles of the buffer (its size must be this storage's) in,
    /// converting BGRA to RGBA, and starts a new version. Empty `damage`: the whole buffer.
    /// A GPU buffer's pixels (`update.source`) are read back first; when that fails nothing
    /// changes (the surface keeps what it showed).
    public func apply(_ update: SurfaceUpdate) {
        let whole = SurfaceRect(x: 0, y: 0, width: width, height: height)
        let rects = update.damage.isEmpty ? [whole] : update.damage.compactMap { $0.clipped(width: width, height: height) }
        if let source = update.source {
            precondition(source.width == width && source.height == height)
            _ = source.withPixels(rects) { base, stride, format in
                copy(rects, from: base, stride: stride, format: format)
            }
            return
        }
        guard let pool = update.pool else { return }
        let l = update.layout
        precondition(l.width == width && l.height == height && l.misfit(poolSize: pool.size) == nil)
        copy(rects, from: pool.base + l.offset, stride: l.stride, format: l.format)
    }

    /// Copies `rects` (inside this storage) of pixels whose row 0 starts at `src`, rows `stride`
    /// bytes apart, and starts a new version.
    private func copy(_ rects: [SurfaceRect], from src: UnsafeRawPointer, stride: Int, format: SurfacePixelFormat) {
        for r in rects {
            for row in r.y..<(r.y + r.height) {
                let from = src + row * stride + r.x * 4
                let to = pixels + (row * width + r.x) * 4
                switch format {
                case .rgba8: to.copyMemory(from: from, byteCount: r.width * 4)
                case .bgra8: Self.swizzle(from: from, to: to, pixels: r.width)
                }
            }
            copiedBytes += r.area * 4
        }
        record(rects)
    }

    /// Starts a new version that changed `rects`.
    private func record(_ rects: [SurfaceRect]) {
        version += 1
        log.append((version, rects))
        if log.count > Self.logLimit { log.removeFirst(log.count - Self.logLimit) }
    }

    /// A `SurfaceDirectUploader` copied `rects` of a buffer in `format` into the GPU copy:
    /// starts a new version (so the layer is drawn again), the CPU pixels left behind.
    public func noteDirectUpload(_ rects: [SurfaceRect], format: SurfacePixelFormat) {
        precondition(directFormat == nil || directFormat == format, "a surface's GPU copy keeps one byte order")
        directFormat = format
        directBytes += rects.reduce(0) { $0 + $1.area * 4 }
        record(rects)
    }

    /// What changed after version `v` (nil: more than the log knows: take everything).
    public func damage(since v: UInt64) -> [SurfaceRect]? {
        guard v < version else { return [] }
        guard let first = log.first, first.version <= v + 1 else { return nil }
        return log.filter { $0.version > v }.flatMap(\.rects)
    }

    /// B G R A → R G B A, four bytes a pixel (the pointers may be unaligned).
    @inline(__always)
    static func swizzle(from: UnsafeRawPointer, to: UnsafeMutableRawPointer, pixels n: Int) {
        for i in 0..<n {
            let v = from.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
            // little-endian: v = A<<24 | R<<16 | G<<8 | B → A<<24 | B<<16 | G<<8 | R
            let swapped = (v & 0xFF00_FF00) | ((v & 0x00FF_0000) >> 16) | ((v & 0x0000_00FF) << 16)
            to.storeBytes(of: swapped, toByteOffset: i * 4, as: UInt32.self)
        }
    }
}
