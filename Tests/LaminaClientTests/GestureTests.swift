import Foundation
import Testing
@testable import Lamina
import LaminaCore
import LaminaProtocol

/// The recognisers' arithmetic and states, fed events by hand (no laminad): times are the
/// events' own, so every number is exact.
@Suite("gesture recognisers")
@MainActor
struct GestureTests {
    let layer: Layer = {
        let l = Layer()
        l.frame = Rect(x: 0, y: 0, width: 400, height: 400)
        return l
    }()

    func send(_ r: GestureRecognizer, _ kind: InputEvent.Kind, _ id: Int32, _ x: Double, _ y: Double, at time: Double) {
        let p = Point(x: x, y: y)
        r.handle(LayerInputEvent(event: InputEvent(kind: kind, layer: LayerID(5), id: id, location: p, screen: p, time: time), layer: layer))
    }

    @Test func pinchScaleAndVelocity() {
        var seen: [(GestureRecognizer.State, Double, Double)] = []
        let r = PinchRecognizer { seen.append(($0.state, $0.scale, $0.velocity)) }
        layer.addGestureRecognizer(r)
        send(r, .touchDown, 0, 100, 100, at: 0)
        send(r, .touchDown, 1, 200, 100, at: 0)
        send(r, .touchMove, 1, 205, 100, at: 0.1)      // 5 points: not yet a pinch
        #expect(seen.isEmpty)
        send(r, .touchMove, 1, 300, 100, at: 0.5)
        send(r, .touchMove, 0, 0, 100, at: 1)
        #expect(r.location == Point(x: 150, y: 100))
        send(r, .touchUp, 1, 300, 100, at: 1.5)
        send(r, .touchUp, 0, 0, 100, at: 1.5)
        #expect(seen.map(\.0) == [.began, .changed, .ended])
        #expect(seen[0].1 == 2 && seen[1].1 == 3 && seen[2].1 == 3)
        // 1.05 at 0.1 s, 2 at 0.5 s: 0.95 / 0.4; then 1 per 0.5 s.
        #expect(abs(seen[0].2 - 0.95 / 0.4) < 1e-12 && abs(seen[1].2 - 2) < 1e-12)
        #expect(r.state == .possible)
    }

    /// `scale = 1` makes later changes relative to now (the rate goes on); a removed
    /// recogniser leaves its layer.
    @Test func pinchScaleResetAndRemoval() {
        var seen: [(GestureRecognizer.State, Double, Double)] = []
        let r = PinchRecognizer { seen.append(($0.state, $0.scale, $0.velocity)) }
        layer.addGestureRecognizer(r)
        send(r, .touchDown, 0, 100, 100, at: 0)
        send(r, .touchDown, 1, 200, 100, at: 0)
        send(r, .touchMove, 1, 300, 100, at: 0.5)
        r.scale = 1
        send(r, .touchMove, 1, 400, 100, at: 1)
        #expect(seen.map(\.0) == [.began, .changed] && seen[1].1 == 1.5 && abs(seen[1].2 - 1) < 1e-12)
        #expect(r.numberOfTouches == 2 && r.screenLocation(ofTouch: 1) == Point(x: 400, y: 100))
        layer.removeGestureRecognizer(r)
        #expect(r.layer == nil && layer.gestureRecognizers.isEmpty)
    }

    @Test func rotationAngleBeyondAHalfTurn() {
        var seen: [(GestureRecognizer.State, Double, Double)] = []
        let r = RotationRecognizer { seen.append(($0.state, $0.rotation, $0.velocity)) }
        layer.addGestureRecognizer(r)
        send(r, .touchDown, 0, 200, 200, at: 0)
        send(r, .touchDown, 1, 300, 200, at: 0)
        send(r, .touchMove, 1, 200, 300, at: 0.5)      // a quarter turn clockwise on screen
        send(r, .touchMove, 1, 100, 200, at: 1)        // a half turn
        send(r, .touchMove, 1, 200, 100, at: 1.5)      // three quarters: past ±π, still growing
        send(r, .touchCancel, 1, 0, 0, at: 2)
        #expect(seen.map(\.0) == [.began, .changed, .changed, .cancelled])
        #expect(abs(seen[0].1 - .pi / 2) < 1e-12 && abs(seen[2].1 - 3 * .pi / 2) < 1e-12)
        #expect(abs(seen[1].2 - .pi) < 1e-12)
        #expect(abs(RotationRecognizer.turn(from: 3, to: -3) - (2 * .pi - 6)) < 1e-12)
    }

    @Test func swipeNeedsDistanceSpeedAndAPermittedDirection() {
        var seen: [(SwipeRecognizer.Direction, Point)] = []
        let r = SwipeRecognizer { seen.append(($0.direction, $0.velocity)) }
        layer.addGestureRecognizer(r)
        send(r, .touchDown, 0, 100, 100, at: 0)
        send(r, .touchMove, 0, 150, 105, at: 0.1)
        send(r, .touchUp, 0, 200, 110, at: 0.2)
        #expect(seen.count == 1 && seen[0].0 == .right)
        #expect(abs(seen[0].1.x - 500) < 1e-9 && abs(seen[0].1.y - 50) < 1e-9)
        // Too slow (100 points in 1 s), too short (40 points), then up but only left and right allowed.
        send(r, .touchDown, 0, 100, 100, at: 1)
        send(r, .touchUp, 0, 200, 100, at: 2)
        send(r, .touchDown, 0, 100, 100, at: 3)
        send(r, .touchUp, 0, 100, 60, at: 3.01)
        r.directions = [.left, .right]
        send(r, .touchDown, 0, 100, 300, at: 4)
        send(r, .touchUp, 0, 100, 100, at: 4.1)
        #expect(seen.count == 1)
        r.directions = [.up]
        send(r, .touchDown, 0, 100, 300, at: 5)
        send(r, .touchUp, 0, 100, 100, at: 5.1)
        #expect(seen.count == 2 && seen[1].0 == .up)
    }

    @Test func twoFingerPan() {
        var seen: [(GestureRecognizer.State, Point, Point)] = []
        let r = PanRecognizer { seen.append(($0.state, $0.translation, $0.velocity)) }
        r.minimumNumberOfTouches = 2
        r.maximumNumberOfTouches = 2
        layer.addGestureRecognizer(r)
        send(r, .touchDown, 0, 100, 100, at: 0)
        send(r, .touchMove, 0, 200, 100, at: 0.5)      // one finger: no pan
        #expect(seen.isEmpty)
        send(r, .touchDown, 1, 200, 200, at: 0.5)
        send(r, .touchMove, 0, 220, 100, at: 1)        // the centroid moves 10: not yet
        send(r, .touchMove, 1, 220, 200, at: 1)        // 20: a pan
        send(r, .touchDown, 2, 0, 0, at: 1.5)          // a third finger: too many, it ends
        #expect(seen.map(\.0) == [.began, .ended])
        #expect(seen[0].1 == Point(x: 20, y: 0) && seen[0].2 == Point(x: 40, y: 0))
        #expect(r.numberOfTouches == 3)
    }

    @Test func doubleTapBeatsSingleTapByTheFailureRequirement() {
        var singles: [Point] = [], doubles = 0
        let single = TapRecognizer { singles.append($0.location) }
        let double = TapRecognizer { _ in doubles += 1 }
        double.numberOfTapsRequired = 2
        single.require(toFail: double)
        layer.addGestureRecognizer(single)
        layer.addGestureRecognizer(double)
        func tap(_ x: Double, at t: Double) {
            for r in [single, double] { send(r, .touchDown, 0, x, 50, at: t) }
            for r in [double, single] { send(r, .touchUp, 0, x, 50, at: t + 0.05) }
        }
        tap(50, at: 0)
        tap(52, at: 0.2)
        #expect(doubles == 1 && singles.isEmpty)
        // A lone tap: the single tap waits for the double tap's interval, then fires.
        tap(60, at: 2)
        #expect(singles.isEmpty && single.isHeld)
        double.timePassed(2.4)
        #expect(doubles == 1 && singles == [Point(x: 60, y: 50)])
        // Two taps too far apart in time: two singles.
        tap(70, at: 4)
        tap(70, at: 4.5)       // the double tap's wait ended at this down (4.35)
        double.timePassed(5)
        #expect(doubles == 1 && singles.count == 3)
    }

    @Test func tapStatesAndLocationsInTheLayer() {
        let child = Layer()
        child.frame = Rect(x: 100, y: 100, width: 50, height: 50)
        child.transform = .scale(x: 2, y: 2)
        layer.addSublayer(child)
        var seen: [GestureRecognizer.State] = []
        let r = TapRecognizer { seen.append($0.state) }
        child.addGestureRecognizer(r)
        // An event for the parent (a touch that went down elsewhere) is converted into the child.
        let p = Point(x: 125, y: 125)
        r.handle(LayerInputEvent(event: InputEvent(kind: .touchDown, layer: LayerID(5), id: 3, location: p, screen: p, time: 0), layer: layer))
        #expect(r.location == Point(x: 25, y: 25) && r.location(ofTouch: 0) == Point(x: 25, y: 25))
        r.handle(LayerInputEvent(event: InputEvent(kind: .touchUp, layer: LayerID(5), id: 3, location: p, screen: Point(x: 135, y: 125), time: 0.1), layer: layer))
        #expect(seen == [.recognized] && r.location == Point(x: 30, y: 25))
    }
}

/// `hitTest`, `contains` and `convert` through a rotated, scaled layer with a bounds origin, an
/// anchor point and a sublayer transform: the numbers the Python (test_gestures.py) and C
/// (test_lamina.c) clients must give too.
@Suite("client geometry, the clients' shared reference")
@MainActor
struct GeometryReferenceTests {
    @Test func referenceNumbers() {
        let root = Layer(), parent = Layer(), child = Layer()
        root.bounds = Rect(x: 0, y: 0, width: 640, height: 480)
        root.position = Point(x: 320, y: 240)
        parent.bounds = Rect(x: 10, y: 20, width: 200, height: 100)
        parent.position = Point(x: 300, y: 200)
        parent.anchorPoint = Point(x: 0.25, y: 0.75)
        parent.transform = Transform3D.scale(x: 1.5, y: 1.5).concatenating(.rotation(angle: .pi / 6))
        parent.sublayerTransform = .scale(x: 0.8, y: 0.8)
        child.bounds = Rect(x: 0, y: 0, width: 60, height: 40)
        child.position = Point(x: 100, y: 70)
        child.transform = .rotation(angle: -.pi / 4)
        root.addSublayer(parent)
        parent.addSublayer(child)
        func near(_ a: Point, _ x: Double, _ y: Double) -> Bool { abs(a.x - x) < 1e-9 && abs(a.y - y) < 1e-9 }
        func near(_ r: Rect, _ v: [Double]) -> Bool {
            zip([r.minX, r.minY, r.width, r.height], v).allSatisfy { abs($0 - $1) < 1e-9 }
        }
        let centre = child.convert(Point(x: 30, y: 20), to: nil)
        #expect(near(centre, 356.56921938165306, 198.01923788646684))
        #expect(near(child.convert(centre, from: nil), 30, 20))
        #expect(root.hitTest(centre) === child)
        #expect(root.hitTest(Point(x: 300, y: 200)) === parent && root.hitTest(Point(x: 250, y: 150)) === parent)
        #expect(root.hitTest(Point(x: 400, y: 300)) === parent && root.hitTest(Point(x: 260, y: 190)) === parent)
        #expect(root.hitTest(Point(x: 600, y: 50)) === root && root.hitTest(Point(x: 700, y: 10)) == nil)
        #expect(near(child.convert(Point(x: 0, y: 0), to: nil), 315.5842325527861, 184.15450367921994))
        #expect(near(child.convert(Point(x: 60, y: 40), to: parent), 120.2842712474619, 69.34314575050763))
        #expect(near(child.convert(Rect(x: 0, y: 0, width: 60, height: 40), to: parent),
                     [63.715728752538084, 46.71572875253812, 56.56854249492382, 56.56854249492377]))
        #expect(near(child.convert(Rect(x: 250, y: 150, width: 20, height: 10), from: nil),
                     [-47.581548702419404, -41.63763802578108, 18.255589147338814, 12.363032637450914]))
        #expect(near(parent.convert(Point(x: 10, y: 20), to: child), 6.135146134954023, -101.09203627819626))
        #expect(parent.contains(Point(x: 10, y: 20)) && !parent.contains(Point(x: 210, y: 50)))
        #expect(parent.contains(Point(x: 209.9, y: 119.9)))
    }
}
