import LaminaCore
import LaminaProtocol

/// An app window laminad hosts (a Wayland toplevel), as the compositor knows it: who it is, its
/// size, and whether it is gone. Its pixels are layers of the app session's tree (`HostedApps`):
/// a window layer numbered `id`, holding a layer per surface of the window.
public struct HostedWindow: Sendable, Equatable {
    public var id: UInt32
    public var appID: String
    public var title: String
    public var pid: Int32
    /// The window's size in points (its xdg geometry): its layer's bounds.
    public var width: Int
    public var height: Int
    /// The most gone windows whose last frames the host keeps (the oldest go first).
    public static let keptGoneLimit = 4
    /// Why it went; nil while it is up. A gone window's layers may stay, showing its last frame
    /// where a layer keeps it (`appExitContents`).
    public var gone: AppSurfaceEvent.GoneReason?

    public init(id: UInt32, appID: String, title: String, pid: Int32, width: Int, height: Int) {
        self.id = id
        self.appID = appID
        self.title = title
        self.pid = pid
        self.width = width
        self.height = height
    }

    func event(_ kind: AppSurfaceEvent.Kind) -> AppSurfaceEvent {
        func cut(_ s: String) -> String {
            guard s.utf8.count > AppSurfaceEvent.maximumNameBytes else { return s }
            var out = ""
            for c in s where out.utf8.count + String(c).utf8.count <= AppSurfaceEvent.maximumNameBytes { out.append(c) }
            return out
        }
        return AppSurfaceEvent(kind: kind, id: id, appID: cut(appID), title: cut(title), pid: pid,
                               width: UInt32(clamping: width), height: UInt32(clamping: height), reason: gone ?? .closed)
    }
}

/// An input event for an app window, in the window's own points (its geometry's top left is
/// 0, 0), routed by laminad's hit testing through the layer showing it.
public struct AppInput: Sendable, Equatable {
    public var app: UInt32
    public var kind: InputEvent.Kind
    /// The touch's number, the button's or key's code.
    public var id: Int32
    public var location: Point
    /// A scroll's amounts.
    public var delta: Point

    public init(app: UInt32, kind: InputEvent.Kind, id: Int32 = 0, location: Point = .zero, delta: Point = .zero) {
        self.app = app
        self.kind = kind
        self.id = id
        self.location = location
        self.delta = delta
    }
}

/// The compositor's record of hosted app windows and of the clients managing them.
struct HostedApps {
    /// The in-process session whose tree holds the windows' layers (laminad's Wayland host).
    var session: ClientID?
    var windows: [UInt32: HostedWindow] = [:]
    /// Clients managing apps (`manage-apps`), in the order they started.
    var managers: [ClientID] = []
    /// The sizes the host was last asked to give windows (`appSizing` `bounds`), in points.
    var sizes: [UInt32: Size] = [:]
    /// The window with the keyboard (a tap on it, or a `focus` request), if any.
    var focus: UInt32?
    /// Windows drawn in the last frame (the host paces the others' frame callbacks).
    var shown: Set<UInt32> = []


    /// Where a window of `window` points is drawn in a layer's bounds: placed by the layer's
    /// `contentsGravity` (`resize`, the default, fills the bounds), as contents of that size.
    static func destination(bounds: Rect, window: HostedWindow, gravity: ContentsGravity) -> Rect {
        DrawContents.layout(bounds: bounds, imageWidth: window.width, imageHeight: window.height,
                            contentsRect: Rect(x: 0, y: 0, width: 1, height: 1),
                            contentsCenter: Rect(x: 0, y: 0, width: 1, height: 1), gravity: gravity, scale: 1).destination
    }
}
