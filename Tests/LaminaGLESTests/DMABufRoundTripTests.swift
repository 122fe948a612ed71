import LaminaGPUChecks
import Testing

/// Video pictures in dma-buf memory shown through the headless renderer, imported in place,
/// checked by pixels against the same picture drawn from an ordinary image (`GPUChecks`).
/// Importing needs a GPU's driver: on a software renderer (llvmpipe, as in CI) each is a skip
/// with its reason; `lamina-gpu-check dmabuf` runs the same on a machine with a GPU.
@Suite("dma-buf import in place")
struct DMABufRoundTripTests {
    func check(_ origin: DMABufOrigin) throws {
        switch GPUChecks.dmabufImport(origin) {
        case let .passed(detail):
            #expect(Bool(true), Comment(rawValue: detail))
        case let .skipped(reason), let .refused(reason):
            // A refusal is the driver's: laminad copied the picture (where it could be mapped)
            // and the copy was right.
            try Test.cancel(Comment(rawValue: reason))
        case let .failed(reason):
            Issue.record(Comment(rawValue: reason))
        }
    }

    @Test func aTextureTheDriverExported() throws { try check(.eglExport) }
    @Test func aLinearGBMBuffer() throws { try check(.gbm) }
    @Test func systemMemoryThroughUdmabuf() throws { try check(.udmabuf) }
    @Test func aSystemHeapBuffer() throws { try check(.dmaHeap) }
}
