#if canImport(Glibc)
import Glibc
#endif
import LaminaFrame
import LaminaImage
import LaminaWire
import LaminaModel

/// One client's images (docs/protocol.md, Images): the names it uploaded and has not released,
/// and the images its layers show. Each upload gets a daemon-wide unique *qualified* name,
/// `CLIENT/SERIAL/NAME`, which is what the model tree, the render tree and the frame's image
/// map hold: `contents` is rewritten to it at commit, so one client's name can never reach
/// another client's image, and a name uploaded again after a release is a new image while
/// layers still show the old one.
struct ClientImages {
    struct Held { var bytes: Int; var users = 0; var released = false }
    /// Names not released → qualified names.
    var named: [String: String] = [:]
    /// Every image held (named, or released and still shown), by qualified name.
    var held: [String: Held] = [:]
    /// The qualified name each of the client's layers shows (by local id).
    var shown: [UInt32: String] = [:]
    /// Bytes of every held image (the `maxImageBytesPerClient` budget).
    var bytes = 0
    /// Client-drawn tiled images (`createTiledImage`) not released, by qualified name.
    var drawn: [String: DrawnTiles] = [:]
}

/// A client-drawn tiled image (docs/protocol.md, Images): its source, the tiles asked of the
/// client and not answered or cancelled yet (in the order asked), and the answers sent to the
/// render side that its published wishes may not have seen yet (by serial).
struct DrawnTiles {
    var name: String
    var source: TileSource
    var asked: [TileKey] = []
    /// When each tile of `asked` was asked for (the daemon's clock).
    var askedAt: [TileKey: Double] = [:]
    /// Tiles whose request went unanswered for `ServerCore.tileAnswerTimeout` and were
    /// cancelled, still wanted: asked for again after the wanted tiles never asked (by the
    /// time they timed out), so a client that drops requests cannot starve the image.
    var timedOut: [TileKey: Double] = [:]
    var answered: [TileKey: UInt64] = [:]
    var serial: UInt64 = 0
}

extension ServerCore {
    /// The client's own name of a qualified image name (what `getPresentation` of `contents`
    /// answers).
    /// A surface layer's contents (its buffer, `CLIENT/surface/SERIAL/LAYER`) read as none ("").
    static func clientImageName(_ qualified: String) -> String {
        let parts = qualified.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        if parts.count == 3, parts[1] == "surface" { return "" }
        return parts.count == 3 ? String(parts[2]) : qualified
    }

    /// `uploadImage` and `releaseImage`: decodes (on the server thread, never the render
    /// thread), checks the name, the format and the client's byte budget, and hands the image
    /// to the render side under its qualified name.
    mutating func handleImage(_ request: Request, client: UInt32, requestID: UInt32, _ effects: inout [ServerEffect]) {
        let (_, name) = request.subject
        func reply(_ event: Event) {
            effects.append(.write(client: client, bytes: MessageEncoder.encode(event, requestID: requestID)))
        }
        func fail(_ code: ErrorCode, _ message: String) {
            reply(.error(opcode: request.opcode, code: code, message: "image \"\(name)\": \(message)",
                         request: requestID, key: name))
        }
        var table = imageTables[client] ?? ClientImages()
        switch request {
        case .releaseImage:
            guard let qualified = table.named.removeValue(forKey: name) else {
                return fail(.unknownImage, "no image of this name is uploaded")
            }
            table.drawn[qualified] = nil   // no tile is asked for any more
            table.held[qualified]?.released = true
            release(qualified, in: &table, &effects)
            imageTables[client] = table
            reply(.imageReleased(name: name))
        case .uploadImage(_, let format, let width, let height, let data):
            guard !name.isEmpty, name.utf8.count <= Request.maxImageName else {
                return fail(.invalidValue, "an image name has 1…\(Request.maxImageName) bytes")
            }
            guard table.named[name] == nil else {
                return fail(.duplicateImage, "the name is in use; release it first")
            }
            let budget = config.maxImageBytesPerClient - table.bytes - surfaceBytes(client)
            let over = "over the client's image memory limit (maxImageBytesPerClient \(config.maxImageBytesPerClient) bytes, \(table.bytes) in use)"
            guard budget >= 4 else { return fail(.limitExceeded, over) }
            // The decoder refuses a header whose pixels exceed the budget before allocating them.
            let limits = ImageLimits(maxBytes: config.maxMessageSize, maxPixels: min(ImageLimits.standard.maxPixels, budget / 4))
            let image: Image
            do throws(ImageError) {
                switch format {
                case .encoded:
                    guard width == 0, height == 0 else { return fail(.invalidValue, "encoded images give width and height 0") }
                    image = try ImageDecoder.decode(data, limits: limits)
                case .rawRGBA:
                    image = try ImageDecoder.raw(data, width: Int(width), height: Int(height), limits: limits)
                }
            } catch {
                if error.kind == .tooLarge { return fail(.limitExceeded, "\(error.message); the budget left: \(over)") }
                return fail(.invalidImage, error.message)
            }
            guard image.byteCount <= budget else { return fail(.limitExceeded, "\(image.byteCount) bytes is \(over)") }
            imageSerial += 1
            let qualified = "\(client)/\(imageSerial)/\(name)"
            table.named[name] = qualified
            table.held[qualified] = ClientImages.Held(bytes: image.byteCount)
            table.bytes += image.byteCount
            imageTables[client] = table
            effects.append(.setImage(name: qualified, image: image))
            reply(.imageUploaded(name: name, width: UInt32(image.width), height: UInt32(image.height)))
        case .openImageFile:
            // The descriptor is taken first, whatever else is wrong: it belongs to this request.
            guard var surfaces = surfaceTables[client], !surfaces.fds.isEmpty else {
                return fail(.invalidImage, "no file descriptor came with openImageFile (send the PNG file's descriptor with the message, SCM_RIGHTS)")
            }
            let fd = surfaces.fds.removeFirst()
            surfaceTables[client] = surfaces
            guard !name.isEmpty, name.utf8.count <= Request.maxImageName else {
                close(fd)
                return fail(.invalidValue, "an image name has 1…\(Request.maxImageName) bytes")
            }
            guard table.named[name] == nil else {
                close(fd)
                return fail(.duplicateImage, "the name is in use; release it first")
            }
            // Only the header is read here; tiles are decoded on the tile store's worker.
            let source: TileSource
            do throws(ImageError) {
                source = try TileSource(pngDescriptor: fd, label: "the file sent")   // owns fd from here
            } catch {
                if error.kind == .tooLarge {
                    return fail(.limitExceeded, "\(error.message): too large (a tiled image has at most \(TileSource.maxSide) pixels a side)")
                }
                return fail(.invalidImage, error.message)
            }
            imageSerial += 1
            let qualified = "\(client)/\(imageSerial)/\(name)"
            table.named[name] = qualified
            table.held[qualified] = ClientImages.Held(bytes: 0)   // its tiles count in tileCacheBytes
            imageTables[client] = table
            effects.append(.setTileSource(name: qualified, source: source))
            reply(.imageUploaded(name: name, width: UInt32(clamping: source.width), height: UInt32(clamping: source.height)))
        case .createTiledImage(_, let width, let height):
            guard !name.isEmpty, name.utf8.count <= Request.maxImageName else {
                return fail(.invalidValue, "an image name has 1…\(Request.maxImageName) bytes")
            }
            guard table.named[name] == nil else {
                return fail(.duplicateImage, "the name is in use; release it first")
            }
            guard width > 0, height > 0, Int(width) <= TileSource.maxSide, Int(height) <= TileSource.maxSide else {
                return fail(.invalidValue, "\(width)×\(height) pixels: a tiled image has 1…\(TileSource.maxSide) pixels a side")
            }
            let source = TileSource(clientWidth: Int(width), height: Int(height))
            imageSerial += 1
            let qualified = "\(client)/\(imageSerial)/\(name)"
            table.named[name] = qualified
            table.held[qualified] = ClientImages.Held(bytes: 0)   // its tiles count in tileCacheBytes
            table.drawn[qualified] = DrawnTiles(name: name, source: source)
            imageTables[client] = table
            effects.append(.setTileSource(name: qualified, source: source))
            reply(.imageUploaded(name: name, width: width, height: height))
        case .provideTile(let t):
            let tile = "tile (level \(t.level), column \(t.column), row \(t.row)) of \(t.tileWidth)×\(t.tileHeight)"
            guard let qualified = table.named[name], var drawn = table.drawn[qualified] else {
                return fail(table.named[name] == nil ? .unknownImage : .invalidImage,
                            table.named[name] == nil ? "no image of this name is uploaded"
                                : "not a client-drawn tiled image (createTiledImage makes one)")
            }
            let sides = TiledDrawing.tileSides
            guard sides.contains(Int(t.tileWidth)), sides.contains(Int(t.tileHeight)) else {
                return fail(.invalidValue, "\(tile): tile sides are \(sides.lowerBound)…\(sides.upperBound) pixels (a tiled layer's tileSize)")
            }
            guard let (key, w, h) = drawn.source.tile(level: Int(t.level), x: Int(t.column), y: Int(t.row),
                                                     tileWidth: Int(t.tileWidth), tileHeight: Int(t.tileHeight),
                                                     maxMagnified: TiledDrawing.maxLevels) else {
                return fail(.invalidValue, "\(tile): no such tile (levels −\(TiledDrawing.maxLevels)… of a \(drawn.source.width)×\(drawn.source.height) image, columns and rows inside the level)")
            }
            guard let buffer = surfaceTables[client]?.buffers[t.buffer] else {
                return fail(.unknownBuffer, "\(tile): no shared-memory buffer \(t.buffer) (createBuffer makes one)")
            }
            guard buffer.layout.width == w, buffer.layout.height == h else {
                return fail(.invalidBuffer, "\(tile): the tile is \(w)×\(h) pixels but buffer \(t.buffer) is \(buffer.layout.width)×\(buffer.layout.height)")
            }
            let image = Image(width: w, height: h, premultipliedPixels: buffer.layout.rgbaPixels(in: buffer.pool))
            drawn.serial += 1
            drawn.asked.removeAll { $0 == key }
            drawn.askedAt[key] = nil
            drawn.timedOut[key] = nil
            drawn.answered[key] = drawn.serial
            table.drawn[qualified] = drawn
            imageTables[client] = table
            effects.append(.provideTile(source: drawn.source, key: key, image: image, serial: drawn.serial))
            // Copied: the buffer is the client's again.
            reply(.bufferReleased(id: t.buffer))
        default:
            preconditionFailure("not an image request")
        }
    }

    /// The most tiles asked of a client for one image and not answered yet: more wait for
    /// answers (or cancellations).
    static let maxTilesAsked = 16

    /// Seconds on the daemon's clock (the manual clock in tests) a tile request may go
    /// unanswered: then it is cancelled (`tileCancelled`), its slot among `maxTilesAsked` is
    /// freed, and it may be asked for again once the wanted tiles never asked for were.
    public static let tileAnswerTimeout = 2.0
    /// Rounding of the clock's sums (2.1 + 2 read back as 4.1 − 2 < 2) forgiven.
    static let tileTimeSlack = 1e-9

    /// A client-drawn image's wishes changed (the render side published a frame's): asks each
    /// client for the tiles now wanted that it was not asked for (up to `maxTilesAsked` at a
    /// time, in the frame's drawing order) and cancels those asked for and no longer wanted.
    public mutating func tileWishesChanged() -> [ServerEffect] { askForTiles() }

    /// The earliest time (the daemon's clock) a tile request goes unanswered too long, if any
    /// is outstanding.
    public var tileAnswersDue: Double? {
        var due: Double?
        for table in imageTables.values where !table.drawn.isEmpty {
            for d in table.drawn.values {
                for t in d.askedAt.values { due = min(due ?? .infinity, t + Self.tileAnswerTimeout) }
            }
        }
        return due
    }

    /// Cancels the tile requests unanswered for `tileAnswerTimeout` and asks for others in
    /// their place (nothing when none is overdue).
    public mutating func expireTileRequests() -> [ServerEffect] {
        guard let due = tileAnswersDue, clock.now >= due - Self.tileTimeSlack else { return [] }
        return askForTiles()
    }

    private mutating func askForTiles() -> [ServerEffect] {
        var effects: [ServerEffect] = []
        let now = clock.now
        for client in imageTables.keys.sorted() {
            guard var table = imageTables[client], !table.drawn.isEmpty, isConnected(client) else { continue }
            for qualified in table.drawn.keys.sorted() {
                var d = table.drawn[qualified]!
                let (keys, providedBefore) = d.source.clientWishes!.wanted
                // Answers the frame had seen: wanted again now only if evicted.
                d.answered = d.answered.filter { $0.value > providedBefore }
                let wanted = Set(keys)
                func request(_ key: TileKey) -> TileRequest {
                    let (lw, lh) = d.source.levelSize(key.level)
                    let x = key.x * key.width, y = key.y * key.height
                    return TileRequest(name: d.name, level: Int32(key.level), column: UInt32(key.x), row: UInt32(key.y),
                                       tileWidth: UInt32(key.width), tileHeight: UInt32(key.height),
                                       x: UInt32(x), y: UInt32(y), width: UInt32(min(key.width, lw - x)),
                                       height: UInt32(min(key.height, lh - y)))
                }
                func send(_ e: Event) { effects.append(.write(client: client, bytes: MessageEncoder.encode(e, requestID: 0))) }
                let askedAt = d.askedAt
                let overdue = { (key: TileKey) in now - (askedAt[key] ?? now) >= Self.tileAnswerTimeout - Self.tileTimeSlack }
                for key in d.asked where !wanted.contains(key) || overdue(key) {
                    send(.tileCancelled(request(key)))
                    if wanted.contains(key) { d.timedOut[key] = now }
                }
                d.asked.removeAll { !wanted.contains($0) || overdue($0) }
                d.askedAt = d.askedAt.filter { d.asked.contains($0.key) }
                d.timedOut = d.timedOut.filter { wanted.contains($0.key) && d.answered[$0.key] == nil }
                // Never asked first (the frame's order), then those that timed out (the oldest first).
                let retries = keys.filter { d.timedOut[$0] != nil }.sorted { d.timedOut[$0]! < d.timedOut[$1]! }
                var asked = Set(d.asked)
                for key in keys.filter({ d.timedOut[$0] == nil }) + retries where d.asked.count < Self.maxTilesAsked {
                    guard d.answered[key] == nil, asked.insert(key).inserted else { continue }
                    d.asked.append(key)
                    d.askedAt[key] = now
                    d.timedOut[key] = nil
                    send(.tileWanted(request(key)))
                }
                table.drawn[qualified] = d
            }
            imageTables[client] = table
        }
        return effects
    }

    /// Frees a held image when it is released and no layer shows it.
    private func release(_ qualified: String, in table: inout ClientImages, _ effects: inout [ServerEffect]) {
        guard let held = table.held[qualified], held.released, held.users == 0 else { return }
        table.held[qualified] = nil
        table.bytes -= held.bytes
        effects.append(.setImage(name: qualified, image: nil))
    }

    /// Rewrites each `contents` name of a commit to its qualified name. A name the client has
    /// not uploaded is `unknownImage`, reported for the first failing request in the order
    /// staged: when an earlier request fails in the model tree, that one is reported instead.
    func qualifyContents(_ commit: Commit) -> (Commit, failure: (index: Int, code: ErrorCode, message: String)?) {
        guard case .operations(var ops) = commit.content else { return (commit, nil) }
        let table = imageTables[commit.client]
        var rewrote = false
        func unknown(_ i: Int, _ what: String, _ name: String) -> (Commit, failure: (index: Int, code: ErrorCode, message: String)?) {
            var probe = model
            var prefix = commit
            prefix.content = .operations(Array(ops[..<i]))
            do { _ = try probe.validate(prefix, at: commit.time ?? 0) } catch {
                return (commit, (error.index, ErrorCode(rawValue: error.code.rawValue) ?? .internalError, error.message))
            }
            return (commit, (i, .unknownImage, "\(what) names image \"\(name)\", which the client has not uploaded"))
        }
        for i in ops.indices {   // (by index: no copy of each operation)
            // An emitter's cells name images too (`EmitterCell.contents`, nested cells included).
            if case .set(let id, "emitterCells", .emitterCells(let cells)) = ops[i] {
                var missing: String?
                func qualify(_ list: [EmitterCell]) -> [EmitterCell] {
                    list.map { c in
                        var c = c
                        if let name = c.contents {
                            if let q = table?.named[name] { c.contents = q } else if missing == nil { missing = name }
                        }
                        c.emitterCells = qualify(c.emitterCells)
                        return c
                    }
                }
                let qualified = qualify(cells)
                if let missing { return unknown(i, "an emitter cell's contents", missing) }
                if qualified != cells {
                    ops[i] = .set(id, keyPath: "emitterCells", value: .emitterCells(qualified))
                    rewrote = true
                }
                continue
            }
            guard case .set(let id, let keyPath, .string(let name)) = ops[i], keyPath == "contents",
                  !name.isEmpty else { continue }
            guard let qualified = table?.named[name] else { return unknown(i, "contents", name) }
            ops[i] = .set(id, keyPath: "contents", value: .string(qualified))
            rewrote = true
        }
        guard rewrote else { return (commit, nil) }
        var rewritten = commit
        rewritten.content = .operations(ops)
        return (rewritten, nil)
    }

    /// After a commit applied: counts which layers show which image, and frees released
    /// images no layer shows any more.
    mutating func updateImageUsers(after commit: Commit, _ effects: inout [ServerEffect]) {
        guard case .operations(let ops) = commit.content, var table = imageTables[commit.client] else { return }
        var touched: Set<UInt32> = []
        for i in ops.indices {
            switch ops[i] {
            case .set(let id, let keyPath, _) where keyPath == "contents": touched.insert(id)
            case .delete(let id): touched.insert(id)
            default: break
            }
        }
        guard !touched.isEmpty else { return }
        var maybeFree: [String] = []
        for id in touched.sorted() {
            let now = model[LayerID(client: commit.client, local: id)]?.properties.contents
            let before = table.shown[id]
            guard now != before else { continue }
            if let before {
                table.held[before]?.users -= 1
                maybeFree.append(before)
            }
            if let now, table.held[now] != nil {
                table.held[now]?.users += 1
                table.shown[id] = now
            } else {
                table.shown[id] = nil
            }
        }
        for q in maybeFree { release(q, in: &table, &effects) }
        imageTables[commit.client] = table
    }

    /// The client is gone: every image it held leaves the render side.
    mutating func dropImages(of client: UInt32) -> [ServerEffect] {
        guard let table = imageTables.removeValue(forKey: client) else { return [] }
        return table.held.keys.sorted().map { .setImage(name: $0, image: nil) }
    }
}
