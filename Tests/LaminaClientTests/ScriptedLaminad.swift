import Glibc
import Lamina
import LaminaCore
import LaminaPlatform
import LaminaProtocol
import Synchronization
import Testing

/// A peer in laminad's place, with no compositor behind it: it takes one connection, answers
/// the hello with `welcome`, and then hands the test each message the client library sent,
/// decoded. It never answers, so what a test sees is exactly what the library put on the wire.
final class ScriptedLaminad {
    let directory: String
    let path: String
    let welcome: Welcome
    /// The hello the client sent.
    private(set) var hello: Hello?
    /// Descriptors that came with the messages read so far (SCM_RIGHTS); the test owns them.
    private(set) var receivedDescriptors: [Int32] = []
    private let listener: FileDescriptor
    private var peer: FileDescriptor?
    private var decoder = FrameDecoder(limit: 1 << 24)

    /// What the accepting thread hands over: the connection and the hello on it.
    private final class Handshake: Sendable {
        let result = Mutex<(fd: Int32, hello: Hello?)>((-1, nil))
    }

    init(welcome: Welcome = Welcome(clientID: 7, displayWidth: 640, displayHeight: 480, clock: .virtual, time: 100)) throws {
        var template = Array("/tmp/lamina-client-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { throw SystemError("mkdtemp", errno: errno) }
        directory = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        path = directory + "/lamina.sock"
        listener = try UnixSocket.listen(path: path)
        self.welcome = welcome
    }

    deinit {
        unlink(path)
        rmdir(directory)
    }

    /// Connects a client as an application does. `Connection.connect` blocks until the
    /// welcome, so a thread accepts and answers meanwhile.
    @MainActor
    func connect(name: String = "client-tests", session: String = "", keepLayers: Bool = false) throws -> Connection {
        let handshake = Handshake()
        let listening = listener.rawValue
        let reply = ServerMessage.welcome(welcome).encoded()
        try detachThread("scripted laminad") {
            var pfd = pollfd(fd: listening, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 10_000) == 1 else { return }
            let fd = accept(listening, nil, nil)
            guard fd >= 0 else { return }
            var decoder = FrameDecoder(limit: 1 << 16)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                if let frame = try? decoder.next() {
                    if case .hello(let hello)? = try? ClientMessage.decode(type: frame.type, body: frame.body) {
                        handshake.result.withLock { $0 = (fd, hello) }
                        _ = reply.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        return
                    }
                    break
                }
                let n = read(fd, &buffer, buffer.count)
                guard n > 0 else { break }
                decoder.append(Array(buffer[0..<n]))
            }
            close(fd)  // no hello: the client's connect fails rather than waits
        }
        let connection = try Connection.connect(to: path, name: name, session: session, keepLayers: keepLayers)
        let (fd, hello) = handshake.result.withLock { $0 }
        self.hello = hello
        peer = FileDescriptor(owning: fd)
        try peer?.setNonBlocking(true)
        return connection
    }

    /// A connection whose root holds one plain layer (number 1), already committed and read,
    /// so what the test reads next is its own changes alone.
    @MainActor
    func connectWithOneLayer() throws -> (Connection, Layer) {
        let connection = try connect()
        let layer = Layer()
        connection.rootLayer.addSublayer(layer)
        Transaction.flush()
        _ = try nextCommit()
        return (connection, layer)
    }

    /// The next whole message the client has sent, or nil when none is waiting.
    func nextMessage() throws -> ClientMessage? {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if let frame = try decoder.next() { return try ClientMessage.decode(type: frame.type, body: frame.body) }
            guard let peer, let received = try buffer.withUnsafeMutableBytes({ p in try UnixSocket.receive(peer, into: p) }),
                  received.count > 0 else { return nil }
            receivedDescriptors += received.descriptors
            decoder.append(Array(buffer[0..<received.count]))
        }
    }

    /// The operations of the next commit; fails the test if the next message is anything else.
    func nextCommit(sourceLocation: SourceLocation = #_sourceLocation) throws -> [Operation] {
        let message = try nextMessage()
        guard case .commit(let commit)? = message else {
            Issue.record("expected a commit, got \(message.map { "\($0)" } ?? "nothing")", sourceLocation: sourceLocation)
            return []
        }
        return commit.operations
    }

    /// Closes `connection` quietly: layers released afterwards cannot reach anyone.
    @MainActor
    func finish(_ connection: Connection) {
        connection.onError = { _ in }
        connection.close()
    }
}
