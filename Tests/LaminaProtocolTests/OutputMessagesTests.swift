import Testing
import LaminaProtocol

/// What `laminactl output` prints and parses of a mode, and the output request's changes.
@Suite("Output messages")
struct OutputMessagesTests {
    @Test func aModeReadsAsWrittenWithItsRefreshToTwoDecimals() {
        #expect(OutputMode(width: 1280, height: 720).description == "1280x720")
        #expect(OutputMode(width: 1024, height: 768, refresh: 60.003840245775734).description == "1024x768@60")
        #expect(OutputMode(width: 1920, height: 1080, refresh: 59.94005994).description == "1920x1080@59.94")
        #expect(OutputMode(width: 1, height: 1, refresh: 1e308).description == "1x1@inf", "no trap on a refresh no Int holds")
        #expect(OutputMode(parsing: "1920x1080@59.94") == OutputMode(width: 1920, height: 1080, refresh: 59.94))
        #expect(OutputMode(parsing: "800x600") == OutputMode(width: 800, height: 600))
        for bad in ["800", "800x", "x600", "800x600@", "800x600@0", "800x600@-1", "800x600@nan", "axb"] {
            #expect(OutputMode(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func eachChangeHasItsOpcodeAndWords() {
        let changes: [(OutputChange, UInt8, String)] = [
            (.none, 0, "nothing"), (.mode(OutputMode(width: 800, height: 600)), 1, "mode 800x600"),
            (.transform("90"), 2, "transform 90"), (.scale(2), 3, "scale 2.0"), (.position(x: 1920, y: 0), 4, "position 1920 0"),
            (.enabled(true), 5, "enable"), (.enabled(false), 6, "disable"), (.brightness(40), 7, "brightness 40.0"),
        ]
        for (change, opcode, words) in changes {
            #expect(change.opcode == opcode && change.description == words)
        }
    }

    static func decode(_ message: ClientMessage) throws -> ClientMessage {
        var d = FrameDecoder(limit: 1 << 20)
        d.append(message.encoded())
        let f = try d.next()!
        return try ClientMessage.decode(type: f.type, body: f.body)
    }

    @Test("brightness (change 7) round-trips as an f64 percent, for one output or every one")
    func brightnessRoundTrips() throws {
        for m in [ClientMessage.request(id: 3, .output(name: "eDP-1", .brightness(40))), .request(id: 4, .output(name: "", .brightness(0))),
                  .request(id: 5, .output(name: "DSI-1", .brightness(100))), .request(id: 6, .output(name: "DSI-1", .brightness(12.5)))] {
            #expect(try Self.decode(m) == m)
        }
    }

    @Test("a brightness outside 0…100, or not a number, is a malformed message naming the field")
    func brightnessOutOfRangeIsMalformed() {
        for bad in [-1, 100.5, .infinity, .nan, -.infinity] {
            do {
                _ = try Self.decode(.request(id: 1, .output(name: "eDP-1", .brightness(bad))))
                Issue.record("brightness \(bad) was taken")
            } catch {
                #expect("\(error)".contains("output brightness: ") && "\(error)".contains("is not a percentage from 0 to 100"), "\(error)")
            }
        }
    }
}
