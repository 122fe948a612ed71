/// What a `manage-apps` request (kind 16, protocol 1.7) asks: a privileged client manages the
/// Wayland apps laminad hosts. While one does, app windows are not shown full screen (kiosk
/// mode); they are shown where managing clients' layers show them (`appSurface`).
public enum AppsRequest: Hashable, Sendable {
    /// The client stops managing apps (as when it disconnects). Kiosk mode comes back when no
    /// client manages them.
    case stop
    /// The client manages apps: it gets an `app-surface` appeared event for every app window
    /// now and each one to come, a changed event when a title or size changes, a gone event
    /// when one goes.
    case manage
    /// Gives the keyboard to app window `app` (its keys go to it until a press lands elsewhere
    /// or another focus request); 0 takes it back to the client.
    case focus(app: UInt32)
    /// Asks app window `app` to close (`xdg_toplevel.close`): the app decides.
    case close(app: UInt32)

    public var opcode: UInt8 {
        switch self {
        case .stop: 0
        case .manage: 1
        case .focus: 2
        case .close: 3
        }
    }

    /// The app window named, 0 for none.
    public var app: UInt32 {
        switch self {
        case .stop, .manage: 0
        case let .focus(app), let .close(app): app
        }
    }
}

/// An `app-surface` message (0x8E, protocol 1.7): an app window laminad hosts appeared,
/// changed or went. Sent to clients managing apps.
public struct AppSurfaceEvent: Hashable, Sendable {
    public enum Kind: UInt8, Sendable, CustomStringConvertible {
        case appeared = 0, changed = 1, gone = 2
        public var description: String {
            switch self {
            case .appeared: "appeared"
            case .changed: "changed"
            case .gone: "gone"
            }
        }
    }

    /// Why a window went.
    public enum GoneReason: UInt8, Sendable, CustomStringConvertible {
        /// The app closed (unmapped or destroyed) the window and lives on.
        case closed = 0
        /// The app's connection ended with the window still up: it exited or crashed.
        case exited = 1
        /// laminad dropped the app (a protocol error or a limit).
        case dropped = 2
        public var description: String {
            switch self {
            case .closed: "closed"
            case .exited: "exited"
            case .dropped: "dropped"
            }
        }
    }

    public var kind: Kind
    /// laminad's number for the window: the value of `appSurface` that shows it.
    public var id: UInt32
    /// `xdg_toplevel.set_app_id` and `set_title`.
    public var appID: String
    public var title: String
    /// The app's process (0 when unknown).
    public var pid: Int32
    /// The window's size in points (its xdg geometry).
    public var width: UInt32
    public var height: UInt32
    /// For `gone`; `closed` otherwise.
    public var reason: GoneReason

    public init(kind: Kind, id: UInt32, appID: String, title: String, pid: Int32, width: UInt32, height: UInt32,
                reason: GoneReason = .closed) {
        self.kind = kind
        self.id = id
        self.appID = appID
        self.title = title
        self.pid = pid
        self.width = width
        self.height = height
        self.reason = reason
    }

    /// The longest app id or title sent (longer ones are cut at a character boundary).
    public static let maximumNameBytes = 4096
}

extension ByteWriter {
    mutating func appsRequest(_ r: AppsRequest) {
        u8(r.opcode)
        u32(r.app)
    }

    mutating func appSurfaceEvent(_ e: AppSurfaceEvent) {
        u8(e.kind.rawValue)
        u32(e.id)
        string(e.appID)
        string(e.title)
        i32(e.pid)
        u32(e.width)
        u32(e.height)
        u8(e.reason.rawValue)
    }
}

extension ByteReader {
    mutating func appsRequest() throws(DecodeError) -> Request {
        let op = try u8("manage-apps action")
        let app = try u32("manage-apps app")
        switch op {
        case 0: return .manageApps(.stop)
        case 1: return .manageApps(.manage)
        case 2: return .manageApps(.focus(app: app))
        case 3: return .manageApps(.close(app: app))
        default: throw DecodeError.invalid(field: "manage-apps action", reason: "unknown action \(op) (0 stop, 1 manage, 2 focus, 3 close)")
        }
    }

    mutating func appSurfaceEvent() throws(DecodeError) -> AppSurfaceEvent {
        let k = try u8("app-surface kind")
        guard let kind = AppSurfaceEvent.Kind(rawValue: k) else {
            throw DecodeError.invalid(field: "app-surface kind", reason: "unknown kind \(k)")
        }
        let id = try u32("app-surface id")
        let appID = try string("app-surface app id", limit: AppSurfaceEvent.maximumNameBytes)
        let title = try string("app-surface title", limit: AppSurfaceEvent.maximumNameBytes)
        let pid = try i32("app-surface pid")
        let w = try u32("app-surface width"), h = try u32("app-surface height")
        let r = try u8("app-surface reason")
        guard let reason = AppSurfaceEvent.GoneReason(rawValue: r) else {
            throw DecodeError.invalid(field: "app-surface reason", reason: "unknown reason \(r)")
        }
        return AppSurfaceEvent(kind: kind, id: id, appID: appID, title: title, pid: pid, width: w, height: h, reason: reason)
    }
}
