import Glibc
import LaminaPlatform
import Testing

/// laminad's listening socket and a client's connection, and images' memory files passed
/// with SCM_RIGHTS, on real sockets in a private folder.
@Suite("Unix sockets")
struct UnixSocketTests {
    /// A new private folder under /tmp, removed (with what is in it) by `cleanUp`.
    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/lamina-platform-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw SystemError("mkdtemp", errno: errno) }
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    static func cleanUp(_ directory: String) {
        for name in (try? Files.list(directory)) ?? [] { Files.remove(directory + "/" + name) }
        rmdir(directory)
    }

    /// A connected pair through `UnixSocket`: (client, server side).
    static func connectedPair(in directory: String) throws -> (FileDescriptor, FileDescriptor) {
        let listener = try UnixSocket.listen(path: directory + "/s.sock")
        let client = try UnixSocket.connect(path: directory + "/s.sock")
        let server = try #require(try UnixSocket.accept(listener))
        return (client, server)
    }

    @Test func listenConnectAndAccept() throws {
        let directory = try Self.temporaryDirectory()
        defer { Self.cleanUp(directory) }
        let path = directory + "/lamina.sock"
        let listener = try UnixSocket.listen(path: path)
        #expect(try UnixSocket.accept(listener) == nil, "nothing is waiting yet")
        let client = try UnixSocket.connect(path: path)
        let server = try #require(try UnixSocket.accept(listener))
        try client.writeAll(Array("hello".utf8))
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = try buffer.withUnsafeMutableBytes { p in try server.read(into: p) }
        #expect(n == 5 && Array(buffer.prefix(5)) == Array("hello".utf8))
        // The server's side is non-blocking: nothing more to read is nil, not a wait.
        #expect(try buffer.withUnsafeMutableBytes { p in try server.read(into: p) } == nil)
        let peer = try #require(UnixSocket.peerCredentials(server))
        #expect(peer.pid == getpid() && peer.uid == getuid() && peer.gid == getgid())
        #expect(Files.exists(path) && !Files.exists(path + ".\(getpid())"), "no staging name left behind")
    }

    /// A live server keeps its socket; a file left by one that is gone is replaced.
    @Test func aLiveServerKeepsItsPathAStaleFileIsReplaced() throws {
        let directory = try Self.temporaryDirectory()
        defer { Self.cleanUp(directory) }
        let path = directory + "/lamina.sock"
        let first = try UnixSocket.listen(path: path)
        #expect(throws: SystemError("bind \(path) (a server is already listening)", errno: EADDRINUSE)) {
            try UnixSocket.listen(path: path)
        }
        first.close()
        #expect(Files.exists(path), "closing leaves the file")
        let second = try UnixSocket.listen(path: path)
        _ = try UnixSocket.connect(path: path)
        #expect(try UnixSocket.accept(second) != nil)
    }

    @Test func pathsTooLongOrMissingAreNamed() throws {
        let long = "/tmp/" + String(repeating: "x", count: UnixSocket.maxPathLength)
        #expect(throws: SystemError("socket path '\(long)'", errno: ENAMETOOLONG)) { try UnixSocket.connect(path: long) }
        #expect(throws: SystemError("socket path '\(long)'", errno: ENAMETOOLONG)) { try UnixSocket.listen(path: long) }
        let missing = "/nonexistent/lamina.sock"
        #expect(throws: SystemError("connect \(missing)", errno: ENOENT)) { try UnixSocket.connect(path: missing) }
    }

    /// Two sealed memory files ride on one byte, arrive in order and close-on-exec, and map
    /// the client's pages: later writes show through the server's read-only mapping.
    @Test func memoryFilesTravelWithTheirBytes() throws {
        let directory = try Self.temporaryDirectory()
        defer { Self.cleanUp(directory) }
        let (client, server) = try Self.connectedPair(in: directory)
        let first = try SharedMemoryFile(name: "first", byteCount: 4096)
        let second = try SharedMemoryFile(name: "second", byteCount: 8192)
        first.base.storeBytes(of: 0xA1, as: UInt8.self)
        second.base.storeBytes(of: 0xB2, as: UInt8.self)
        let sent = try [UInt8]([7, 8, 9]).withUnsafeBytes { p in
            try UnixSocket.send(client.rawValue, bytes: p, descriptors: [first.fd.rawValue, second.fd.rawValue])
        }
        #expect(sent == 3)
        var buffer = [UInt8](repeating: 0, count: 16)
        let received = try #require(try buffer.withUnsafeMutableBytes { p in try UnixSocket.receive(server, into: p) })
        #expect(received.count == 3 && Array(buffer.prefix(3)) == [7, 8, 9])
        #expect(received.descriptors.count == 2 && !received.truncated)
        for fd in received.descriptors { #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0) }
        var mapped: [ReadOnlyMapping] = []
        for fd in received.descriptors { mapped.append(try ReadOnlyMapping(closing: fd)) }
        #expect(mapped.map(\.byteCount) == [4096, 8192])
        #expect(mapped[0].base.load(as: UInt8.self) == 0xA1 && mapped[1].base.load(as: UInt8.self) == 0xB2)
        first.base.storeBytes(of: 0xC3, toByteOffset: 100, as: UInt8.self)
        #expect(mapped[0].base.load(fromByteOffset: 100, as: UInt8.self) == 0xC3, "the same pages, not a copy")
    }

    /// laminad maps only memfds sealed against shrinking: anything else is refused with a
    /// sentence (and the descriptor closed, as it is on success).
    @Test func unsealedFilesAndOtherDescriptorsAreRefused() throws {
        let unsealed = try SharedMemoryFile(name: "unsealed", byteCount: 4096, sealed: false)
        let (socket, peer) = try EventLoopTests.socketPair()
        for (fd, expected) in [
            (dup(unsealed.fd.rawValue), "the memory file is not sealed against shrinking (add F_SEAL_SHRINK)"),
            (socket.release(), "the descriptor is not a memory file (not a regular file)"),
        ] {
            do throws(SharedMemoryError) {
                _ = try ReadOnlyMapping(closing: fd)
                Issue.record("mapped: \(expected)")
            } catch {
                #expect(error.description == expected)
            }
        }
        withExtendedLifetime(peer) {}
    }

    @Test func moreDescriptorsThanTheKernelCarriesAreRefusedBeforeSending() throws {
        let directory = try Self.temporaryDirectory()
        defer { Self.cleanUp(directory) }
        let (client, server) = try Self.connectedPair(in: directory)
        let many = [Int32](repeating: client.rawValue, count: UnixSocket.maxDescriptorsPerMessage + 1)
        #expect(throws: SystemError("sendmsg (more than 253 descriptors)", errno: EINVAL)) {
            try [UInt8]([1]).withUnsafeBytes { p in try UnixSocket.send(client.rawValue, bytes: p, descriptors: many) }
        }
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(try buffer.withUnsafeMutableBytes { p in try UnixSocket.receive(server, into: p) } == nil, "nothing was sent")
    }
}

/// The one error type for system calls, and the helper every module calls them through.
@Suite("system errors")
struct SystemErrorTests {
    @Test func interruptedCallsAreRetriedOthersThrowTheirErrno() throws {
        var attempts = 0
        let result = try retryingEINTR("fake") { () -> Int32 in
            attempts += 1
            if attempts < 3 {
                errno = EINTR
                return -1
            }
            return 42
        }
        #expect(result == 42 && attempts == 3)
        attempts = 0
        #expect(throws: SystemError("fake", errno: EBADF)) {
            try retryingEINTR("fake") { () -> Int in
                attempts += 1
                errno = EBADF
                return -1
            }
        }
        #expect(attempts == 1, "only EINTR is retried")
        // Only -1 is a failure: other negative results are values.
        #expect(try retryingEINTR("fake") { () -> Int32 in -2 } == -2)
    }

    @Test func descriptionsNameTheCallAndTheErrno() {
        #expect(SystemError("connect /run/lamina.sock", errno: ENOENT).description
                == "connect /run/lamina.sock: No such file or directory (errno 2)")
        #expect(SystemError("drmModeAtomicCommit", errno: 0).description == "drmModeAtomicCommit failed")
    }

    /// `Files`, which the session journal is kept with: whole files, written so that a crash
    /// leaves the old one or the new one.
    @Test func wholeFilesAreReadWithinALimitAndReplacedAtomically() throws {
        let directory = try UnixSocketTests.temporaryDirectory()
        defer { UnixSocketTests.cleanUp(directory) }
        let path = directory + "/journal"
        try Files.writeAtomically(path, [1, 2, 3])
        try Files.writeAtomically(path, [4, 5, 6, 7])
        #expect(try Files.read(path, limit: 4) == [4, 5, 6, 7])
        #expect(try Files.list(directory) == ["journal"], "no staging file left")
        #expect(throws: SystemError("read \(path) (4 bytes, over 3)", errno: EFBIG)) { try Files.read(path, limit: 3) }
        #expect(throws: SystemError("read \(directory) (not a regular file)", errno: EINVAL)) { try Files.read(directory, limit: 10) }
        #expect(throws: SystemError("open \(directory)/none", errno: ENOENT)) { try Files.read(directory + "/none", limit: 10) }
    }
}
