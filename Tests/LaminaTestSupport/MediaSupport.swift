import Foundation
import Glibc

/// What the video tests need of the machine: GStreamer's elements, and a network source that
/// never answers. One copy for the decoder and the end-to-end tests.
public enum MediaSupport {
    /// Whether GStreamer has `element` (`gst-inspect-1.0` finds it).
    public static func hasElement(_ element: String) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gst-inspect-1.0")
        p.arguments = [element]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    public struct SocketFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// An HTTP server on 127.0.0.1 that answers every request with the first `sent` bytes of
    /// `body` and then sends nothing more, holding the connection open: a stream that stalls
    /// mid-way. The answer is HTTP/1.0 without a length or ranges, so the client cannot seek
    /// around the gap. `stop()` ends it (and the connections it holds).
    public final class StallingServer: @unchecked Sendable {
        public let port: UInt16
        private let fd: Int32
        private let thread: Thread

        public init(body: [UInt8], sent: Int) throws {
            let (fd, port) = try MediaSupport.listeningSocket(backlog: 16)
            self.fd = fd
            self.port = port
            let head = Array("HTTP/1.0 200 OK\r\nContent-Type: video/webm\r\nAccept-Ranges: none\r\n\r\n".utf8)
            let part = Array(body.prefix(max(0, sent)))
            thread = Thread {
                var held: [Int32] = []
                while true {
                    let client = accept(fd, nil, nil)
                    guard client >= 0 else { break }  // stop() shut the listener down
                    held.append(client)
                    // The request: read until its blank line (or the client stops sending).
                    var request: [UInt8] = []
                    var chunk = [UInt8](repeating: 0, count: 1024)
                    while !request.suffix(4).elementsEqual([13, 10, 13, 10]) {
                        let n = read(client, &chunk, chunk.count)
                        guard n > 0, request.count < 65536 else { break }
                        request += chunk.prefix(n)
                    }
                    for bytes in [head, part] {
                        var written = 0
                        while written < bytes.count {
                            let n = bytes.withUnsafeBytes { write(client, $0.baseAddress! + written, bytes.count - written) }
                            guard n > 0 else { break }
                            written += n
                        }
                    }
                }
                for c in held { close(c) }
            }
            thread.start()
        }

        public func stop() {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    /// A TCP socket on 127.0.0.1 that listens and never accepts: the kernel completes each
    /// connection, the request is sent, and nothing ever answers. Close the descriptor after.
    public static func silentServer() throws -> (fd: Int32, port: UInt16) {
        try listeningSocket(backlog: 16)
    }

    /// A TCP socket listening on 127.0.0.1 at a free port.
    static func listeningSocket(backlog: Int32) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketFailure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, backlog) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw SocketFailure(description: "bind/listen on 127.0.0.1: errno \(code)")
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}
