import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol
import LaminaTestSupport

/// Who may do what, decided by SO_PEERCRED (docs/protocol.md, "Authorisation"). The tests
/// run as root; the unprivileged peer is laminactl run as `nobody` through setpriv.
@Suite("Authorisation by peer credentials", .serialized)
@MainActor
struct AuthorisationTests {
    let setpriv = "/usr/bin/setpriv"

    /// Runs laminactl as uid/gid 65534 with no supplementary groups.
    func asNobody(_ daemon: DaemonProcess, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try ChildProcess.run(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", DaemonProcess.tool("laminactl")]
                             + arguments + ["--socket", daemon.socket])
    }

    func openDaemon() throws -> (DaemonProcess, String) {
        try #require(FileManager.default.isExecutableFile(atPath: setpriv), "setpriv (util-linux) runs the unprivileged peer")
        let config = NSTemporaryDirectory() + "lamina-auth-\(UUID().uuidString.prefix(8)).toml"
        // 0666 lets `nobody` connect at all; what it may do is then up to laminad.
        try "[socket]\nmode = \"0666\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(extra: ["--config", config])
        // nobody must reach the socket's folder and read scene files there.
        chmod(daemon.directory, 0o755)
        return (daemon, config)
    }

    @Test func unprivilegedPeersGetTheirOwnLayersOnly() async throws {
        let (daemon, config) = try openDaemon()
        defer { try? FileManager.default.removeItem(atPath: config) }
        // Root's client with a named layer, and a kept laminactl session made by root.
        let owner = try Connection.connect(to: daemon.socket, name: "owner")
        let secret = Layer()
        secret.name = "secret-layer"
        secret.frame = Rect(x: 0, y: 0, width: 10, height: 10)
        owner.rootLayer.addSublayer(secret)
        try await owner.sync()
        let scene = daemon.directory + "/scene.json"
        try ##"{"sublayers":[{"name":"nobody-layer","bounds":[0,0,20,20],"position":[50,50],"backgroundColor":"#00FF00"}]}"##
            .write(toFile: scene, atomically: true, encoding: .utf8)
        chmod(scene, 0o644)

        for (args, what) in [(["screenshot", daemon.directory + "/x.png"], "screenshot"), (["advance", "1"], "advance-clock"),
                             (["watch", "--count", "1"], "watch"), (["display", "off"], "display-power")] {
            let r = try asNobody(daemon, args)
            #expect(r.status != 0, "\(what) as nobody: \(r.output)")
            #expect(r.output.contains("privileged request"), "\(what): \(r.output)")
            #expect(r.output.contains("uid 65534"), "\(what): \(r.output)")
        }
        // Its own layers: applying a scene works, and its tree shows only its own session.
        let applied = try asNobody(daemon, ["apply", scene, "--session", "nobody-scene"])
        #expect(applied.status == 0, "\(applied.output)")
        let tree = try asNobody(daemon, ["tree"])
        #expect(tree.status == 0, "\(tree.output)")
        #expect(tree.output.contains("nobody-layer"))
        #expect(!tree.output.contains("secret-layer"), "another user's layers are not shown: \(tree.output)")
        let presentation = try asNobody(daemon, ["tree", "--presentation"])
        #expect(!presentation.output.contains("secret-layer"))
        // Root sees everything, and may take a screenshot.
        let rootTree = try daemon.laminactl(["tree"])
        #expect(rootTree.output.contains("secret-layer") && rootTree.output.contains("nobody-layer"))
        #expect(try daemon.laminactl(["screenshot", daemon.directory + "/root.png"]).status == 0)

        // Root's kept session cannot be taken over by nobody; nobody's own can be re-applied.
        #expect(try daemon.laminactl(["apply", scene, "--session", "root-scene"]).status == 0)
        let squat = try asNobody(daemon, ["apply", scene, "--session", "root-scene"])
        #expect(squat.status != 0)
        #expect(squat.output.contains("permission-denied") || squat.output.contains("may not adopt"), "\(squat.output)")
        #expect(try asNobody(daemon, ["apply", scene, "--session", "nobody-scene"]).status == 0)
        // A privileged peer may adopt any session (an administrator's laminactl).
        #expect(try daemon.laminactl(["apply", scene, "--session", "nobody-scene"]).status == 0)
    }

    /// The socket is 0660 by default, whatever laminad's umask.
    @Test func theSocketIsGroupOnlyByDefault() throws {
        let daemon = try DaemonProcess(launcher: ["/bin/sh", "-c", "umask 077; exec \"$0\" \"$@\""])
        let attributes = try FileManager.default.attributesOfItem(atPath: daemon.socket)
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
        #expect(mode == 0o660, "socket mode \(String(mode, radix: 8))")
    }
}
