import LaminaCore
import LaminaProtocol

// A commit's image and video operations (create-image, update-image, destroy-image,
// create-video, control-video) and the images' lifetime: what a resumed session inherits, and
// what a session's end destroys. Image changes reach the renderer only once the commit stands
// (`finishCommit`).

extension ClientTree {
    /// Pixel bytes the client's images and its videos' current frames hold: what the image
    /// budgets (`max_image_bytes`, and with the other clients' `max_total_image_bytes`) count.
    public var imageBytes: Int {
        images.values.reduce(0) { $0 + $1.byteCount } + videos.values.reduce(0) { $0 + ($1.image?.byteCount ?? 0) }
            + encodedImages.values.reduce(0) { $0 + $1.extraBytes }
    }

    /// Applies image or video operation `op` (number `i` of its commit), taking its memory file
    /// from `attachments`; returns whether pixels may have changed. Other operations are no-ops.
    mutating func applyImage(_ op: Operation, index i: Int, attachments: [MemoryAttachment], limits: ClientLimits,
                             journal: inout Journal) throws(CommitRejection) -> Bool {
        func fail(_ code: ErrorCode, _ message: String) -> CommitRejection {
            CommitRejection(code: code, operationIndex: i, message: message)
        }
        func saveImage(_ n: UInt32) { if journal.savedImages[n] == nil { journal.savedImages[n] = .some(images[n]) } }
        func saveVideo(_ n: UInt32) { if journal.savedVideos[n] == nil { journal.savedVideos[n] = .some(videos[n]) } }
        func saveEncoded(_ n: UInt32) { if journal.savedEncoded[n] == nil { journal.savedEncoded[n] = .some(encodedImages[n]) } }
        switch op {
        case let .createVideo(n, uri):
            guard n != 0 else { throw fail(.invalidImage, "video image number 0 is nil; choose a number ≥ 1") }
            guard images[n] == nil, videos[n] == nil, encodedImages[n] == nil else {
                throw fail(.duplicateImage, "image \(n) already exists (destroy it first); a video's pictures take an image number")
            }
            guard imageCount < limits.maxImages else {
                throw fail(.limitExceeded, "a client may hold at most \(limits.maxImages) images and videos")
            }
            guard !uri.isEmpty else { throw fail(.invalidImage, "video \(n): the URI is empty (give an absolute path or a URI)") }
            saveVideo(n)
            let surface = VideoSurface(number: n, uri: uri)
            videos[n] = surface
            journal.videoChanges.append(.created(surface))
            return false
        case let .controlVideo(n, control):
            guard let surface = videos[n] else {
                throw fail(.unknownImage, images[n] == nil ? "video \(n) does not exist" : "image \(n) is an image, not a video")
            }
            journal.videoChanges.append(.controlled(surface, control))
            return true
        case let .destroyImage(n) where videos[n] != nil:
            saveVideo(n)
            let surface = videos.removeValue(forKey: n)!
            journal.videoChanges.removeAll { $0.surface === surface }
            journal.videoChanges.append(.destroyed(surface))
            return layers.values.contains { $0.properties.contents == n }
        case let .createImage(n, format):
            let pixels = try takeNewImage(n, index: i, attachments: attachments, limits: limits, journal: &journal)
            switch pixels {
            case .memory(let memory):
                if let problem = format.problem(fileSize: memory.byteCount) { throw fail(.invalidImage, "image \(n): \(problem)") }
            case .dmabuf(let p):
                guard p.width == Int(format.width), p.height == Int(format.height) else {
                    throw fail(.invalidImage, "image \(n): the dma-buf is \(p.width)×\(p.height), the format says \(format.width)×\(format.height)")
                }
            }
            let bytes = Int(format.width) * Int(format.height) * 4
            let held = imageBytes
            guard held + bytes <= limits.maxImageBytes else {
                throw fail(.limitExceeded, "image \(n) (\(format.width)×\(format.height), \(bytes) bytes) would take this client's images to \(held + bytes) bytes; the image budget (max_image_bytes) is \(limits.maxImageBytes)")
            }
            if let left = limits.imageBytesLeft, held + bytes > left {
                throw fail(.limitExceeded, "image \(n) (\(bytes) bytes) does not fit: all clients' images may hold \(limits.maxTotalImageBytes) bytes together (max_total_image_bytes), and the others hold \(limits.maxTotalImageBytes - left)")
            }
            saveImage(n)
            switch pixels {
            case .memory(let memory): images[n] = ImageSource(owner: imageOwner, number: n, memory: memory, format: format)
            case .dmabuf(let picture): images[n] = ImageSource(owner: imageOwner, number: n, dmabuf: picture)
            }
            return layers.values.contains { $0.properties.contents == n }
        case let .createEncodedImage(n, format, byteCount):
            return try createEncoded(n, format, byteCount: byteCount, index: i, attachments: attachments, limits: limits,
                                     journal: &journal)
        case let .updateImage(n, rect):
            if encodedImages[n] != nil {
                throw fail(.invalidImage, "image \(n) was made from an encoded file (create-encoded-image): its pixels are laminad's to draw, update-image cannot change them")
            }
            guard let source = images[n] else {
                throw fail(.unknownImage, videos[n] == nil ? "image \(n) does not exist" : "image \(n) is a video's pictures: the decoder writes it, update-image cannot")
            }
            guard rect.fits(width: UInt32(source.width), height: UInt32(source.height)) else {
                throw fail(.invalidImage, "update rectangle \(rect) is empty or reaches outside image \(n) (\(source.width)×\(source.height))")
            }
            journal.imageUpdates.append((source, rect))
            return true
        case let .destroyImage(n):
            if let encoded = encodedImages[n] {
                saveEncoded(n)
                encodedImages[n] = nil
                journal.destroyedEncoded.append(encoded)
            }
            guard let source = images[n] else {
                if journal.savedEncoded[n] != nil { return true }
                throw fail(.unknownImage, "image \(n) does not exist")
            }
            saveImage(n)
            images[n] = nil
            journal.destroyedImages.append(source)
            journal.imageUpdates.removeAll { $0.0 === source }
            return true
        default:
            return false
        }
    }

    /// Images, videos and encoded images (an animated one counts once: its frames are one image).
    var imageCount: Int {
        images.count + videos.count + encodedImages.values.reduce(0) { $0 + ($1.vector != nil ? 1 : 0) }
    }

    /// The checks create-image and create-encoded-image share: the frame's next memory file
    /// (taken in order), a number ≥ 1 that is free, and room under `max_images`.
    private func takeNewImageMemory(_ n: UInt32, index i: Int, attachments: [MemoryAttachment], limits: ClientLimits,
                                    journal: inout Journal) throws(CommitRejection) -> any PixelMemory {
        switch try takeNewImage(n, index: i, attachments: attachments, limits: limits, journal: &journal) {
        case .memory(let m): return m
        case .dmabuf: throw CommitRejection(code: .invalidImage, operationIndex: i, message: "image \(n): an encoded image comes in a memory file, not a dma-buf")
        }
    }

    /// A new image's pixels as its attachment brought them.
    private enum NewImagePixels {
        case memory(any PixelMemory)
        /// An app's buffer (laminad's own Wayland session only).
        case dmabuf(DMABufPicture)
    }

    /// `takeNewImageMemory`'s checks, giving the pixels as they came: a memory file, or an
    /// app's dma-buf.
    private func takeNewImage(_ n: UInt32, index i: Int, attachments: [MemoryAttachment], limits: ClientLimits,
                              journal: inout Journal) throws(CommitRejection) -> NewImagePixels {
        func fail(_ code: ErrorCode, _ message: String) -> CommitRejection {
            CommitRejection(code: code, operationIndex: i, message: message)
        }
        guard journal.attachmentsTaken < attachments.count else {
            throw fail(.invalidImage, "image \(n): the frame carried only \(attachments.count) file descriptor\(attachments.count == 1 ? "" : "s") for more create-image and create-encoded-image operations (send one memory file per such operation, in order, with the frame)")
        }
        let attachment = attachments[journal.attachmentsTaken]
        journal.attachmentsTaken += 1
        guard n != 0 else { throw fail(.invalidImage, "image number 0 is nil; choose a number ≥ 1") }
        guard images[n] == nil, encodedImages[n] == nil else { throw fail(.duplicateImage, "image \(n) already exists (destroy it first)") }
        guard videos[n] == nil else { throw fail(.duplicateImage, "image \(n) is a video's (destroy it first)") }
        guard imageCount < limits.maxImages else {
            throw fail(.limitExceeded, "a client may hold at most \(limits.maxImages) images")
        }
        switch attachment {
        case .memory(let m): return .memory(m)
        case .dmabuf(let p): return .dmabuf(p)
        case .unusable(let why): throw fail(.invalidImage, "image \(n): its file descriptor cannot be used: \(why)")
        }
    }

    /// Creates image `n` from the encoded file in the next attachment (create-encoded-image):
    /// its bytes checked against `max_encoded_image_bytes`, decoded within what the image budgets
    /// leave, an animated one's first frame shown through an `ImageSource` of number `n`.
    private mutating func createEncoded(_ n: UInt32, _ format: EncodedImageFormat, byteCount: UInt64, index i: Int,
                                        attachments: [MemoryAttachment], limits: ClientLimits,
                                        journal: inout Journal) throws(CommitRejection) -> Bool {
        func fail(_ code: ErrorCode, _ message: String) -> CommitRejection {
            CommitRejection(code: code, operationIndex: i, message: message)
        }
        let memory = try takeNewImageMemory(n, index: i, attachments: attachments, limits: limits, journal: &journal)
        guard byteCount > 0 else { throw fail(.invalidImage, "image \(n): the \(format) file is empty (byteCount 0)") }
        guard byteCount <= UInt64(limits.maxEncodedImageBytes) else {
            throw fail(.limitExceeded, "image \(n): the \(format) file is \(byteCount) bytes; the limit is \(limits.maxEncodedImageBytes) (max_encoded_image_bytes)")
        }
        guard byteCount <= UInt64(memory.byteCount) else {
            throw fail(.invalidImage, "image \(n): byteCount \(byteCount) is more than its memory file's \(memory.byteCount) bytes")
        }
        guard let decoder = imageDecoder else {
            throw fail(.invalidImage, "image \(n): this laminad cannot decode \(format) files")
        }
        let held = imageBytes
        var left = limits.maxImageBytes - held
        if let total = limits.imageBytesLeft { left = min(left, total - held) }
        let bytes = UnsafeRawBufferPointer(start: memory.base, count: Int(byteCount))
        let decoded: DecodedImage
        do throws(ImageDecodingFailure) {
            decoded = try decoder.decode(format, bytes, maximumFileBytes: limits.maxEncodedImageBytes, maximumPixelBytes: max(0, left))
        } catch {
            throw fail(.invalidImage, "image \(n): \(error.message)")
        }
        let image = EncodedImage(number: n, format: format, bytes: Array(bytes), content: decoded)
        if case let .frames(frames, delays, _) = decoded {
            guard let first = frames.first, frames.count == delays.count,
                  frames.allSatisfy({ $0.width == first.width && $0.height == first.height }) else {
                throw fail(.invalidImage, "image \(n): the \(format) file decoded to no frames, or to frames of different sizes")
            }
            let needed = frames.count * first.width * first.height * 4
            guard needed <= left else {
                throw fail(.limitExceeded, "image \(n): its \(frames.count) frames of \(first.width)×\(first.height) (\(needed) bytes) would pass what the image budgets leave this client (\(max(0, left)) bytes; max_image_bytes, max_total_image_bytes)")
            }
            if journal.savedImages[n] == nil { journal.savedImages[n] = .some(images[n]) }
            let source = ImageSource(owner: imageOwner, number: n, bitmap: first, alpha: .straight)
            images[n] = source
            image.source = source
        }
        if journal.savedEncoded[n] == nil { journal.savedEncoded[n] = .some(encodedImages[n]) }
        encodedImages[n] = image
        return layers.values.contains { $0.properties.contents == n }
    }

    /// A kept session was resumed by a new client, which has no handle on the images an
    /// earlier client made: those no layer shows are destroyed now, the rest as soon as no
    /// layer shows them any more (checked after each commit).
    public mutating func adoptImages() {
        inheritedImages = Set(images.keys).union(encodedImages.keys)
        inheritedVideos = Set(videos.keys)
        destroyUnshownInheritedImages()
    }

    /// Destroys the inherited images and videos no layer shows.
    mutating func destroyUnshownInheritedImages() {
        guard !inheritedImages.isEmpty || !inheritedVideos.isEmpty else { return }
        var shown = Set<UInt32>()
        for l in layers.values where l.properties.contents != 0 { shown.insert(l.properties.contents) }
        for n in inheritedImages where !shown.contains(n) {
            images.removeValue(forKey: n)?.destroy()
            encodedImages.removeValue(forKey: n)?.destroy()
            inheritedImages.remove(n)
        }
        for n in inheritedVideos where !shown.contains(n) {
            videos.removeValue(forKey: n)?.destroy()
            inheritedVideos.remove(n)
        }
    }

    /// Marks every image destroyed (the session ended): their textures go.
    public func destroyImages() {
        for source in images.values { source.destroy() }
        for image in encodedImages.values { image.destroy() }
        for video in videos.values { video.destroy() }
        for l in tiles.layers.values { for e in l.entries.values { e.source.destroy() } }
    }
}
