// lamina-uinput: a multi-touch touchscreen made through /dev/uinput, for the KMS VM tests.
//
//   lamina-uinput [--name NAME] [--size N]
//
// Creates the device (ABS_MT slots, INPUT_PROP_DIRECT, axes 0…N−1 so a position p in 0…1 is
// sent as p·N and libinput reports exactly p), prints "uinput: ready NAME", then replays touches
// read from stdin, one a line, each followed by SYN_REPORT:
//
//   down SLOT X Y     a finger touches at X, Y (0…1 of the panel, from its top-left corner)
//   move SLOT X Y
//   up SLOT
//
// At the end of input it destroys the device (udev reports it removed) and exits.
#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Writes a line straight to the descriptor (unbuffered, so the guest script sees it at once).
func say(_ line: String, to fd: Int32 = 1) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    say("lamina-uinput: \(message)", to: 2)
    exit(1)
}

/// The device's name and axis size from the command line.
func options() -> (name: String, size: Int32) {
    var name = "Lamina Test Touchscreen"
    var size: Int32 = 10000
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
        switch argument {
        case "--name":
            guard let n = arguments.popFirst(), !n.isEmpty else { fail("--name needs a value") }
            name = n
        case "--size":
            guard let s = arguments.popFirst().flatMap({ Int32($0) }), s > 1, s <= 1 << 20 else { fail("--size needs a number 2…1048576") }
            size = s
        default: fail("unknown argument '\(argument)' (--name NAME, --size N)")
        }
    }
    return (name, size)
}

let (name, size) = options()
let slots: Int32 = 10
let fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
guard fd >= 0 else { fail("open /dev/uinput: \(String(cString: strerror(errno))) (is the uinput module loaded?)") }

func check(_ result: Int32, _ what: String) {
    if result < 0 { fail("\(what): \(String(cString: strerror(errno)))") }
}

check(CLinux_uinput_enable(fd, EV_KEY, BTN_TOUCH), "UI_SET_KEYBIT BTN_TOUCH")
for axis in [ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_TRACKING_ID, ABS_MT_POSITION_X, ABS_MT_POSITION_Y] {
    check(CLinux_uinput_enable(fd, EV_ABS, axis), "UI_SET_ABSBIT \(axis)")
}
check(CLinux_uinput_set_property(fd, INPUT_PROP_DIRECT), "UI_SET_PROPBIT INPUT_PROP_DIRECT")
// 40 units a millimetre: a 250 mm panel at the default size.
for axis in [ABS_X, ABS_Y, ABS_MT_POSITION_X, ABS_MT_POSITION_Y] {
    check(CLinux_uinput_setup_axis(fd, axis, 0, size - 1, 40), "UI_ABS_SETUP \(axis)")
}
check(CLinux_uinput_setup_axis(fd, ABS_MT_SLOT, 0, slots - 1, 0), "UI_ABS_SETUP ABS_MT_SLOT")
check(CLinux_uinput_setup_axis(fd, ABS_MT_TRACKING_ID, 0, 65535, 0), "UI_ABS_SETUP ABS_MT_TRACKING_ID")
check(CLinux_uinput_create(fd, name, 0x1234, 0x5678), "UI_DEV_CREATE")
say("uinput: ready \(name)")

func emit(_ type: Int32, _ code: Int32, _ value: Int32) { check(CLinux_uinput_emit(fd, type, code, value), "write") }

/// A position in 0…1 as an axis value.
func axis(_ text: Substring) -> Int32? {
    guard let p = Double(text), p.isFinite, p >= 0, p <= 1 else { return nil }
    return min(size - 1, Int32((p * Double(size)).rounded()))
}

var down: Set<Int32> = []
var nextTrackingID: Int32 = 1
while let line = readLine() {
    let words = line.split(separator: " ")
    guard let verb = words.first else { continue }
    guard words.count >= 2, let slot = Int32(words[1]), slot >= 0, slot < slots else { fail("'\(line)': SLOT must be 0…\(slots - 1)") }
    switch (verb, words.count) {
    case ("down", 4), ("move", 4):
        guard let x = axis(words[2]), let y = axis(words[3]) else { fail("'\(line)': X and Y must be 0…1") }
        emit(EV_ABS, ABS_MT_SLOT, slot)
        if verb == "down" {
            emit(EV_ABS, ABS_MT_TRACKING_ID, nextTrackingID)
            nextTrackingID = nextTrackingID % 65535 + 1
            if down.isEmpty { emit(EV_KEY, BTN_TOUCH, 1) }
            down.insert(slot)
        }
        emit(EV_ABS, ABS_MT_POSITION_X, x)
        emit(EV_ABS, ABS_MT_POSITION_Y, y)
        emit(EV_ABS, ABS_X, x)
        emit(EV_ABS, ABS_Y, y)
    case ("up", 2):
        emit(EV_ABS, ABS_MT_SLOT, slot)
        emit(EV_ABS, ABS_MT_TRACKING_ID, -1)
        down.remove(slot)
        if down.isEmpty { emit(EV_KEY, BTN_TOUCH, 0) }
    default:
        fail("'\(line)': expected 'down SLOT X Y', 'move SLOT X Y' or 'up SLOT'")
    }
    emit(EV_SYN, SYN_REPORT, 0)
    say("uinput: \(line)")
}
check(CLinux_uinput_destroy(fd), "UI_DEV_DESTROY")
close(fd)
say("uinput: destroyed \(name)")
