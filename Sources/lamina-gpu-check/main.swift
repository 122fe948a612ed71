// lamina-gpu-check: the renderer's GPU-only paths checked by pixels on this machine's GPU
// (Tests/LaminaGPUChecks; the test suite runs the same checks and skips what llvmpipe cannot do).
//   lamina-gpu-check info     the renderer, its import extensions, the dma-buf devices present
//   lamina-gpu-check dmabuf   a dma-buf of each origin shown through a headless renderer
//   lamina-gpu-check yuv      planar YUV converted in the renderer's shader vs the CPU conversion,
//                             and the external-image draw YUV dma-bufs get
//   lamina-gpu-check blend    every blend mode (compositingFilter) against its formula, the
//                             backdrop by framebuffer fetch (where the context has it) and by copy
//   lamina-gpu-check corners  continuous corners against the curve's control points
//   lamina-gpu-check          all five
//   lamina-gpu-check pattern PITCH    writes the check's picture (64×48 XRGB8888) to stdout
//   lamina-gpu-check import FD PITCH [OFFSET [MODIFIER [PRODUCER]]]
//                             shows a dma-buf another program made (inherited descriptor FD,
//                             holding the pattern) through the renderer (scripts/gpu-cuda-dmabuf.py)
// Exit status: 1 when a check failed, 77 when no dma-buf could be imported or refused (nothing
// ran), 2 for bad arguments, else 0.
#if canImport(Glibc)
import Glibc
#endif
import LaminaGPUChecks

let arguments = Array(CommandLine.arguments.dropFirst())
let what = arguments.first ?? "all"
func usage() -> Never {
    print("usage: lamina-gpu-check [info | dmabuf | yuv | blend | corners | all | pattern PITCH | import FD PITCH [OFFSET [MODIFIER [PRODUCER]]]]")
    exit(2)
}

switch what {
case "pattern":
    guard arguments.count == 2, let pitch = Int(arguments[1]), pitch >= 256, pitch <= 1 << 16 else { usage() }
    let bytes = GPUChecks.patternXRGB(pitch: pitch)
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { write(1, $0.baseAddress! + done, $0.count - done) }
        guard n > 0 else { exit(1) }
        done += n
    }
    exit(0)
case "import":
    // Not standard input, output or error: the check closes the descriptor it is given.
    guard (3...6).contains(arguments.count), let fd = Int32(arguments[1]), fd > 2, let pitch = Int(arguments[2]), pitch > 0,
          pitch <= 1 << 16 else { usage() }
    let offset = arguments.count > 3 ? Int(arguments[3]) : 0
    let modifier: UInt64?? = arguments.count > 4 ? (arguments[4] == "none" ? .some(nil) : UInt64(arguments[4]).map { .some($0) }) : .some(nil)
    guard let offset, offset >= 0, let modifier else { usage() }
    let outcome = GPUChecks.dmabufImport(fd: fd, offset: offset, pitch: pitch, modifier: modifier,
                                         producer: arguments.count > 5 ? arguments[5] : "a dma-buf from another program")
    print("dmabuf import: \(outcome.text)")
    exit(outcome.failed ? 1 : outcome.passed ? 0 : 77)
case "info", "dmabuf", "yuv", "blend", "corners", "all":
    break
default:
    usage()
}

var failed = false
if what == "info" || what == "all" { print(GPUChecks.report()) }
if what == "dmabuf" || what == "all" {
    var ran = false
    for origin in DMABufOrigin.allCases {
        let outcome = GPUChecks.dmabufImport(origin)
        print("dmabuf \(origin.rawValue): \(outcome.text)")
        failed = failed || outcome.failed
        if case .skipped = outcome {} else { ran = true }
    }
    if !ran && !failed && what == "dmabuf" { exit(77) }
}
if what == "yuv" || what == "all" {
    let outcome = GPUChecks.yuvShaderOutcome()
    print("yuv shader: \(outcome.text)")
    let external = GPUChecks.externalImage()
    print("external image: \(external.text)")
    failed = failed || outcome.failed || external.failed
}
if what == "blend" || what == "all" {
    for fetch in [true, false] {
        let outcome = GPUChecks.blendModes(fetch: fetch)
        print("blend modes\(fetch ? "" : " (backdrop copied)"): \(outcome.text)")
        failed = failed || outcome.failed
    }
}
if what == "corners" || what == "all" {
    let outcome = GPUChecks.continuousCorners()
    print("continuous corners: \(outcome.text)")
    failed = failed || outcome.failed
}
exit(failed ? 1 : 0)
