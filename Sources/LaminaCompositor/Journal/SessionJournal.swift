import LaminaCore
import LaminaProtocol

/// What laminad writes down about its kept sessions so that a restarted laminad shows them again
/// before any client comes back (docs/architecture.md, "Restarts").
///
/// The journal is the index: for each kept session its owner, names, the operations that
/// rebuild its tree and the animations running on it. Image pixels are not in it: each image
/// names a file of premultiplied RGBA rows, written once per image generation beside the index
/// (laminad's `SessionJournalStore`), so an index rewrite costs little however many images
/// the sessions hold.
///
/// The encoding is the protocol's own (a commit frame for each list of operations) inside a
/// checksummed envelope; a journal that is torn, corrupt or from another version decodes to an
/// error, never to a partial tree. Version 2 added each session's videos, version 3 its
/// encoded images (create-encoded-image: the file's bytes beside the index), version 4 each
/// video's volume and mute; versions 1 to 3 are still read.
public struct SessionJournal: Sendable, Equatable {
    public static let magic: [UInt8] = Array("LAMJ".utf8)
    public static let version: UInt32 = 4

    public struct Image: Sendable, Equatable {
        /// The client's image number.
        public var number: UInt32
        public var width: UInt32
        public var height: UInt32
        /// The file holding its pixels (width × height × 4 bytes), beside the index.
        public var file: String
        public init(number: UInt32, width: UInt32, height: UInt32, file: String) {
            self.number = number
            self.width = width
            self.height = height
            self.file = file
        }
        public var byteCount: Int { Int(width) * Int(height) * 4 }
    }

    /// A session's image made from an encoded file (protocol 1.7): the file's bytes are in
    /// `file`, beside the index; a restored laminad decodes them again.
    public struct EncodedImage: Sendable, Equatable {
        public var number: UInt32
        public var format: EncodedImageFormat
        public var byteCount: UInt64
        public var file: String
        public init(number: UInt32, format: EncodedImageFormat, byteCount: UInt64, file: String) {
            self.number = number
            self.format = format
            self.byteCount = byteCount
            self.file = file
        }
    }

    /// A session's video: what it plays and how, and where its media time stood at
    /// `writtenAt`. Its pictures are not written: the restored laminad decodes them again.
    public struct Video: Sendable, Equatable {
        /// The client's image number for it.
        public var number: UInt32
        public var uri: String
        public var loops: Bool
        public var rate: Double
        public var isPlaying: Bool
        /// Media seconds at `writtenAt`.
        public var position: Double
        /// The sound's gain (0…1) and mute (version 4; 1 and false before).
        public var volume: Double
        public var isMuted: Bool
        public init(number: UInt32, uri: String, loops: Bool, rate: Double, isPlaying: Bool, position: Double,
                    volume: Double = 1, isMuted: Bool = false) {
            self.number = number
            self.uri = uri
            self.loops = loops
            self.rate = rate
            self.isPlaying = isPlaying
            self.position = position
            self.volume = volume
            self.isMuted = isMuted
        }

        /// The create-video and control-video operations that make it again, with its media
        /// time moved on by `elapsed` seconds of clock while it plays.
        public func operations(elapsed: Double) -> [Operation] {
            let at = position + (isPlaying ? max(0, elapsed) * rate : 0)
            var ops: [Operation] = [.createVideo(image: number, uri: uri)]
            if loops { ops.append(.controlVideo(image: number, .loop(true))) }
            if rate != 1 { ops.append(.controlVideo(image: number, .rate(rate))) }
            if volume != 1 { ops.append(.controlVideo(image: number, .volume(volume))) }
            if isMuted { ops.append(.controlVideo(image: number, .muted(true))) }
            if at > 0, at.isFinite { ops.append(.controlVideo(image: number, .seek(seconds: at))) }
            if isPlaying { ops.append(.controlVideo(image: number, .play)) }
            return ops
        }
    }

    public struct Session: Sendable, Equatable {
        public var name: String
        public var clientName: String
        public var ownerUID: UInt32
        /// Creates, property sets, inserts and actions (`ClientTree.snapshot`).
        public var structure: [Operation]
        public var images: [Image]
        /// add-animation operations, begin times in each layer's time at `writtenAt`.
        public var animations: [Operation]
        public var videos: [Video]
        public var encodedImages: [EncodedImage]
        public init(name: String, clientName: String, ownerUID: UInt32, structure: [Operation],
                    images: [Image], animations: [Operation], videos: [Video] = [], encodedImages: [EncodedImage] = []) {
            self.name = name
            self.clientName = clientName
            self.ownerUID = ownerUID
            self.structure = structure
            self.images = images
            self.animations = animations
            self.videos = videos
            self.encodedImages = encodedImages
        }
    }

    /// The clock the sessions' times are on, and its reading when the journal was written.
    public var clock: ClockKind
    public var writtenAt: Double
    /// The kernel's boot id: on the real clock (CLOCK_MONOTONIC), times from the same boot
    /// need no shifting.
    public var bootID: String
    public var sessions: [Session]

    public init(clock: ClockKind, writtenAt: Double, bootID: String, sessions: [Session]) {
        self.clock = clock
        self.writtenAt = writtenAt
        self.bootID = bootID
        self.sessions = sessions
    }

    /// How far the journal's times are moved to the clock that restores it: nothing on the real
    /// clock of the same boot (the monotonic clock kept running, so animations carry on where
    /// they would be), otherwise the time between the write and `now` on the new clock.
    public func shift(to clock: ClockKind, now: Double, bootID: String) -> Double {
        if clock == .real, self.clock == .real, bootID == self.bootID, !bootID.isEmpty { return 0 }
        return now - writtenAt
    }

    // MARK: Encoding

    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 4096)
        w.u8(clock == .virtual ? 1 : 0)
        w.f64(writtenAt)
        w.string(bootID)
        w.u32(UInt32(sessions.count))
        for s in sessions {
            w.string(s.name)
            w.string(s.clientName)
            w.u32(s.ownerUID)
            Self.write(s.structure, into: &w)
            w.u32(UInt32(s.images.count))
            for image in s.images {
                w.u32(image.number)
                w.u32(image.width)
                w.u32(image.height)
                w.string(image.file)
            }
            Self.write(s.animations, into: &w)
            w.u32(UInt32(s.videos.count))
            for v in s.videos {
                w.u32(v.number)
                w.string(v.uri)
                w.u8(v.loops ? 1 : 0)
                w.u8(v.isPlaying ? 1 : 0)
                w.f64(v.rate)
                w.f64(v.position)
                w.f64(v.volume)
                w.u8(v.isMuted ? 1 : 0)
            }
            w.u32(UInt32(s.encodedImages.count))
            for e in s.encodedImages {
                w.u32(e.number)
                w.u8(e.format.rawValue)
                w.u64(e.byteCount)
                w.string(e.file)
            }
        }
        let payload = w.bytes
        var out = ByteWriter(capacity: payload.count + 16)
        out.raw(Self.magic)
        out.u32(Self.version)
        out.u64(UInt64(payload.count))
        out.u32(CRC32.checksum(payload))
        out.raw(payload)
        return out.bytes
    }

    private static func write(_ ops: [Operation], into w: inout ByteWriter) {
        let frame = ClientMessage.commit(Commit(serial: 0, operations: ops)).encoded()
        w.u64(UInt64(frame.count))
        w.raw(frame)
    }

    /// Why a journal could not be read: it names what was wrong, for the log.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String
        init(_ d: String) { description = d }
    }

    /// Decodes a whole journal, or throws naming the first thing wrong with it.
    /// (`verifyingChecksum` false is for the fuzzer, which could not get past a checksum.)
    public static func decode(_ bytes: [UInt8], verifyingChecksum: Bool = true) throws(Problem) -> SessionJournal {
        guard bytes.count >= 20 else { throw Problem("\(bytes.count) bytes: shorter than a journal's header (torn)") }
        guard Array(bytes[0..<4]) == magic else { throw Problem("not a session journal (bad magic)") }
        var header = ByteReader(bytes[4..<20])
        do {
            let version = try header.u32("version")
            guard (1...Self.version).contains(version) else {
                throw Problem("journal version \(version); this laminad reads versions 1 to \(Self.version)")
            }
            let length = try header.u64("length")
            let crc = try header.u32("checksum")
            guard length == UInt64(bytes.count - 20) else {
                throw Problem("the header promises \(length) bytes of sessions and \(bytes.count - 20) follow (torn)")
            }
            let payload = bytes[20...]
            guard !verifyingChecksum || CRC32.checksum(payload) == crc else { throw Problem("checksum mismatch (corrupt)") }
            var r = ByteReader(payload)
            let clock: ClockKind = try r.u8("clock") == 1 ? .virtual : .real
            let writtenAt = try r.f64("written-at")
            guard writtenAt.isFinite else { throw Problem("written-at is not finite") }
            let bootID = try r.string("boot id", limit: 64)
            let count = try r.u32("session count")
            var sessions: [Session] = []
            for _ in 0..<count {
                let name = try r.string("session name")
                let clientName = try r.string("client name")
                let uid = try r.u32("owner uid")
                let structure = try operations(&r, "structure of session '\(name)'")
                let imageCount = try r.u32("image count")
                var images: [Image] = []
                for _ in 0..<imageCount {
                    let image = Image(number: try r.u32("image number"), width: try r.u32("image width"),
                                      height: try r.u32("image height"), file: try r.string("image file", limit: 255))
                    guard image.width > 0, image.height > 0, image.width <= ImageFormat.maximumDimension,
                          image.height <= ImageFormat.maximumDimension,
                          !image.file.isEmpty, !image.file.contains("/"), !image.file.hasPrefix(".") else {
                        throw Problem("session '\(name)': image \(image.number) has a bad size or file name")
                    }
                    images.append(image)
                }
                let animations = try operations(&r, "animations of session '\(name)'")
                var videos: [Video] = []
                if version >= 2 {
                    for _ in 0..<(try r.u32("video count")) {
                        let number = try r.u32("video number")
                        let uri = try r.string("video URI", limit: 4096)
                        let loops = try r.u8("video loops") != 0
                        let playing = try r.u8("video playing") != 0
                        var video = Video(number: number, uri: uri, loops: loops, rate: try r.f64("video rate"),
                                          isPlaying: playing, position: try r.f64("video position"))
                        if version >= 4 {
                            video.volume = try r.f64("video volume")
                            video.isMuted = try r.u8("video muted") != 0
                        }
                        guard video.number != 0, !video.uri.isEmpty, video.rate.isFinite, video.rate > 0, video.rate <= 16,
                              video.position.isFinite, video.position >= 0, video.volume.isFinite, video.volume >= 0, video.volume <= 1 else {
                            throw Problem("session '\(name)': video \(video.number) has a bad number, URI, rate, position or volume")
                        }
                        videos.append(video)
                    }
                }
                var encoded: [EncodedImage] = []
                if version >= 3 {
                    for _ in 0..<(try r.u32("encoded image count")) {
                        let number = try r.u32("encoded image number")
                        let raw = try r.u8("encoded image format")
                        let byteCount = try r.u64("encoded image bytes")
                        let file = try r.string("encoded image file", limit: 255)
                        guard number != 0, let format = EncodedImageFormat(rawValue: raw), byteCount > 0, byteCount <= 1 << 32,
                              !file.isEmpty, !file.contains("/"), !file.hasPrefix(".") else {
                            throw Problem("session '\(name)': encoded image \(number) has a bad number, format, length or file name")
                        }
                        encoded.append(EncodedImage(number: number, format: format, byteCount: byteCount, file: file))
                    }
                }
                sessions.append(Session(name: name, clientName: clientName, ownerUID: uid, structure: structure,
                                        images: images, animations: animations, videos: videos, encodedImages: encoded))
            }
            try r.finish()
            return SessionJournal(clock: clock, writtenAt: writtenAt, bootID: bootID, sessions: sessions)
        } catch let e as Problem {
            throw e
        } catch {
            throw Problem("\(error)")
        }
    }

    private static func operations(_ r: inout ByteReader, _ what: String) throws -> [Operation] {
        let length = try r.u64(what)
        guard length >= UInt64(Frame.headerSize), length <= UInt64(r.remaining) else { throw Problem("\(what): bad length \(length)") }
        let frame = try r.raw(Int(length), what)
        do {
            guard case .commit(let c) = try ClientMessage.decode(type: 2, body: frame[Frame.headerSize...]) else {
                throw Problem("\(what): not a commit")
            }
            return c.operations
        } catch let e as Problem {
            throw e
        } catch {
            throw Problem("\(what): \(error)")
        }
    }
}

/// CRC-32 (IEEE 802.3, the one zlib and PNG use), for the journal's envelope.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var c: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { t in
            for b in bytes { c = t[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        }
        return c ^ 0xFFFF_FFFF
    }
}
