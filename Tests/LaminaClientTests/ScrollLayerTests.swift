import Lamina
import LaminaCore
import LaminaProtocol
import Testing

/// `CAScrollLayer` on the client: `scroll(to:)` limited by `scrollMode`, `scrollToRect:`'s least
/// movement, `scrollPoint:` and `scrollRectToVisible:` finding the nearest scroll layer above, and
/// `visibleRect`; and what a scroll layer puts on the wire.
@Suite("scroll layers")
@MainActor
struct ScrollLayerTests {
    /// A 100 × 50 scroll layer holding a 400 × 400 content layer with a 10 × 10 item at (200, 300).
    func list() -> (ScrollLayer, Layer, Layer) {
        let scroll = ScrollLayer()
        scroll.frame = Rect(x: 20, y: 20, width: 100, height: 50)
        let content = Layer()
        content.frame = Rect(x: 0, y: 0, width: 400, height: 400)
        let item = Layer()
        item.frame = Rect(x: 200, y: 300, width: 10, height: 10)
        content.addSublayer(item)
        scroll.addSublayer(content)
        return (scroll, content, item)
    }

    @Test func scrollToAPointMovesTheAxesTheModeAllows() {
        let (scroll, _, _) = list()
        #expect(scroll.scrollMode == .both && !scroll.scrollsOnTouch && !scroll.isPagingEnabled && scroll.scrollContentSize == .zero)
        scroll.scroll(to: Point(x: 30, y: 40))
        #expect(scroll.bounds == Rect(x: 30, y: 40, width: 100, height: 50))
        scroll.scrollMode = .vertically
        scroll.scroll(to: Point(x: 0, y: 0))
        #expect(scroll.bounds.origin == Point(x: 30, y: 0))
        scroll.scrollMode = .horizontally
        scroll.scroll(to: Point(x: 5, y: 99))
        #expect(scroll.bounds.origin == Point(x: 5, y: 0))
        scroll.scrollMode = .none
        scroll.scroll(to: Point(x: 50, y: 50))
        #expect(scroll.bounds.origin == Point(x: 5, y: 0))
        #expect(scroll.frame == Rect(x: 20, y: 20, width: 100, height: 50), "scrolling moves the sublayers, not the frame")
    }

    @Test func scrollToARectMovesAsLittleAsShowsIt() {
        let (scroll, _, _) = list()
        scroll.scroll(to: Rect(x: 10, y: 10, width: 20, height: 20))
        #expect(scroll.bounds.origin == .zero, "already in view")
        scroll.scroll(to: Rect(x: 150, y: 100, width: 20, height: 20))
        #expect(scroll.bounds.origin == Point(x: 70, y: 70), "its far edges meet the bounds' far edges")
        scroll.scroll(to: Rect(x: 10, y: 10, width: 20, height: 20))
        #expect(scroll.bounds.origin == Point(x: 10, y: 10), "its near edges meet the bounds' near edges")
        scroll.scroll(to: Rect(x: 0, y: 200, width: 300, height: 20))
        #expect(scroll.bounds.origin == Point(x: 0, y: 170), "longer than the bounds: its leading edge")
    }

    @Test func aSublayerScrollsItsNearestScrollLayer() {
        let (scroll, content, item) = list()
        item.scrollPoint(Point(x: 0, y: 0))
        #expect(scroll.bounds.origin == Point(x: 200, y: 300), "the item's origin at the scroll layer's origin")
        content.scrollRectToVisible(Rect(x: 0, y: 0, width: 10, height: 10))
        #expect(scroll.bounds.origin == .zero)
        item.scrollRectToVisible(item.bounds)
        #expect(scroll.bounds.origin == Point(x: 110, y: 260))
        // Outside any scroll layer nothing happens.
        let lone = Layer()
        lone.scrollPoint(Point(x: 5, y: 5))
        lone.scrollRectToVisible(Rect(x: 0, y: 0, width: 1, height: 1))
        #expect(lone.bounds == .zero)
    }

    @Test func visibleRectIsWhatTheScrollLayerShows() {
        let (scroll, content, item) = list()
        #expect(scroll.visibleRect == scroll.bounds, "no scroll layer above it: its bounds")
        #expect(content.visibleRect == Rect(x: 0, y: 0, width: 100, height: 50))
        #expect(item.visibleRect.size == .zero, "the item is out of view")
        scroll.scroll(to: Point(x: 205, y: 290))
        #expect(content.visibleRect == Rect(x: 205, y: 290, width: 100, height: 50))
        #expect(item.visibleRect == Rect(x: 5, y: 0, width: 5, height: 10), "partly in view")
    }

    @Test func aScrollLayerOnTheWire() throws {
        let server = try ScriptedLaminad()
        let c = try server.connect()
        defer { server.finish(c) }
        let scroll = ScrollLayer()
        scroll.bounds = Rect(x: 0, y: 0, width: 300, height: 400)
        scroll.scrollMode = .vertically
        scroll.scrollsOnTouch = true
        scroll.isPagingEnabled = true
        scroll.scrollContentSize = Size(width: 300, height: 4000)
        c.rootLayer.addSublayer(scroll)
        Transaction.flush()
        let ops = try server.nextCommit()
        #expect(ops.first == .create(LayerID(1), kind: .scroll))
        #expect(ops.contains(.set(LayerID(1), .scrollMode, .string("vertically"))))
        #expect(ops.contains(.set(LayerID(1), .scrollsOnTouch, .bool(true))))
        #expect(ops.contains(.set(LayerID(1), .pagingEnabled, .bool(true))))
        #expect(ops.contains(.set(LayerID(1), .scrollContentSize, .size(Size(width: 300, height: 4000)))))
        #expect(Layer.make(kind: .scroll) is ScrollLayer)
        // scroll(to:) is a change of bounds, animated as Core Animation animates it.
        scroll.scroll(to: Point(x: 0, y: 120))
        Transaction.flush()
        #expect(try server.nextCommit().contains(.set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 120, width: 300, height: 400)))))
    }
}
