import Lamina
let connection = try Connection.connect()
let box = Layer()
box.bounds = Rect(x: 0, y: 0, width: 100, height: 50)
box.position = Point(x: 200, y: 300)       // frame (150, 275, 100, 50)
box.backgroundColor = Color(hex: "#FF8800")
connection.rootLayer.addSublayer(box)      // committed with the implicit transaction
try await connection.sync()                // applied by laminad, or throws its error

box.opacity = 0                            // laminad fades it: 0.25 s, the default curve
var move = BasicAnimation(keyPath: "position.x", toValue: .number(400))
move.duration = 2
box.add(.basic(move), forKey: "slide")     // an explicit animation, run by laminad
let onScreen = try await box.presentation() // what laminad shows now
print("on screen at", onScreen.position)

let ring = ShapeLayer()                    // also GradientLayer, TextLayer, ReplicatorLayer, TransformLayer
ring.path = Path(ellipseIn: Rect(x: 0, y: 0, width: 80, height: 80))
ring.strokeColor = .white
ring.fillColor = nil
box.addSublayer(ring)
box.contents = try Image(contentsOfFile: "logo.png", connection: connection)  // shared memory, no copy over the socket
box.add(.transition(Transition(type: .push, subtype: .fromRight)), forKey: "transition")
box.actions = ["backgroundColor": .noAnimation]   // no implicit animation for this key (nil: keep searching)

// Input: laminad hit-tests what is on screen and sends each touch, click and key to the
// client that owns the layer (a touch stays with its layer until it ends).
box.onInput = { event in                   // also for sublayers without a handler of their own
    if event.kind == .touchUp { print("released at", event.location) }   // in box's coordinates
}
box.addGestureRecognizer(TapRecognizer { _ in box.backgroundColor = .red })   // also LongPressRecognizer, PanRecognizer
ring.isUserInteractionEnabled = false      // touches pass through the ring to the box
let hit = connection.rootLayer.hitTest(Point(x: 160, y: 290))   // the same rules, computed locally
let inBox = box.convert(Point(x: 160, y: 290), from: nil)       // display point → box's coordinates
print("hit", hit === box, "at", inBox)
try await connection.sync()
print("waiting for a key")
for await event in connection.inputEvents() where event.kind == .keyPress {
    print("key", event.text)
    break
}
