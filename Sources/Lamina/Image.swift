import Foundation
import LaminaWire

/// An image uploaded to the daemon once, under a name of this client's choosing, and shown by
/// any of the client's layers as their `contents` (`layer.setContents(image)`, or
/// `layer.contents = image.name`). The daemon decodes it (PNG, JPEG, WebP) or takes raw
/// premultiplied RGBA, counts it against the client's image memory, and frees it once it is
/// released and no layer shows it (docs/protocol.md, Images).
public final class Image {
    public unowned let connection: Connection
    /// The client's name for it (what `contents` holds).
    public let name: String
    /// Size in pixels, as the daemon decoded it.
    public let width: Int
    public let height: Int
    /// Whether `release()` was called.
    public private(set) var isReleased = false

    init(connection: Connection, name: String, width: Int, height: Int) {
        self.connection = connection; self.name = name; self.width = width; self.height = height
    }

    /// Releases the name: layers that show the image keep showing it until their `contents`
    /// changes; then the daemon frees it. The name may be uploaded again.
    public func release() throws {
        guard !isReleased else { return }
        guard case .imageReleased = try connection.roundTrip(.releaseImage(name: name)) else {
            throw LaminaError.protocolViolation("expected imageReleased")
        }
        isReleased = true
        // A client-drawn image's tiles are asked for no more.
        connection.link.state.withLock { $0.tileSuppliers.removeValue(forKey: name) }?.close()
    }
}

extension Connection {
    /// Uploads PNG, JPEG or WebP bytes (decoded by the daemon) under `name`.
    /// - Throws: `LaminaError.requestFailed` naming the image: `invalidImage` for bytes it
    ///   cannot decode, `limitExceeded` over the image memory limit, `duplicateImage`.
    public func uploadImage(_ bytes: [UInt8], name: String) throws -> Image {
        try upload(.uploadImage(name: name, format: .encoded, width: 0, height: 0, data: bytes))
    }

    /// Uploads an image file's bytes under `name` (the file's name when nil).
    /// - Throws: `LaminaError.fileUnreadable` naming the file and why (missing, a directory,
    ///   no permission) before anything is sent; else as `uploadImage(_:name:)`.
    public func uploadImage(contentsOfFile path: String, name: String? = nil) throws -> Image {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = access(path, F_OK) != 0 ? "no such file"
                : access(path, R_OK) != 0 ? "permission denied" : "not a readable file"
            throw LaminaError.fileUnreadable(path: path, reason: reason)
        }
        return try uploadImage([UInt8](data), name: name ?? (path as NSString).lastPathComponent)
    }

    /// Uploads premultiplied RGBA8 (sRGB-encoded, rows top first, width × height × 4 bytes).
    public func uploadImage(premultipliedRGBA pixels: [UInt8], width: Int, height: Int, name: String) throws -> Image {
        try upload(.uploadImage(name: name, format: .rawRGBA, width: UInt32(clamping: width),
                                height: UInt32(clamping: height), data: pixels))
    }

    /// Names a PNG file for tiled layers under `name` (the file's name when nil) by sending its
    /// open descriptor (SCM_RIGHTS, `openImageFile`): the daemon reads it region by region as
    /// tiles are drawn, so the file may be of any size up to 2^30 pixels a side, need not be
    /// readable at a path the daemon may open, and never travels in a message. Only tiled
    /// layers show it (docs/protocol.md, Images). Not replayed after a reconnect.
    /// - Throws: `LaminaError.fileUnreadable` when the file cannot be opened here;
    ///   `requestFailed` `invalidImage` when it is not a regular file or not a non-interlaced
    ///   PNG, `limitExceeded` when it is too large, `duplicateImage`.
    public func openImageFile(_ path: String, name: String? = nil) throws -> Image {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno == ENOENT ? "no such file" : errno == EACCES ? "permission denied" : "cannot open (errno \(errno))"
            throw LaminaError.fileUnreadable(path: path, reason: reason)
        }
        defer { Glibc.close(fd) }
        return try openImageFile(descriptor: fd, name: name ?? (path as NSString).lastPathComponent)
    }

    /// `openImageFile(_:name:)` with a descriptor already open (it stays the caller's: the
    /// daemon gets its own copy).
    public func openImageFile(descriptor fd: Int32, name: String) throws -> Image {
        guard case .imageUploaded(_, let w, let h) = try roundTrip(.openImageFile(name: name), descriptor: fd) else {
            throw LaminaError.protocolViolation("expected imageUploaded")
        }
        return Image(connection: self, name: name, width: Int(w), height: Int(h))
    }

    private func upload(_ request: Request) throws -> Image {
        guard case .uploadImage(let name, _, _, _, _) = request,
              case .imageUploaded(_, let w, let h) = try roundTrip(request) else {
            throw LaminaError.protocolViolation("expected imageUploaded")
        }
        return Image(connection: self, name: name, width: Int(w), height: Int(h))
    }
}

extension Layer {
    /// Shows an uploaded image as `contents` (staged like any property; nil: none). The same
    /// as `contents = image.name`.
    public func setContents(_ image: Image?) { contents = image?.name }
}
