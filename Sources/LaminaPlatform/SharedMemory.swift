#if canImport(Glibc)
import Glibc
import CLinux
#elseif canImport(Musl)
import Musl
#endif

/// A memory file (memfd) mapped read-only: the server's view of a client's image pixels.
///
/// The descriptor must be sealed against shrinking (`F_SEAL_SHRINK`), so the client cannot cut
/// the file under the mapping (reading past the end of a shrunk file would raise SIGBUS in the
/// server). The mapping lives until the object goes; the descriptor is closed at once.
public final class ReadOnlyMapping: @unchecked Sendable {
    /// The whole file, mapped `PROT_READ`, `MAP_SHARED`: the client's later writes show here.
    public let base: UnsafeRawPointer
    /// The file's size in bytes (fstat), the mapping's length.
    public let byteCount: Int

    /// Maps `fd` (which it closes, whatever happens). Throws a sentence naming what was wrong.
    public init(closing fd: Int32) throws(SharedMemoryError) {
        defer { _ = Glibc.close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw SharedMemoryError("fstat failed: \(String(cString: strerror(errno)))") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw SharedMemoryError("the descriptor is not a memory file (not a regular file)") }
        switch CLinux_is_sealed_against_shrinking(fd) {
        case 1: break
        case 0: throw SharedMemoryError("the memory file is not sealed against shrinking (add F_SEAL_SHRINK)")
        default: throw SharedMemoryError("the descriptor is not a memfd that can be sealed (F_GET_SEALS: \(String(cString: strerror(errno))))")
        }
        let size = Int(st.st_size)
        guard size > 0 else { throw SharedMemoryError("the memory file is empty") }
        guard let p = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw SharedMemoryError("mmap of \(size) bytes failed: \(String(cString: strerror(errno)))")
        }
        base = UnsafeRawPointer(p)
        byteCount = size
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), byteCount) }
}

/// Why a received descriptor cannot be used as image memory.
public struct SharedMemoryError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A client's writable memory file: created, sized and sealed (shrink, grow, seal), mapped
/// read-write. Its descriptor is what goes to laminad with `UnixSocket.send(_:bytes:descriptors:)`.
public final class SharedMemoryFile: @unchecked Sendable {
    public let fd: FileDescriptor
    public let base: UnsafeMutableRawPointer
    public let byteCount: Int

    /// `sealed` false leaves the file unsealed (for tests of laminad's refusal).
    public init(name: String, byteCount: Int, sealed: Bool = true) throws(SystemError) {
        precondition(byteCount > 0)
        let raw = CLinux_memfd_create(name)
        guard raw >= 0 else { throw SystemError("memfd_create", errno: errno) }
        let fd = FileDescriptor(owning: raw)
        try retryingEINTR("ftruncate") { ftruncate(raw, off_t(byteCount)) }
        guard !sealed || CLinux_memfd_seal(raw) == 0 else { throw SystemError("fcntl(F_ADD_SEALS)", errno: errno) }
        guard let p = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, raw, 0), p != MAP_FAILED else {
            throw SystemError("mmap", errno: errno)
        }
        self.fd = fd
        base = p
        self.byteCount = byteCount
    }

    deinit { munmap(base, byteCount) }
}

extension UnixSocket {
    /// The most descriptors one `send` carries (the kernel's SCM_MAX_FD is 253).
    public static let maxDescriptorsPerMessage = 253

    /// Sends what the kernel takes now of `bytes`, with `descriptors` attached (SCM_RIGHTS) to
    /// the first byte. Returns the count written (0 when it would block). The caller sends the
    /// rest, without the descriptors, with `FileDescriptor.write`.
    public static func send(_ fd: Int32, bytes: UnsafeRawBufferPointer, descriptors: [Int32]) throws(SystemError) -> Int {
        guard descriptors.count <= maxDescriptorsPerMessage else { throw SystemError("sendmsg (more than \(maxDescriptorsPerMessage) descriptors)", errno: EINVAL) }
        while true {
            let n = descriptors.withUnsafeBufferPointer { d in
                CLinux_send_with_fds(fd, bytes.baseAddress, UInt(bytes.count), d.baseAddress, Int32(d.count))
            }
            if n >= 0 { return n }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return 0 }
            throw SystemError("sendmsg", errno: e)
        }
    }

    /// Reads what is available, up to `buffer.count` bytes, and the descriptors that came with
    /// them (received close-on-exec; the caller owns them). Returns nil when the call would
    /// block, a count of 0 at end of file. `truncated` says the kernel had more descriptors
    /// than fit and closed the rest.
    public static func receive(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer)
        throws(SystemError) -> (count: Int, descriptors: [Int32], truncated: Bool)? {
        var fds = [Int32](repeating: -1, count: maxDescriptorsPerMessage)
        var nfds: Int32 = 0, truncated: Int32 = 0
        while true {
            let n = fds.withUnsafeMutableBufferPointer { f in
                CLinux_recv_with_fds(fd.rawValue, buffer.baseAddress, UInt(buffer.count), f.baseAddress, Int32(f.count), &nfds, &truncated)
            }
            if n >= 0 { return (n, Array(fds[0..<Int(nfds)]), truncated != 0) }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return nil }
            throw SystemError("recvmsg", errno: e)
        }
    }
}
