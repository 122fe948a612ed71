import Testing
import LaminaTestSupport
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// Hosted app windows (Apps/CompositorApps.swift) without Wayland: an app session whose window
/// layer is a red 100 × 50 layer, told to the compositor as window 5, and a managing client.
@Suite("App surfaces")
struct AppSurfaceTests {
    let red = Color(red: 1, green: 0, blue: 0, alpha: 1)

    func setUp() throws -> (h: CompositorHarness, manager: ClientID, apps: ClientID) {
        // Big commits applied at once (not staged over frames).
        let h = try CompositorHarness(headlessWidth: 200, height: 200) { $0.commitStepOperations = 100_000 }
        let apps = h.hello("wayland-kiosk", peer: .user(0))
        h.compositor.setAppSession(apps)
        // The window layer stays out of the session's root (managed mode).
        #expect(h.commit(apps, [.create(LayerID(5)), .set(LayerID(5), .bounds, .rect(Rect(x: 0, y: 0, width: 100, height: 50))),
                                .set(LayerID(5), .position, .point(Point(x: 50, y: 25))),
                                .set(LayerID(5), .backgroundColor, .color(red))]) == .applied(serial: 1))
        h.compositor.appWindowAppeared(HostedWindow(id: 5, appID: "org.example.App", title: "Example", pid: 42, width: 100, height: 50))
        let manager = h.hello("shell")
        return (h, manager, apps)
    }

    func appEvents(_ h: CompositorHarness, _ c: ClientID) -> [AppSurfaceEvent] {
        h.take(c).compactMap { if case .appSurface(let e) = $0 { e } else { nil } }
    }

    /// A layer 200 × 100 at the top of the display showing window 5.
    func showWindow(_ h: CompositorHarness, _ manager: ClientID, extra: [Operation] = []) {
        let r = h.commit(manager, [.create(LayerID(1)), .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 200, height: 100))),
                                   .set(LayerID(1), .position, .point(Point(x: 100, y: 50))),
                                   .set(LayerID(1), .appSurface, .number(5)),
                                   .insert(parent: .root, child: LayerID(1), index: .max)] + extra)
        #expect(r == .applied(serial: 1))
    }

    @Test func managingHearsOfWindowsAndSizesThemByTheLayer() throws {
        let (h, manager, _) = try setUp()
        h.feed(manager, .request(id: 3, .manageApps(.manage)))
        #expect(h.appsManagedCalls == [true])
        let events = appEvents(h, manager)
        #expect(events.map(\.kind) == [.appeared] && events.first?.id == 5 && events.first?.appID == "org.example.App")
        #expect(events.first?.pid == 42 && events.first?.width == 100 && events.first?.height == 50)
        showWindow(h, manager)
        #expect(h.appSizes.last == [5: Size(width: 200, height: 100)])
        // The window shows in the layer, stretched to its bounds (contentsGravity resize).
        let shot = try h.screenshot(manager)
        #expect(shot.pixel(x: 190, y: 90) == (255, 0, 0, 255) && shot.pixel(x: 100, y: 150) == (0, 0, 0, 255))
        #expect(h.compositor.appWindowsShown == [5])
        // The bounds change: the app is configured again; appSizing app: it is not.
        _ = h.commit(manager, [.set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 120, height: 60)))])
        #expect(h.appSizes.last == [5: Size(width: 120, height: 60)])
        let count = h.appSizes.count
        _ = h.commit(manager, [.set(LayerID(1), .appSizing, .string("app")), .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 90, height: 90)))])
        #expect(h.appSizes.count == count)
        // Changes and the end are told; a gone window clears where appExitContents says so.
        h.compositor.appWindowChanged(HostedWindow(id: 5, appID: "org.example.App", title: "Renamed", pid: 42, width: 100, height: 50))
        #expect(appEvents(h, manager).map(\.title) == ["Renamed"])
        _ = h.commit(manager, [.set(LayerID(1), .appExitContents, .string("clear"))])
        h.compositor.appWindowGone(5, reason: .exited)
        let gone = appEvents(h, manager)
        #expect(gone.map(\.kind) == [.gone] && gone.first?.reason == .exited)
        #expect(try h.screenshot(manager).pixel(x: 45, y: 45) == (0, 0, 0, 255))
        // The manager leaves: kiosk mode again.
        h.compositor.disconnected(manager)
        #expect(h.appsManagedCalls == [true, false])
    }

    @Test func inputOnTheLayerGoesToTheAppInItsPoints() throws {
        let (h, manager, _) = try setUp()
        h.feed(manager, .request(id: 3, .manageApps(.manage)))
        // And a button of the manager's own below it.
        showWindow(h, manager, extra: [.create(LayerID(2)), .set(LayerID(2), .bounds, .rect(Rect(x: 0, y: 0, width: 200, height: 100))),
                                       .set(LayerID(2), .position, .point(Point(x: 100, y: 150))),
                                       .insert(parent: .root, child: LayerID(2), index: .max)])
        _ = try h.screenshot(manager)
        _ = h.take(manager)
        // (100, 50) on the display is (100, 50) in the 200 × 100 layer: (50, 25) in the window.
        h.compositor.handleInput(.touchDown(id: 3, at: Point(x: 100, y: 50)), origin: .injected)
        h.compositor.handleInput(.touchMotion(id: 3, to: Point(x: 150, y: 80)), origin: .injected)
        h.compositor.handleInput(.touchUp(id: 3), origin: .injected)
        let touches = h.appInputs.filter { $0.kind != .focusIn }
        #expect(touches.map(\.kind) == [.touchDown, .touchMove, .touchUp])
        #expect(touches[0].app == 5 && touches[0].id == 3 && touches[0].location == Point(x: 50, y: 25))
        #expect(touches[1].location == Point(x: 75, y: 40))
        #expect(h.appInputs.first?.kind == .focusIn, "a touch gives the window the keyboard")
        #expect(!h.take(manager).contains { if case .input(let e) = $0 { !e.kind.isKeyboard } else { false } },
                "the manager gets no pointer or touch events for the app's layer")
        // Keys go to the app with the keyboard; a touch on another layer takes it back.
        h.appInputs = []
        h.compositor.handleInput(.key(code: 30, pressed: true, keysym: 0x61, name: "a", text: "a"), origin: .injected)
        #expect(h.appInputs == [AppInput(app: 5, kind: .keyPress, id: 30)])
        h.appInputs = []
        h.compositor.handleInput(.touchDown(id: 4, at: Point(x: 100, y: 150)), origin: .injected)
        #expect(h.appInputs.map(\.kind) == [.focusOut])
        #expect(h.take(manager).contains { if case .input(let e) = $0 { e.kind == .touchDown && e.layer == LayerID(2) } else { false } })
    }

    @Test func onlyManagersShowWindowsAndRequestsAreChecked() throws {
        let (h, manager, _) = try setUp()
        // Not managing: the layer shows nothing, input goes to the client as usual.
        showWindow(h, manager)
        #expect(try h.screenshot(manager).pixel(x: 100, y: 50) == (0, 0, 0, 255))
        h.compositor.handleInput(.touchDown(id: 1, at: Point(x: 100, y: 50)), origin: .injected)
        #expect(h.appInputs.isEmpty)
        // Focus and close need managing; an unprivileged client may not manage.
        h.feed(manager, .request(id: 4, .manageApps(.close(app: 5))))
        #expect(h.take(manager).contains { if case .error(let e) = $0 { e.message.contains("manage apps first") } else { false } })
        let stranger = h.hello("stranger", peer: .user(1000))
        h.feed(stranger, .request(id: 5, .manageApps(.manage)))
        #expect(h.take(stranger).contains { if case .error(let e) = $0 { e.code == .permissionDenied } else { false } })
        h.feed(manager, .request(id: 6, .manageApps(.manage)))
        h.feed(manager, .request(id: 7, .manageApps(.close(app: 5))))
        #expect(h.appsClosed == [5])
        h.feed(manager, .request(id: 8, .manageApps(.focus(app: 99))))
        #expect(h.take(manager).contains { if case .error(let e) = $0 { e.message.contains("no app window 99") } else { false } })
    }

    /// A managing client showing one window in 2,000 layers: each draws the window's subtree,
    /// and the frame stops at the per-frame draw budget as nested replicators do (logged,
    /// counted), nobody else's layers harmed.
    @Test func manyLayersShowingAWindowStayWithinTheDrawBudget() throws {
        let (h, manager, apps) = try setUp()
        // The window with 60 sublayers of its own: each showing draws 61 layers.
        var ops: [Operation] = []
        for i in 0..<60 {
            let id = LayerID(UInt32(100 + i))
            ops += [.create(id), .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: 2, height: 2))), .insert(parent: LayerID(5), child: id, index: .max)]
        }
        #expect(h.commit(apps, ops, serial: 2) == .applied(serial: 2))
        h.feed(manager, .request(id: 3, .manageApps(.manage)))
        ops = []
        for i in 0..<2000 {
            let id = LayerID(UInt32(1 + i))
            ops += [.create(id), .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: 20, height: 10))),
                    .set(id, .position, .point(Point(x: 10, y: 5))), .set(id, .appSurface, .number(5)),
                    .insert(parent: .root, child: id, index: .max)]
        }
        #expect(h.commit(manager, ops) == .applied(serial: 1))
        let other = h.hello("other")
        _ = h.commit(other, [.create(LayerID(1)), .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 50, height: 50))),
                             .set(LayerID(1), .position, .point(Point(x: 150, y: 150))), .set(LayerID(1), .backgroundColor, .color(red)),
                             .insert(parent: .root, child: LayerID(1), index: .max)])
        let shot = try h.screenshot(other)
        #expect(h.compositor.stats.truncatedFrames > 0, "the manager's frame was cut at the budget")
        #expect(shot.pixel(x: 150, y: 150) == (255, 0, 0, 255), "the other client's layer is drawn")
    }
}
