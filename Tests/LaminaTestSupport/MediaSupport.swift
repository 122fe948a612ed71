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

    /// A TCP socket on 127.0.0.1 that listens and never accepts: the kernel completes each
    /// connection, the request is sent, and nothing ever answers. Close the descriptor after.
    public static func silentServer() throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketFailure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw SocketFailure(description: "bind/listen on 127.0.0.1: errno \(code)")
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}
