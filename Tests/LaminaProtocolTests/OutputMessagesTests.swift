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
            (.enabled(true), 5, "enable"), (.enabled(false), 6, "disable"),
        ]
        for (change, opcode, words) in changes {
            #expect(change.opcode == opcode && change.description == words)
        }
    }
}
