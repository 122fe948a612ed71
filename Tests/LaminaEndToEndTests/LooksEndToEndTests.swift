import Testing
import Lamina
import LaminaCore

/// Mask and gradient layers through the client library and a real laminad.
@Suite("laminad end to end: masks and gradients", .serialized)
@MainActor
struct LooksEndToEndTests {
    @Test func aClientMaskIsCreatedBeforeItIsSetAndMasksTheLayer() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "mask")
        // The layer and its mask are new in the same transaction; the mask is only ever
        // referred to by the `mask` property.
        let card = GradientLayer()
        card.frame = Rect(x: 20, y: 20, width: 100, height: 100)
        card.backgroundColor = .blue
        card.colors = [.red, .green]
        card.startPoint = Point(x: 0, y: 0.5)
        card.endPoint = Point(x: 1, y: 0.5)
        let circle = Layer()
        circle.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        circle.backgroundColor = .white
        circle.cornerRadius = 50
        card.mask = circle
        c.rootLayer.addSublayer(card)
        try await c.sync()
        var shot = try await c.screenshot()
        #expect(shot.pixel(x: 22, y: 22) == (0, 0, 0, 255))           // cut by the circle
        let middle = shot.pixel(x: 70, y: 70)
        #expect(middle.r > 100 && middle.g > 100 && middle.b == 0)     // the gradient, halfway
        // Taking the mask away shows the corner.
        card.mask = nil
        try await c.sync()
        shot = try await c.screenshot()
        #expect(shot.pixel(x: 22, y: 22).r > 200)
        // Set again: the same mask layer masks again.
        card.mask = circle
        try await c.sync()
        shot = try await c.screenshot()
        #expect(shot.pixel(x: 22, y: 22) == (0, 0, 0, 255))
        c.close()
    }
}
