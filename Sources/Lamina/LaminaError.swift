import LaminaProtocol

/// What can go wrong talking to laminad.
public enum LaminaError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The socket could not be reached (no daemon, wrong path, permissions).
    case connectionFailed(String)
    /// The connection ended; requests still waiting fail with this.
    case connectionClosed(String)
    /// laminad refused something: a commit (with the offending operation), a request, the hello.
    case server(ErrorMessage)
    /// laminad sent something this library does not understand.
    case protocolViolation(String)
    /// A value the client library refuses before sending anything (an image of the wrong size).
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .connectionFailed(let s): "connection failed: \(s)"
        case .connectionClosed(let s): "connection closed: \(s)"
        case .server(let e): "laminad: \(e)"
        case .protocolViolation(let s): "protocol violation: \(s)"
        case .invalidArgument(let s): "invalid argument: \(s)"
        }
    }

    /// The server's error, when this is one.
    public var serverError: ErrorMessage? {
        if case .server(let e) = self { return e }
        return nil
    }
}
