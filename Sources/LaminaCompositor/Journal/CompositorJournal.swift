import LaminaCore
import LaminaProtocol

/// Kept sessions written down and brought back (SessionJournal.swift): what a restarted
/// laminad shows before any client returns.
extension Compositor {
    /// An image the journal names, with the source whose pixels go in its file.
    public struct JournalImage {
        public var file: String
        public var source: ImageSource?
        /// An encoded image's file bytes, written as they are.
        public var encodedBytes: [UInt8]?
        /// Its pixels as premultiplied RGBA rows, width × 4 bytes each, top row first (or an
        /// encoded image's file).
        public func pixels() -> [UInt8] {
            if let encodedBytes { return encodedBytes }
            guard let source else { return [] }
            var scratch: [UInt8] = []
            let rect = PixelRect(x: 0, y: 0, width: UInt32(source.width), height: UInt32(source.height))
            return source.withPremultipliedRGBA(rect, scratch: &scratch) { base, rowLength in
                var out = [UInt8](repeating: 0, count: source.byteCount)
                out.withUnsafeMutableBytes { o in
                    for row in 0..<source.height {
                        (o.baseAddress! + row * source.width * 4)
                            .copyMemory(from: base + row * rowLength * 4, byteCount: source.width * 4)
                    }
                }
                return out
            }
        }
    }

    /// The kept sessions as a journal, and the images it names. `filePrefix` makes image file
    /// names unique to this process (an image's file is named by its source and generation, so
    /// an unchanged image keeps its file from one write to the next).
    public func journal(bootID: String, filePrefix: String) -> (SessionJournal, [JournalImage]) {
        var sessions: [SessionJournal.Session] = []
        var files: [JournalImage] = []
        for entry in model.entries where entry.isKept {
            var images: [SessionJournal.Image] = []
            var encoded: [SessionJournal.EncodedImage] = []
            for (number, image) in entry.tree.encodedImages.sorted(by: { $0.key < $1.key }) where !image.isDestroyed {
                let file = "\(filePrefix)-e\(image.id).\(image.format.description.lowercased())"
                encoded.append(SessionJournal.EncodedImage(number: number, format: image.format, byteCount: UInt64(image.bytes.count), file: file))
                files.append(JournalImage(file: file, source: nil, encodedBytes: image.bytes))
            }
            for (number, source) in entry.tree.images.sorted(by: { $0.key < $1.key })
            where !source.isDestroyed && entry.tree.encodedImages[number] == nil {
                let file = "\(filePrefix)-\(source.id)-\(source.generation).rgba"
                images.append(SessionJournal.Image(number: number, width: UInt32(source.width),
                                                   height: UInt32(source.height), file: file))
                files.append(JournalImage(file: file, source: source))
            }
            sessions.append(SessionJournal.Session(name: entry.session, clientName: entry.clientName, ownerUID: entry.ownerUID,
                                                   structure: entry.tree.snapshot(), images: images,
                                                   animations: Self.animationOperations(entry, animationStates[entry.serial]),
                                                   videos: journalVideos(entry), encodedImages: encoded))
        }
        return (SessionJournal(clock: clock.isVirtual ? .virtual : .real, writtenAt: now, bootID: bootID, sessions: sessions), files)
    }

    /// The entry's videos with their controls and where their media time stands now. A video
    /// that failed is written too: a restarted laminad tries it again (a stream may be back).
    func journalVideos(_ entry: ModelTree.Entry) -> [SessionJournal.Video] {
        entry.tree.videos.sorted(by: { $0.key < $1.key }).compactMap { number, v in
            guard !v.isDestroyed else { return nil }
            return SessionJournal.Video(number: number, uri: v.uri, loops: v.loops, rate: v.rate, isPlaying: v.isPlaying,
                                        position: v.mediaTime(at: now), volume: v.volume, isMuted: v.isMuted)
        }
    }

    /// An add-animation for each animation on the entry's layers, begin times resolved (in each
    /// layer's time), implicit ones with the value they started from as their `fromValue`.
    /// Transitions are left out: they need the rendering from before their commit.
    /// Finished animations removed on completion go at the next frame anyway; those that stay
    /// (removedOnCompletion false) are included.
    static func animationOperations(_ entry: ModelTree.Entry, _ state: AnimationState?) -> [Operation] {
        guard let state else { return [] }
        var ops: [Operation] = []
        for (id, animated) in state.animated.sorted(by: { $0.key < $1.key }) where entry.tree[id] != nil {
            for e in animated.animations.entries where !e.animation.containsTransition {
                ops.append(.addAnimation(id, key: e.key ?? "", tag: 0, e.standaloneAnimation))
            }
        }
        return ops
    }

    /// Brings back the journal's sessions as kept sessions with no client: their trees, images,
    /// animations (re-timed by `SessionJournal.shift`) and videos (decoded again, media time
    /// moved on by the same rule). `pixels` reads an image's file
    /// (nil: missing or the wrong size; the image is left out and its layers show without it).
    /// A session already present, or one the budgets refuse, is skipped. Returns a line for the
    /// log about each session.
    @discardableResult
    public func restore(_ journal: SessionJournal, bootID: String,
                        pixels: (SessionJournal.Image) -> (any PixelMemory)?,
                        encodedFile: (SessionJournal.EncodedImage) -> (any PixelMemory)? = { _ in nil }) -> [String] {
        var report: [String] = []
        let shift = journal.shift(to: clock.isVirtual ? .virtual : .real, now: now, bootID: bootID)
        let disable = Operation.settings(TransactionSettings(disableActions: true))
        for s in journal.sessions {
            guard !s.name.isEmpty, !model.entries.contains(where: { $0.session == s.name }) else {
                report.append("session '\(s.name)': skipped (already present)")
                continue
            }
            let client = ClientID(rawValue: nextClient)
            nextClient &+= 1
            do throws(ErrorMessage) {
                _ = try model.attach(client, hello: Hello(clientName: s.clientName, session: s.name, flags: [.keepLayers]),
                                       peer: PeerIdentity(uid: s.ownerUID, isPrivileged: false), limits: configuration.limits)
            } catch {
                report.append("session '\(s.name)': not restored: \(error.message)")
                continue
            }
            guard let i = model.index(of: client) else { continue }
            var ops = [disable]
            var attachments: [MemoryAttachment] = []
            var missing: [UInt32] = []
            for image in s.images {
                guard let memory = pixels(image) else { missing.append(image.number); continue }
                ops.append(.createImage(image: image.number, ImageFormat(width: image.width, height: image.height)))
                attachments.append(.memory(memory))
            }
            for image in s.encodedImages {
                guard let memory = encodedFile(image) else { missing.append(image.number); continue }
                ops.append(.createEncodedImage(image: image.number, image.format, byteCount: image.byteCount))
                attachments.append(.memory(memory))
            }
            // Videos before the layers that show them; a playing one has moved on by the clock
            // time between the write and now, as the journal's animations have.
            for video in s.videos { ops += video.operations(elapsed: now - shift - journal.writtenAt) }
            // App windows are the last laminad's: its numbers may name other apps' windows now.
            ops += s.structure.filter { if case .set(_, .appSurface, _) = $0 { false } else { true } }
            do {
                let result = try model.apply(ops, attachments: attachments, from: client, limits: configuration.limits)
                if !result.videoChanges.isEmpty { applyVideoChanges(result.videoChanges, entry: i) }
                startAnimatedImages(entry: i)
                animate(result, entry: i)
            } catch {
                model.entries[i].keepsLayers = false
                let serial = model.entries[i].serial
                model.detach(client)
                forgetAnimations(ofEntry: serial)
                report.append("session '\(s.name)': not restored: \(error)")
                continue
            }
            var refused = 0
            for case let .addAnimation(id, key, tag, animation) in s.animations {
                var a = animation
                if shift != 0, model.entries[i].tree[id] != nil {
                    // The layer's time moved by `shift` of display time scaled by its speeds.
                    a.timing.beginTime += localTime(of: id, entry: i, at: now) - localTime(of: id, entry: i, at: now - shift)
                }
                do {
                    let result = try model.apply([disable, .addAnimation(id, key: key, tag: tag, a)], from: client,
                                                   limits: configuration.limits)
                    animate(result, entry: i)
                } catch {
                    refused += 1
                }
            }
            model.detach(client)
            var line = "session '\(s.name)' of uid \(s.ownerUID): \(model.entries[i].tree.layers.count) layers, \(s.images.count + s.encodedImages.count - missing.count) images, \(s.animations.count - refused) animations"
            if !s.videos.isEmpty { line += ", \(s.videos.count) videos" }
            if !missing.isEmpty { line += "; images \(missing.map(String.init).joined(separator: ", ")) missing or short, left out" }
            if refused > 0 { line += "; \(refused) animations refused" }
            report.append(line)
        }
        if !journal.sessions.isEmpty {
            sessionsChanged()
            requestFrame(.sceneChanged)
        }
        return report
    }
}
