#if canImport(Glibc)
import Glibc
import CLinux
#elseif canImport(Musl)
import Musl
#endif

/// Small whole-file operations for state laminad keeps on disk (the session journal).
public enum Files {
    /// Reads a whole regular file of at most `limit` bytes.
    /// The corresponding C functions are `open`, `fstat` and `read`.
    public static func read(_ path: String, limit: Int) throws(SystemError) -> [UInt8] {
        let fd = try retryingEINTR("open \(path)") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { _ = close(fd) }
        var st = stat()
        try retryingEINTR("fstat \(path)") { fstat(fd, &st) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw SystemError("read \(path) (not a regular file)", errno: EINVAL) }
        guard st.st_size >= 0, Int(st.st_size) <= limit else { throw SystemError("read \(path) (\(st.st_size) bytes, over \(limit))", errno: EFBIG) }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var offset = 0
        while offset < bytes.count {
            let n = try retryingEINTR("read \(path)") {
                bytes.withUnsafeMutableBytes { p in Glibc.read(fd, p.baseAddress! + offset, p.count - offset) }
            }
            if n == 0 { break }
            offset += n
        }
        // A file that shrank while being read is short: the caller sees fewer bytes.
        return offset == bytes.count ? bytes : Array(bytes[0..<offset])
    }

    /// What making writes durable cost: `fsync` calls and the seconds they took.
    public struct SyncCost: Sendable, Equatable {
        public var calls = 0
        public var seconds = 0.0
        public init() {}
    }

    /// Replaces `path` with `bytes` so that a crash at any moment leaves either the old file or
    /// the new one whole: written to a temporary name beside it, flushed, renamed over it, and
    /// the directory flushed. The corresponding C functions are `open`, `write`, `fsync` and `rename`.
    public static func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws(SystemError) {
        var cost = SyncCost()
        try writeAtomically(path, bytes, mode: mode, sync: true, syncDirectory: true, cost: &cost)
    }

    /// `writeAtomically`, flushing the file (`sync`) and its directory (`syncDirectory`) only
    /// where asked: in memory (tmpfs, `isInMemory`) a rename is already all a crash of the
    /// process can see, and only a power cut loses it, with the whole file system. The fsyncs
    /// made are added to `cost`.
    public static func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600, sync: Bool, syncDirectory directory: Bool,
                                       cost: inout SyncCost) throws(SystemError) {
        let staging = path + ".new"
        let fd = try retryingEINTR("open \(staging)") { open(staging, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode) }
        var ok = false
        defer {
            _ = close(fd)
            if !ok { unlink(staging) }
        }
        var offset = 0
        while offset < bytes.count {
            let n = try retryingEINTR("write \(staging)") {
                bytes.withUnsafeBytes { p in Glibc.write(fd, p.baseAddress! + offset, p.count - offset) }
            }
            offset += n
        }
        if sync {
            let start = monotonicSeconds()
            defer { cost.calls += 1; cost.seconds += monotonicSeconds() - start }
            try retryingEINTR("fsync \(staging)") { fsync(fd) }
        }
        try retryingEINTR("rename \(staging)") { rename(staging, path) }
        ok = true
        if directory { syncDirectory(of: path, cost: &cost) }
    }

    /// Flushes the directory holding `path` (a rename in it is then durable); failures are ignored.
    public static func syncDirectory(of path: String) {
        var cost = SyncCost()
        syncDirectory(of: path, cost: &cost)
    }

    /// `syncDirectory(of:)`, adding the fsync to `cost`.
    public static func syncDirectory(of path: String, cost: inout SyncCost) {
        let dir = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let fd = open(dir.isEmpty ? "/" : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let start = monotonicSeconds()
        _ = fsync(fd)
        cost.calls += 1
        cost.seconds += monotonicSeconds() - start
        _ = close(fd)
    }

    /// Whether `path` lies on a file system kept in memory (tmpfs, ramfs: /run, /dev/shm), which
    /// a reboot empties and where fsync buys nothing. The corresponding C function is `statfs`.
    public static func isInMemory(_ path: String) -> Bool {
        var fs = statfs()
        guard statfs(path, &fs) == 0 else { return false }
        // TMPFS_MAGIC and RAMFS_MAGIC (linux/magic.h).
        return [0x0102_1994, 0x8584_58f6].contains(Int(fs.f_type))
    }

    /// The names in a directory (not `.` or `..`).
    public static func list(_ directory: String) throws(SystemError) -> [String] {
        guard let dir = opendir(directory) else { throw SystemError("opendir \(directory)", errno: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Makes a directory (mode 0700) unless it exists.
    public static func makeDirectory(_ path: String) throws(SystemError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw SystemError("mkdir \(path)", errno: errno) }
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    @discardableResult
    public static func remove(_ path: String) -> Bool { unlink(path) == 0 }
}
