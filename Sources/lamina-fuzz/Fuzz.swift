// Coverage-guided fuzz targets for libFuzzer (`scripts/fuzz.sh`). Built only with
// LAMINA_FUZZ=1 and `swift build --sanitize fuzzer` (Package.swift), which links libFuzzer's
// main; this file is therefore a library file with the two C entry points libFuzzer calls.
// LAMINA_FUZZ_TARGET picks what the input drives:
//   decoder     bytes → FrameDecoder → ClientMessage.decode
//   apply       one commit body → decode → ClientTree.apply (limits as laminad's)
//   compositor  a script of chunks fed to a whole Compositor with two clients, frames drawn
//               with the shared recording fakes, clients dropped and reconnected
//   journal     bytes → SessionJournal.decode → restored into a Compositor and written again
//   image       an SVG (librsvg, as laminad's EncodedImageDecoder takes it, drawn small), or
//               bytes → AnimatedImage.decode (GIF through giflib, WebP through libwebp, a 16 MiB
//               budget) → its frames checked and played on an AnimatedImageTimeline
#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaProtocol
import LaminaCompositor
import LaminaImage
import LaminaRaster
import LaminaTestSupport
import Logging

enum Target: String { case decoder, apply, compositor, journal, image }

let target = Target(rawValue: getenv("LAMINA_FUZZ_TARGET").map { String(cString: $0) } ?? "") ?? .compositor

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    if let dir = getenv("LAMINA_FUZZ_SEEDS").map({ String(cString: $0) }) { Seeds.write(to: dir, for: target) }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    switch target {
    case .decoder: fuzzDecoder(bytes)
    case .apply: fuzzApply(bytes)
    case .compositor: fuzzCompositor(bytes)
    case .journal: fuzzJournal(bytes)
    case .image: fuzzImage(bytes)
    }
    return 0
}

func fuzzDecoder(_ bytes: UnsafeBufferPointer<UInt8>) {
    var decoder = FrameDecoder(limit: 1 << 20)
    decoder.append(UnsafeRawBufferPointer(bytes))
    while let frame = try? decoder.next() {
        _ = try? ClientMessage.decode(type: frame.type, body: frame.body)
    }
}

func fuzzApply(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard case .commit(let commit)? = try? ClientMessage.decode(type: 2, body: ArraySlice(bytes)) else { return }
    var tree = ModelTree(width: 320, height: 240)
    _ = try? tree.attach(ClientID(rawValue: 1), hello: Hello(clientName: "fuzz", session: "s", flags: .keepLayers))
    var limits = ClientLimits()
    limits.maxLayers = 5000
    _ = try? tree.apply(commit.operations, from: ClientID(rawValue: 1), limits: limits)
    // A second pass over the result: the same commit again (duplicates, moves, destroys).
    _ = try? tree.apply(commit.operations, from: ClientID(rawValue: 1), limits: limits)
    _ = tree.json(clock: .virtual, time: 0)
    _ = tree.entries.first?.tree.snapshot()
}

/// A journal as laminad reads it at start: decoded, its sessions restored (image files read as
/// zeros of the right size, or missing for odd numbers), a frame drawn, and written again.
func fuzzJournal(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let journal = try? SessionJournal.decode(Array(bytes), verifyingChecksum: false) else { return }
    let compositor = Compositor(presenter: stubPresenter(), clock: FrameClock(.virtual), logger: quiet, realTime: { 0 })
    compositor.restore(journal, bootID: "") { image in
        image.number % 2 == 1 || image.byteCount > 1 << 20 ? nil : HeapPixelMemory([UInt8](repeating: 0, count: image.byteCount))
    }
    _ = try? compositor.flushFrame(always: true)
    _ = compositor.journal(bootID: "", filePrefix: "f").0.encoded()
}

/// An image file as laminad would take it from a client: decoded within a budget, or refused
/// with an error; never a trap, a hang or an allocation past the budget. What decodes must
/// hold canvas-sized frames, one delay each, and play on a timeline whose changes move forward.
func fuzzImage(_ bytes: UnsafeBufferPointer<UInt8>) {
    // An SVG document goes the way laminad takes one: parsed by librsvg within 1 MiB, and
    // drawn (small: the fuzzer looks for traps and hangs, not big rasters).
    if ImageFile.encodedKind(of: Array(bytes)) == .svg {
        guard case .vector(let svg)? = try? EncodedImageDecoder().decode(.svg, UnsafeRawBufferPointer(bytes), maximumFileBytes: 1 << 20,
                                                                         maximumPixelBytes: 16 << 20) else { return }
        precondition(svg.size.width > 0 && svg.size.height > 0 && svg.size.width <= 16384 && svg.size.height <= 16384, "an unchecked size")
        if let r = svg.rasterize(pixelsPerPoint: 1, maximumSide: 128) {
            precondition(r.bitmap.width <= 128 && r.bitmap.height <= 128, "a raster over its bound")
        }
        return
    }
    guard let image = try? AnimatedImage.decode(Array(bytes), maximumBytes: 16 << 20) else { return }
    precondition(!image.frames.isEmpty && image.frames.count == image.delays.count, "frames and delays disagree")
    for frame in image.frames {
        precondition(frame.width == image.width && frame.height == image.height && frame.bytes.count == image.width * image.height * 4)
    }
    let timeline = AnimatedImageTimeline(delays: image.delays, loopCount: image.loopCount)
    var time = 0.0
    for _ in 0..<16 {
        guard let next = timeline.nextChange(after: time) else { break }
        precondition(next > time && timeline.frame(at: next) != timeline.frame(at: time), "a change that is not one at \(next)")
        time = next
    }
}

/// The frame step over one 320×240 output whose frames go nowhere (the shared recording fakes,
/// recording off); the render list is still built and the output's damage history kept, which
/// is the walk worth fuzzing.
func stubPresenter() -> FramePresenter {
    let backend = FakeBackend()
    let output = FakeOutput("stub", Rect(x: 0, y: 0, width: 320, height: 240), journal: backend.journal)
    output.refreshInterval = nil
    backend.fakes = [output]
    backend.recordsCalls = false
    return backend.makePresenter()
}

/// The input is a script: [action u8][length u8][bytes…]. Actions: 0/1 bytes to client A/B,
/// 2 draw a frame, 3 drop client A or B and connect a new one, 4 advance the virtual clock.
func fuzzCompositor(_ bytes: UnsafeBufferPointer<UInt8>) {
    let compositor = Compositor(presenter: stubPresenter(), clock: FrameClock(.virtual), logger: quiet, realTime: { 0 })
    var clients = [compositor.connect(), compositor.connect()]
    let hello = ClientMessage.hello(Hello(clientName: "fuzz")).encoded()
    for c in clients { hello.withUnsafeBytes { compositor.receive($0, from: c) } }
    var closed: Set<ClientID> = []
    let host = TestHost()
    compositor.host = host
    host.onClose = { closed.insert($0) }
    host.onSend = { id, _ in
        // A peer whose socket failed mid-send, as laminad reports it.
        if id.rawValue % 7 == 3 { compositor.disconnected(id) }
    }
    var i = 0
    while i + 2 <= bytes.count {
        let action = bytes[i] % 5, length = Int(bytes[i + 1])
        i += 2
        let chunk = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[i..<min(bytes.count, i + length)]))
        i += length
        switch action {
        case 0, 1: compositor.receive(chunk, from: clients[Int(action)], frameBudget: 16)
        case 2: _ = try? compositor.flushFrame(always: true)
        case 3:
            let k = chunk.first.map { Int($0) % 2 } ?? 0
            compositor.disconnected(clients[k])
            clients[k] = compositor.connect()
            hello.withUnsafeBytes { compositor.receive($0, from: clients[k]) }
        default:
            let request = ClientMessage.request(id: 1, .advanceClock(seconds: Double(chunk.first ?? 0) / 16)).encoded()
            request.withUnsafeBytes { compositor.receive($0, from: clients[0]) }
        }
        for c in clients where compositor.hasPendingFrame(c) { compositor.handlePending(c, frameBudget: 64) }
    }
    _ = try? compositor.flushFrame(always: true)
}

/// Log lines would cost more than the input; only what cannot happen is worth printing.
let quiet: Logger = {
    var l = Logger(label: "fuzz")
    l.logLevel = .critical
    return l
}()
