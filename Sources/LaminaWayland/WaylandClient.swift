import CWlroots

/// One connected Wayland client: who it is, and what it holds against its limits.
final class WaylandClient {
    let client: OpaquePointer
    let pid: Int32
    let uid: UInt32
    /// Fires when libwayland destroys the client (it left, or was dropped).
    var destroyed: Listener!
    /// Why laminad dropped it, for the log line when it goes.
    var dropReason: String?
    /// Its connection is ending (libwayland destroys its objects next): windows going now
    /// went because it exited, crashed or was dropped.
    var isGoing = false
    /// Its `wl_surface`s now.
    var surfaces = 0

    init(client: OpaquePointer, pid: Int32, uid: UInt32) {
        self.client = client
        self.pid = pid
        self.uid = uid
    }
}
