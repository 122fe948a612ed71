#if canImport(Glibc)
import Glibc
import CLinux
#endif
import Synchronization

/// Tells which of a set of files changed, through inotify watches on their directories.
///
/// Editors save by writing a new file and renaming it over the old one; a watch on the old
/// file's inode would see nothing after the first save. A directory watch sees every file
/// that is written and closed (`IN_CLOSE_WRITE`) or renamed into place (`IN_MOVED_TO`).
public final class FileWatcher: Sendable {
    private let fd: Int32
    private let state = Mutex(State())

    private struct State {
        /// Watch descriptor → canonical directory.
        var directories: [Int32: String] = [:]
        /// Canonical directory → (file name → the path as the caller gave it).
        var files: [String: [String: String]] = [:]
    }

    /// The corresponding C function is `inotify_init1`.
    public init() throws(SystemError) {
        fd = try retryingEINTR("inotify_init1") { inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)) }
    }

    deinit { close(fd) }

    /// The descriptor to wait on (readable when changes are waiting; see `readChanges`).
    public var descriptor: Int32 { fd }

    /// Watches exactly `paths` from now on. A directory that does not exist is an error naming it.
    public func watch(_ paths: [String]) throws(SystemError) {
        var wanted: [String: [String: String]] = [:]
        for path in paths {
            let (dir, name) = Self.split(path)
            guard let canonical = Self.realPath(dir) else { throw SystemError("realpath \(dir)", errno: errno) }
            wanted[canonical, default: [:]][name] = path
        }
        try state.withLock { (s: inout State) throws(SystemError) in
            for dir in wanted.keys where s.files[dir] == nil {
                let wd = try retryingEINTR("inotify_add_watch \(dir)") {
                    inotify_add_watch(fd, dir, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO))
                }
                s.directories[wd] = dir
            }
            for (wd, dir) in s.directories where wanted[dir] == nil {
                inotify_rm_watch(fd, wd)
                s.directories[wd] = nil
            }
            s.files = wanted
        }
    }

    /// Reads every event waiting (without blocking) and returns the watched paths they touched,
    /// as given to `watch`.
    public func readChanges() -> Set<String> {
        var changed: Set<String> = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            state.withLock { s in
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= n {
                    let (wd, len) = buffer.withUnsafeBytes { p in
                        (p.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                         Int(p.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                    }
                    let nameBytes = buffer[(offset + header)..<min(n, offset + header + len)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    if let dir = s.directories[wd], let path = s.files[dir]?[name] { changed.insert(path) }
                    offset += header + len
                }
            }
        }
        return changed
    }

    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let dir = String(path[..<slash])
        return (dir.isEmpty ? "/" : dir, String(path[path.index(after: slash)...]))
    }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}

/// SIGINT, SIGTERM and the like as bytes on a pipe, for a program that waits on descriptors
/// (`CLinux_signal_pipe`). One per process.
public final class SignalPipe: Sendable {
    /// Readable when a signal has come.
    public let descriptor: Int32

    public init(signals: [Int32]) throws(SystemError) {
        let fd = signals.withUnsafeBufferPointer { CLinux_signal_pipe($0.baseAddress, Int32($0.count)) }
        guard fd >= 0 else { throw SystemError("sigaction", errno: errno) }
        descriptor = fd
    }

    /// The signals that came since the last call.
    public func drain() -> [Int32] {
        var out: [Int32] = []
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1 { out.append(Int32(byte)) }
        return out
    }
}

/// Waits until one of `descriptors` is readable (or hung up); returns those that are.
/// The corresponding C function is `poll`.
public func waitReadable(_ descriptors: [Int32]) throws(SystemError) -> [Int32] {
    var fds = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    _ = try retryingEINTR("poll") { poll(&fds, nfds_t(fds.count), -1) }
    return fds.filter { $0.revents != 0 }.map(\.fd)
}
