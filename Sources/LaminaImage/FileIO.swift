import Glibc
import LaminaPlatform

/// Runs a system call again while it fails with EINTR (`retryingEINTR`, the one helper every
/// module uses); throws the call's name, the file and errno otherwise.
@inline(__always)
func retryingInterrupts<T: FixedWidthInteger>(
    _ call: String, path: String, _ body: () -> T
) throws(PNGError) -> T {
    do { return try retryingEINTR(call, body) } catch { throw .systemCallFailed(call: call, path: path, errno: error.errno) }
}

/// An open file descriptor that is closed when it goes out of scope.
struct OwnedFileDescriptor: ~Copyable {
    /// The descriptor, or -1 once closed.
    private(set) var raw: Int32
    let path: String

    /// Opens `path`. The corresponding C function is `open`.
    init(path: String, flags: Int32, mode: mode_t = 0) throws(PNGError) {
        raw = try retryingInterrupts("open", path: path) { open(path, flags | O_CLOEXEC, mode) }
        self.path = path
    }

    /// Reads the whole file. The corresponding C function is `read`.
    func readAll() throws(PNGError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = try retryingInterrupts("read", path: path) {
                chunk.withUnsafeMutableBytes { read(raw, $0.baseAddress, $0.count) }
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes all of `bytes`, continuing after short writes. The corresponding C function is `write`.
    func writeAll(_ bytes: [UInt8]) throws(PNGError) {
        var offset = 0
        while offset < bytes.count {
            offset += try retryingInterrupts("write", path: path) {
                bytes.withUnsafeBytes { buffer in
                    write(raw, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                }
            }
        }
    }

    /// Closes the descriptor and reports a failure, which matters after writing (a full disk or
    /// a network file system may only say so here). The corresponding C function is `close`.
    mutating func close() throws(PNGError) {
        let fd = raw
        raw = -1
        // Retrying close after EINTR could close a descriptor another thread has just opened.
        guard Glibc.close(fd) != 0 else { return }
        let code = errno
        if code != EINTR { throw .systemCallFailed(call: "close", path: path, errno: code) }
    }

    deinit {
        if raw >= 0 { _ = Glibc.close(raw) }
    }
}
