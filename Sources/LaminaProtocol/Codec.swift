import LaminaCore

// The byte layouts here are documented, field by field, in docs/protocol.md. Change both together.

extension ByteWriter {
    mutating func operation(_ op: Operation) {
        u8(op.opcode)
        switch op {
        case let .create(id, kind):
            u32(id.rawValue)
            if kind != .layer { u8(kind.rawValue) }
        case .destroy(let id), .remove(let id):
            u32(id.rawValue)
        case let .set(id, key, value):
            u32(id.rawValue)
            u16(key.rawValue)
            self.value(value)
        case let .insert(parent, child, index):
            u32(parent.rawValue)
            u32(child.rawValue)
            u32(index)
        case let .addAnimation(id, key, tag, animation):
            u32(id.rawValue)
            string(key)
            u32(tag)
            self.animation(animation)
        case let .removeAnimation(id, key):
            u32(id.rawValue)
            string(key)
        case .removeAllAnimations(let id):
            u32(id.rawValue)
        case let .setAction(id, dictionary, key, action):
            u32(id.rawValue)
            u8(dictionary.rawValue)
            string(key)
            switch action {
            case .inherit: u8(0)
            case .noAnimation: u8(1)
            case .animation(let a): u8(2); self.animation(a)
            }
        case .settings(let t):
            f64(t.duration)
            u8((t.disableActions ? 1 : 0) | (t.timingFunction != nil ? 2 : 0))
            if let tf = t.timingFunction { timingFunction(tf) }
            u32(UInt32(t.completionGroups.count))
            for g in t.completionGroups { u32(g) }
        case let .createImage(image, f):
            u32(image)
            u32(f.width)
            u32(f.height)
            u32(f.stride)
            u8(f.order.rawValue)
            u8(f.alpha.rawValue)
            u64(f.offset)
        case let .updateImage(image, r):
            u32(image)
            u32(r.x)
            u32(r.y)
            u32(r.width)
            u32(r.height)
        case .destroyImage(let image):
            u32(image)
        case let .createVideo(image, uri):
            u32(image)
            string(uri)
        case let .controlVideo(image, control):
            u32(image)
            u8(control.kind)
            switch control {
            case .play, .pause: break
            case .seek(let t): f64(t)
            case .rate(let r): f64(r)
            case .loop(let on): bool(on)
            case .volume(let v): f64(v)
            case .muted(let on): bool(on)
            }
        case let .supplyTile(layer, level, column, row, image):
            u32(layer.rawValue)
            i32(level)
            u32(column)
            u32(row)
            u32(image)
        case .dropTiles(let layer):
            u32(layer.rawValue)
        case let .createEncodedImage(image, format, byteCount):
            u32(image)
            u8(format.rawValue)
            u64(byteCount)
        }
    }

    mutating func operations(_ ops: [Operation]) {
        u32(UInt32(ops.count))
        for op in ops { operation(op) }
    }
}

extension ByteReader {
    /// Decodes the next operation, number `i` of its commit (laminad decodes a big commit a
    /// step at a time, `commitHeader` first).
    public mutating func nextOperation(index i: Int) throws(DecodeError) -> Operation { try operation(i) }

    /// A commit body's serial and operation count, leaving the reader at the first operation.
    /// The count is checked against the bytes that follow (5 at least per operation).
    public mutating func commitHeader() throws(DecodeError) -> (serial: UInt32, count: Int) {
        let serial = try u32("commit serial")
        let count = Int(try u32("commit operation count"))
        guard count <= remaining / 5 else {
            throw .invalid(field: "commit operation count", reason: "\(count) operations cannot fit in the \(remaining) bytes that follow")
        }
        return (serial, count)
    }

    /// Operation `i`; an error names it ("operation 12 property: …"). The field names are
    /// joined only on error: decoding a 10⁵-operation commit builds no strings.
    mutating func operation(_ i: Int) throws(DecodeError) -> Operation {
        do {
            return try operationBody()
        } catch {
            throw error.within("operation \(i)")
        }
    }

    private mutating func operationBody() throws(DecodeError) -> Operation {
        let opcode = try u8("opcode")
        switch opcode {
        case 1: return .create(LayerID(try u32("layer")))
        case 11:
            let id = LayerID(try u32("layer"))
            let raw = try u8("kind")
            guard let kind = LayerKind(rawValue: raw) else {
                throw .invalid(field: "kind", reason: "unknown layer kind \(raw) (0–\(LayerKind.allCases.count - 1))")
            }
            return .create(id, kind: kind)
        case 2: return .destroy(LayerID(try u32("layer")))
        case 3:
            let id = LayerID(try u32("layer"))
            let raw = try u16("property")
            guard let key = PropertyKey(rawValue: raw) else {
                throw .invalid(field: "property", reason: "unknown property number \(raw)")
            }
            do {
                return .set(id, key, try value(key.valueType, "value"))
            } catch {
                // Named only on error: "value of 'opacity'".
                throw error.renamed(from: "value", to: "value of '\(key)'")
            }
        case 4:
            return .insert(parent: LayerID(try u32("parent")),
                           child: LayerID(try u32("child")),
                           index: try u32("index"))
        case 5: return .remove(LayerID(try u32("layer")))
        case 6:
            let id = LayerID(try u32("layer"))
            let key = try string("key", limit: 256)
            let tag = try u32("tag")
            return .addAnimation(id, key: key, tag: tag, try animation("animation"))
        case 7: return .removeAnimation(LayerID(try u32("layer")), key: try string("key", limit: 256))
        case 8: return .removeAllAnimations(LayerID(try u32("layer")))
        case 9:
            let id = LayerID(try u32("layer"))
            let rawDict = try u8("dictionary")
            guard let dict = ActionDictionary(rawValue: rawDict) else {
                throw .invalid(field: "dictionary", reason: "unknown action dictionary \(rawDict) (0 actions, 1 style)")
            }
            let key = try string("key", limit: 256)
            let kind = try u8("action")
            let action: Action
            switch kind {
            case 0: action = .inherit
            case 1: action = .noAnimation
            case 2: action = .animation(try animation("action animation"))
            default: throw .invalid(field: "action", reason: "unknown action kind \(kind) (0 inherit, 1 none, 2 animation)")
            }
            return .setAction(id, dictionary: dict, key: key, action)
        case 10:
            let duration = try f64("duration")
            guard duration.isFinite, duration >= 0 else {
                throw .invalid(field: "duration", reason: "must be finite and ≥ 0, got \(duration)")
            }
            let flags = try u8("flags")
            guard flags & ~3 == 0 else { throw .invalid(field: "flags", reason: "unknown flag bits 0x\(String(flags, radix: 16))") }
            let tf = flags & 2 != 0 ? try timingFunction("timing function") : nil
            let n = Int(try u32("completion group count"))
            guard n <= remaining / 4 else {
                throw .invalid(field: "completion group count", reason: "\(n) groups cannot fit in the \(remaining) bytes that follow")
            }
            var groups: [UInt32] = []
            for _ in 0..<n { groups.append(try u32("completion group")) }
            return .settings(TransactionSettings(duration: duration, timingFunction: tf, disableActions: flags & 1 != 0, completionGroups: groups))
        case 12:
            let image = try u32("image")
            let width = try u32("width"), height = try u32("height"), stride = try u32("stride")
            let rawOrder = try u8("pixel order")
            guard let order = ImageFormat.PixelOrder(rawValue: rawOrder) else {
                throw .invalid(field: "pixel order", reason: "unknown pixel format \(rawOrder) (0 BGRA, 1 RGBA)")
            }
            let rawAlpha = try u8("alpha")
            guard let alpha = ImageFormat.AlphaMode(rawValue: rawAlpha) else {
                throw .invalid(field: "alpha", reason: "unknown alpha mode \(rawAlpha) (0 premultiplied, 1 straight)")
            }
            let offset = try u64("offset")
            return .createImage(image: image, ImageFormat(width: width, height: height, stride: stride, order: order, alpha: alpha, offset: offset))
        case 13:
            let image = try u32("image")
            return .updateImage(image: image, PixelRect(x: try u32("x"), y: try u32("y"),
                                                        width: try u32("width"), height: try u32("height")))
        case 14: return .destroyImage(image: try u32("image"))
        case 16:
            let image = try u32("video image")
            return .createVideo(image: image, uri: try string("video uri", limit: 4096))
        case 17:
            let image = try u32("video image")
            let kind = try u8("video control")
            switch kind {
            case 0: return .controlVideo(image: image, .play)
            case 1: return .controlVideo(image: image, .pause)
            case 2:
                let t = try f64("video seek seconds")
                guard t.isFinite, t >= 0 else { throw .invalid(field: "video seek seconds", reason: "must be finite and ≥ 0, got \(t)") }
                return .controlVideo(image: image, .seek(seconds: t))
            case 3:
                let r = try f64("video rate")
                guard r.isFinite, r > 0, r <= 16 else { throw .invalid(field: "video rate", reason: "must be > 0 and ≤ 16, got \(r)") }
                return .controlVideo(image: image, .rate(r))
            case 4: return .controlVideo(image: image, .loop(try bool("video loop")))
            case 5:
                let v = try f64("video volume")
                guard v.isFinite, v >= 0, v <= 1 else { throw .invalid(field: "video volume", reason: "must be finite, 0 to 1, got \(v)") }
                return .controlVideo(image: image, .volume(v))
            case 6: return .controlVideo(image: image, .muted(try bool("video muted")))
            default: throw .invalid(field: "video control", reason: "unknown video control \(kind) (0 play, 1 pause, 2 seek, 3 rate, 4 loop, 5 volume, 6 muted)")
            }
        case 18:
            let layer = LayerID(try u32("layer"))
            let level = try i32("tile level")
            let column = try u32("tile column"), row = try u32("tile row")
            return .supplyTile(layer, level: level, column: column, row: row, image: try u32("tile image"))
        case 19: return .dropTiles(LayerID(try u32("layer")))
        case 20:
            let image = try u32("image")
            let raw = try u8("encoded image format")
            guard let format = EncodedImageFormat(rawValue: raw) else {
                throw .invalid(field: "encoded image format", reason: "unknown format \(raw) (0 SVG, 1 GIF, 2 WebP)")
            }
            return .createEncodedImage(image: image, format, byteCount: try u64("encoded image bytes"))
        default:
            throw .invalid(field: "opcode", reason: "unknown opcode \(opcode)")
        }
    }

    /// A u32 count and that many operations. The count is checked against the bytes left before
    /// anything is allocated, so a hostile count cannot make the server reserve gigabytes.
    mutating func operations(_ field: String, failedAt: inout Int) throws(DecodeError) -> [Operation] {
        failedAt = -1
        let count = Int(try u32(field + " count"))
        // The smallest operation is 5 bytes (opcode + layer).
        guard count <= remaining / 5 else {
            throw .invalid(field: field + " count", reason: "\(count) operations cannot fit in the \(remaining) bytes that follow")
        }
        var ops: [Operation] = []
        // A count that passed the size check can still be huge next to what an Operation takes
        // in memory (5 bytes on the wire, ~150 in memory): grow past a modest reservation.
        ops.reserveCapacity(min(count, 4096))
        for i in 0..<count {
            failedAt = i
            ops.append(try operation(i))
        }
        failedAt = -1
        return ops
    }
}

extension ClientMessage {
    /// The whole frame: header and body.
    public func encoded() -> [UInt8] {
        var w = Frame.begin(type: type)
        switch self {
        case .hello(let h):
            w.u32(ProtocolVersion.magic)
            w.u16(h.major)
            w.u16(h.minor)
            w.u32(h.flags.rawValue)
            w.string(h.clientName)
            w.string(h.session)
        case .commit(let c):
            w.u32(c.serial)
            w.operations(c.operations)
        case let .request(id, req):
            w.u32(id)
            w.u16(req.kind)
            switch req {
            case .advanceClock(let s): w.f64(s)
            case .presentation(let id): w.u32(id.rawValue)
            case let .displayPower(on, output):
                w.u8(on ? 1 : 0)
                w.string(output)
            case .injectInput(let i): w.injection(i)
            case .listen(let session): w.string(session)
            case .registerFont(let n): w.u64(n)
            case let .output(name, change): w.outputRequest(name: name, change)
            case let .displayLink(link, change): w.displayLinkRequest(link: link, change)
            case .manageApps(let r): w.appsRequest(r)
            default: break
            }
        }
        return Frame.end(w)
    }

    /// Decodes the body of a frame of the given type.
    public static func decode(type: UInt16, body: ArraySlice<UInt8>) throws(MessageError) -> ClientMessage {
        var r = ByteReader(body)
        do {
            let msg: ClientMessage
            switch type {
            case 1:
                let magic = try r.u32("hello magic")
                guard magic == ProtocolVersion.magic else {
                    throw DecodeError.invalid(field: "hello magic", reason: "expected 0x\(String(ProtocolVersion.magic, radix: 16)) (\"LAMN\"), got 0x\(String(magic, radix: 16))")
                }
                let major = try r.u16("hello major version")
                let minor = try r.u16("hello minor version")
                let flags = HelloFlags(rawValue: try r.u32("hello flags"))
                let name = try r.string("hello client name", limit: 256)
                let session = try r.string("hello session", limit: 256)
                msg = .hello(Hello(major: major, minor: minor, clientName: name, session: session, flags: flags))
            case 2:
                let serial = try r.u32("commit serial")
                var failedAt = -1
                do {
                    msg = .commit(Commit(serial: serial, operations: try r.operations("commit operation", failedAt: &failedAt)))
                } catch {
                    throw MessageError.commit(serial: serial, operationIndex: failedAt, error)
                }
            case 3:
                let id = try r.u32("request id")
                let kind = try r.u16("request kind")
                switch kind {
                case 1: msg = .request(id: id, .screenshot)
                case 2: msg = .request(id: id, .tree)
                case 3: msg = .request(id: id, .advanceClock(seconds: try r.f64("advance-clock seconds")))
                case 4: msg = .request(id: id, .stats)
                case 5: msg = .request(id: id, .presentation(LayerID(try r.u32("presentation layer"))))
                case 6: msg = .request(id: id, .presentationTree)
                case 7: msg = .request(id: id, .watch)
                case 9: msg = .request(id: id, .snapshot)
                case 8:
                    let on = try r.bool("display-power on")
                    msg = .request(id: id, .displayPower(on: on, output: try r.string("display-power output", limit: 256)))
                case 10: msg = .request(id: id, .injectInput(try r.injection()))
                case 11: msg = .request(id: id, .takeKeyboardFocus)
                case 12: msg = .request(id: id, .listen(session: try r.string("listen session", limit: 256)))
                case 13: msg = .request(id: id, .registerFont(byteCount: try r.u64("register-font byte count")))
                case 14: msg = .request(id: id, try r.outputRequest())
                case 15: msg = .request(id: id, try r.displayLinkRequest())
                case 16: msg = .request(id: id, try r.appsRequest())
                default: throw DecodeError.invalid(field: "request kind", reason: "unknown request kind \(kind)")
                }
            default:
                throw MessageError.unknownType(type)
            }
            try r.finish()
            return msg
        } catch let e as MessageError {
            throw e
        } catch let e as DecodeError {
            throw .decode(e)
        } catch {
            throw .decode(.invalid(field: "message", reason: "\(error)"))
        }
    }
}

extension ServerMessage {
    /// The whole frame: header and body.
    public func encoded() -> [UInt8] {
        var w = Frame.begin(type: type, capacity: { if case .reply(_, .screenshot(let b)) = self { return b.bytes.count + 32 }; return 64 }())
        switch self {
        case .welcome(let wl):
            w.u16(wl.major)
            w.u16(wl.minor)
            w.u32(wl.clientID)
            w.u32(wl.displayWidth)
            w.u32(wl.displayHeight)
            w.u8(wl.clock.rawValue)
            w.f64(wl.time)
            w.operations(wl.snapshot)
        case .applied(let serial):
            w.u32(serial)
        case .error(let e):
            w.u16(e.code.rawValue)
            w.u8(e.subject.rawValue)
            w.u32(e.serial)
            w.i32(e.operationIndex)
            w.string(e.message)
        case let .reply(id, reply):
            w.u32(id)
            w.u16(reply.kind)
            switch reply {
            case .screenshot(let b):
                w.u32(UInt32(b.width))
                w.u32(UInt32(b.height))
                w.raw(b.bytes)
            case .tree(let json):
                w.string(json)
            case let .advanced(time, frames):
                w.f64(time)
                w.u64(frames)
            case .stats(let stats):
                w.u32(UInt32(stats.count))
                for s in stats {
                    w.string(s.name)
                    w.f64(s.value)
                }
            case let .presentation(p, minor):
                let keys = PropertyKey.allCases.filter { $0.minorVersion <= minor }
                w.u32(UInt32(keys.count))
                for key in keys {
                    w.u16(key.rawValue)
                    w.value(p[key])
                }
            case .watching:
                break
            case let .displayPower(backend, outputs):
                w.string(backend)
                w.u32(UInt32(outputs.count))
                for o in outputs {
                    w.string(o.name)
                    w.u8(o.isOn ? 1 : 0)
                }
            case .snapshot(let ops):
                w.operations(ops)
            case .done:
                break
            case .fontRegistered(let families):
                w.u32(UInt32(families.count))
                for f in families { w.string(f) }
            case let .outputs(backend, outputs):
                w.outputStates(backend: backend, outputs)
            }
        case .animationEvent(let n):
            w.u32(n.layer.rawValue)
            w.u32(n.tag)
            w.u8(n.started ? 1 : 0)
            w.bool(n.finished)
        case .transactionCompleted(let g):
            w.u32(g)
        case .watch(let line):
            w.string(line)
        case .input(let e):
            w.inputEvent(e)
        case .clock(let time):
            w.f64(time)
        case let .video(image, event):
            w.u32(image)
            w.u8(event.kind)
            switch event {
            case let .ready(width, height, duration):
                w.u32(width)
                w.u32(height)
                w.f64(duration ?? -1)
            case .playing, .paused, .ended: break
            case .error(let message): w.string(message)
            }
        case .scroll(let e):
            w.scrollEvent(e)
        case .displayChanged(let d):
            w.displayLayout(d)
        case .frame(let f):
            w.displayLinkFrame(f)
        case .tilesWanted(let m):
            w.tilesWanted(m)
        case .appSurface(let e):
            w.appSurfaceEvent(e)
        }
        return Frame.end(w)
    }

    /// Decodes the body of a frame of the given type.
    public static func decode(type: UInt16, body: ArraySlice<UInt8>) throws(MessageError) -> ServerMessage {
        var r = ByteReader(body)
        do {
            let msg: ServerMessage
            switch type {
            case 0x81:
                let major = try r.u16("welcome major version")
                let minor = try r.u16("welcome minor version")
                let client = try r.u32("welcome client id")
                let w = try r.u32("welcome display width")
                let h = try r.u32("welcome display height")
                let rawClock = try r.u8("welcome clock")
                guard let clock = ClockKind(rawValue: rawClock) else {
                    throw DecodeError.invalid(field: "welcome clock", reason: "unknown clock \(rawClock)")
                }
                let time = try r.f64("welcome time")
                var failedAt = -1
                let snapshot = try r.operations("welcome snapshot operation", failedAt: &failedAt)
                msg = .welcome(Welcome(major: major, minor: minor, clientID: client, displayWidth: w, displayHeight: h,
                                       clock: clock, time: time, snapshot: snapshot))
            case 0x82:
                msg = .applied(serial: try r.u32("applied serial"))
            case 0x83:
                let rawCode = try r.u16("error code")
                guard let code = ErrorCode(rawValue: rawCode) else {
                    throw DecodeError.invalid(field: "error code", reason: "unknown error code \(rawCode)")
                }
                let rawSubject = try r.u8("error subject")
                guard let subject = ErrorMessage.Subject(rawValue: rawSubject) else {
                    throw DecodeError.invalid(field: "error subject", reason: "unknown subject \(rawSubject)")
                }
                let serial = try r.u32("error serial")
                let index = try r.i32("error operation index")
                let text = try r.string("error message", limit: 65536)
                msg = .error(ErrorMessage(code: code, subject: subject, serial: serial, operationIndex: index, message: text))
            case 0x84:
                let id = try r.u32("reply id")
                let kind = try r.u16("reply kind")
                switch kind {
                case 1:
                    let w = Int(try r.u32("screenshot width")), h = Int(try r.u32("screenshot height"))
                    guard w.multipliedReportingOverflow(by: h).partialValue * 4 == r.remaining else {
                        throw DecodeError.invalid(field: "screenshot pixels", reason: "\(r.remaining) bytes for a \(w)×\(h) image")
                    }
                    let bytes = try r.raw(w * h * 4, "screenshot pixels")
                    msg = .reply(id: id, .screenshot(Bitmap(width: w, height: h, bytes: bytes)!))
                case 2: msg = .reply(id: id, .tree(try r.string("tree json", limit: 1 << 28)))
                case 3: msg = .reply(id: id, .advanced(time: try r.f64("advanced time"), framesRendered: try r.u64("advanced frames")))
                case 4:
                    let n = Int(try r.u32("stats count"))
                    guard n <= r.remaining / 12 else {
                        throw DecodeError.invalid(field: "stats count", reason: "\(n) entries cannot fit")
                    }
                    var stats: [Statistic] = []
                    for i in 0..<n {
                        stats.append(Statistic(name: try r.string("stat \(i) name"), value: try r.f64("stat \(i) value")))
                    }
                    msg = .reply(id: id, .stats(stats))
                case 5:
                    let n = Int(try r.u32("presentation count"))
                    var p = LayerProperties()
                    for i in 0..<min(n, 1024) {
                        let raw = try r.u16("presentation \(i) key")
                        guard let key = PropertyKey(rawValue: raw) else {
                            throw DecodeError.invalid(field: "presentation \(i) key", reason: "unknown property number \(raw)")
                        }
                        let v = try r.value(key.valueType, "presentation value of '\(key)'")
                        do { try p.set(key, v) } catch {
                            throw DecodeError.invalid(field: "presentation value of '\(key)'", reason: error.description)
                        }
                    }
                    msg = .reply(id: id, .presentation(p, minor: ProtocolVersion.minor))
                case 7: msg = .reply(id: id, .watching)
                case 8:
                    let backend = try r.string("display-power backend", limit: 256)
                    let n = Int(try r.u32("display-power output count"))
                    guard n <= r.remaining / 5 else {
                        throw DecodeError.invalid(field: "display-power output count", reason: "\(n) outputs cannot fit")
                    }
                    var outputs: [OutputPower] = []
                    for i in 0..<n {
                        outputs.append(OutputPower(name: try r.string("display-power output \(i) name", limit: 256),
                                                   isOn: try r.bool("display-power output \(i) state")))
                    }
                    msg = .reply(id: id, .displayPower(backend: backend, outputs: outputs))
                case 9:
                    var failedAt = -1
                    msg = .reply(id: id, .snapshot(try r.operations("snapshot operation", failedAt: &failedAt)))
                case 10: msg = .reply(id: id, .done)
                case 11:
                    let n = Int(try r.u32("font family count"))
                    guard n <= r.remaining / 4 else {
                        throw DecodeError.invalid(field: "font family count", reason: "\(n) families cannot fit in the \(r.remaining) bytes that follow")
                    }
                    var families: [String] = []
                    for i in 0..<n { families.append(try r.string("font family \(i)", limit: 1024)) }
                    msg = .reply(id: id, .fontRegistered(families: families))
                case 12: msg = .reply(id: id, try r.outputStates())
                default: throw DecodeError.invalid(field: "reply kind", reason: "unknown reply kind \(kind)")
                }
            case 0x85:
                let layer = LayerID(try r.u32("event layer"))
                let tag = try r.u32("event tag")
                let kind = try r.u8("event kind")
                guard kind <= 1 else { throw DecodeError.invalid(field: "event kind", reason: "unknown event kind \(kind)") }
                msg = .animationEvent(AnimationNotice(layer: layer, tag: tag, started: kind == 1, finished: try r.bool("event finished")))
            case 0x86:
                msg = .transactionCompleted(group: try r.u32("completed group"))
            case 0x87:
                msg = .watch(try r.string("watch line", limit: 1 << 20))
            case 0x88:
                msg = .input(try r.inputEvent())
            case 0x89:
                msg = .clock(time: try r.f64("clock time"))
            case 0x8A:
                let image = try r.u32("video image")
                let kind = try r.u8("video event")
                let event: VideoEvent
                switch kind {
                case 0:
                    let w = try r.u32("video width"), h = try r.u32("video height")
                    let d = try r.f64("video duration")
                    event = .ready(width: w, height: h, duration: d.isFinite && d >= 0 ? d : nil)
                case 1: event = .playing
                case 2: event = .paused
                case 3: event = .ended
                case 4: event = .error(try r.string("video error", limit: 1 << 16))
                default: throw DecodeError.invalid(field: "video event", reason: "unknown video event \(kind)")
                }
                msg = .video(image: image, event)
            case 0x8B:
                msg = .scroll(try r.scrollEvent())
            case 0x8C:
                msg = .displayChanged(try r.displayLayout())
            case 0x8D:
                msg = .frame(try r.displayLinkFrame())
            case 0x8E:
                msg = .appSurface(try r.appSurfaceEvent())
            case 0x8F:
                msg = .tilesWanted(try r.tilesWanted())
            default:
                throw MessageError.unknownType(type)
            }
            try r.finish()
            return msg
        } catch let e as MessageError {
            throw e
        } catch let e as DecodeError {
            throw .decode(e)
        } catch {
            throw .decode(.invalid(field: "message", reason: "\(error)"))
        }
    }
}

/// Why a frame's body is not a message.
public enum MessageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The frame's type is not one this version knows.
    case unknownType(UInt16)
    /// The body does not decode.
    case decode(DecodeError)
    /// A commit's body does not decode; `operationIndex` is -1 when the failure is not inside
    /// an operation (the count, trailing bytes).
    case commit(serial: UInt32, operationIndex: Int, DecodeError)

    public var description: String {
        switch self {
        case .unknownType(let t): "unknown message type 0x\(String(t, radix: 16))"
        case .decode(let e): e.description
        case let .commit(_, _, e): e.description
        }
    }
}

// MARK: - Input (protocol 1.4)

extension ByteWriter {
    mutating func injection(_ i: InputInjection) {
        u8(i.opcode)
        switch i {
        case let .touchDown(id, p), let .touchMotion(id, p):
            i32(id); f64(p.x); f64(p.y)
        case .touchUp(let id), .touchCancel(let id):
            i32(id)
        case .pointerMotion(let p):
            f64(p.x); f64(p.y)
        case let .pointerButton(code, pressed):
            u32(code); bool(pressed)
        case let .pointerAxis(h, v):
            f64(h); f64(v)
        case let .key(name, pressed):
            string(name); bool(pressed)
        }
    }

    mutating func inputEvent(_ e: InputEvent) {
        u8(e.kind.rawValue)
        u8(e.injected ? 1 : 0)
        u32(e.layer.rawValue)
        i32(e.id)
        f64(e.location.x); f64(e.location.y)
        f64(e.screen.x); f64(e.screen.y)
        f64(e.time)
        f64(e.deviceTime)
        f64(e.delta.x); f64(e.delta.y)
        u32(e.keysym)
        string(e.keyName)
        string(e.text)
    }
}

extension ByteReader {
    mutating func injection() throws(DecodeError) -> InputInjection {
        let op = try u8("input injection kind")
        func point(_ what: String) throws(DecodeError) -> Point {
            let p = Point(x: try f64("\(what) x"), y: try f64("\(what) y"))
            guard p.x.isFinite, p.y.isFinite else {
                throw DecodeError.invalid(field: what, reason: "coordinates must be finite, got \(p)")
            }
            return p
        }
        switch op {
        case 1: return .touchDown(id: try i32("touch id"), at: try point("touch point"))
        case 2: return .touchMotion(id: try i32("touch id"), to: try point("touch point"))
        case 3: return .touchUp(id: try i32("touch id"))
        case 4: return .touchCancel(id: try i32("touch id"))
        case 5: return .pointerMotion(to: try point("pointer point"))
        case 6: return .pointerButton(code: try u32("button code"), pressed: try bool("button pressed"))
        case 7:
            let h = try f64("scroll horizontal"), v = try f64("scroll vertical")
            guard h.isFinite, v.isFinite, abs(h) <= 1e6, abs(v) <= 1e6 else {
                throw DecodeError.invalid(field: "scroll", reason: "distances must be finite and at most 10⁶ points, got \(h), \(v)")
            }
            return .pointerAxis(horizontal: h, vertical: v)
        case 8: return .key(name: try string("key name", limit: 64), pressed: try bool("key pressed"))
        default: throw DecodeError.invalid(field: "input injection kind", reason: "unknown kind \(op)")
        }
    }

    mutating func inputEvent() throws(DecodeError) -> InputEvent {
        let raw = try u8("input event kind")
        guard let kind = InputEvent.Kind(rawValue: raw) else {
            throw DecodeError.invalid(field: "input event kind", reason: "unknown kind \(raw)")
        }
        let flags = try u8("input event flags")
        return InputEvent(kind: kind, injected: flags & 1 != 0, layer: LayerID(try u32("input event layer")),
                          id: try i32("input event id"),
                          location: Point(x: try f64("input event x"), y: try f64("input event y")),
                          screen: Point(x: try f64("input event screen x"), y: try f64("input event screen y")),
                          time: try f64("input event time"), deviceTime: try f64("input event device time"),
                          delta: Point(x: try f64("input event dx"), y: try f64("input event dy")),
                          keysym: try u32("input event keysym"), keyName: try string("input event key name", limit: 256),
                          text: try string("input event text", limit: 256))
    }
}
