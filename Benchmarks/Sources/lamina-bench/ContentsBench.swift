import Glibc
import LaminaCore
import LaminaGLES
import LaminaCompositor
import LaminaTestSupport

/// Contents: texture bytes held per 256×256 contents layer (the number), the frame
/// time of 100 such layers at 1280×720 (each its own image, a third rotated, linear filtering),
/// and the cost of re-uploading a 64×64 sub-rectangle against the whole image.
func runContentsBenchmark() throws -> String {
    let width = 1280, height = 720, side = 256, count = 100
    let backend = try HeadlessDisplay(width: width, height: height)
    var sources: [ImageSource] = []
    for i in 0..<count {
        var bytes = [UInt8](repeating: 0, count: side * side * 4)
        for p in stride(from: 0, to: bytes.count, by: 4) {
            bytes[p] = UInt8((p / 4 + i * 7) % 256); bytes[p + 1] = UInt8(i * 2); bytes[p + 2] = 128; bytes[p + 3] = 255
        }
        sources.append(ImageSource(owner: .session(EntrySerial(1)), number: UInt32(i + 1), memory: HeapPixelMemory(bytes),
                                   format: ImageFormat(width: UInt32(side), height: UInt32(side))))
    }
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ range: Double) -> Double {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(seed >> 11) / Double(1 << 53) * range
    }
    let commands: [DrawCommand] = sources.enumerated().map { i, source in
        var layer = LayerProperties()
        layer.bounds = Rect(0, 0, 200, 200)
        layer.position = Point(100 + next(Double(width) - 200), 100 + next(Double(height) - 200))
        if i % 3 == 0 { layer.transform = .rotation(angle: next(.pi / 2)) }
        return DrawCommand(kind: .contents, transform: layer.transformToSuperlayer, bounds: layer.bounds,
                           contents: DrawContents(source: source, destination: layer.bounds))
    }
    let list = DrawList(width: width, height: height, background: .black, commands: commands)

    func time(_ frames: Int, _ body: () throws -> Void) rethrows -> (mean: Double, median: Double) {
        var ms: [Double] = []
        for _ in 0..<frames {
            let start = monotonicSeconds()
            try body()
            backend.context.finish()
            ms.append((monotonicSeconds() - start) * 1000)
        }
        ms.sort()
        return (ms.reduce(0, +) / Double(ms.count), ms[ms.count / 2])
    }
    let firstUpload = try time(1) { try backend.present(list) }
    let bytesPerLayer = backend.renderer.textureUsage.totalBytes / count
    for _ in 0..<10 { try backend.present(list); backend.context.finish() }
    let steady = try time(100) { try backend.present(list) }
    // One image changes a 64×64 rectangle each frame, then the whole image each frame.
    let partial = try time(100) {
        sources[0].markChanged(PixelRect(x: 32, y: 32, width: 64, height: 64))
        try backend.present(list)
    }
    let whole = try time(100) {
        sources[0].markChanged(PixelRect(x: 0, y: 0, width: UInt32(side), height: UInt32(side)))
        try backend.present(list)
    }
    return """
        contents: \(count) layers of 200×200 showing their own \(side)×\(side) image at \(width)×\(height), a third rotated
          renderer: \(backend.rendererDescription)
          texture bytes per \(side)×\(side) contents layer: \(bytesPerLayer) (linear; trilinear adds a third for mipmaps: \(bytesPerLayer + bytesPerLayer / 3))
          first frame (uploads all \(count)): \(format(firstUpload.mean)) ms
          steady frame: mean \(format(steady.mean)) ms, median \(format(steady.median)) ms
          with one 64×64 sub-rectangle re-uploaded: median \(format(partial.median)) ms; whole 256×256 re-uploaded: median \(format(whole.median)) ms
        """
}

private func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

private func format(_ ms: Double) -> String {
    let hundredths = (ms * 100).rounded()
    return String(hundredths / 100)
}
