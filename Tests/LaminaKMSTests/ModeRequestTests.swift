import LaminaKMS
import Testing

@Suite("modes")
struct ModeRequestTests {
    @Test func parses() {
        #expect(ModeRequest(parsing: "1280x800") == ModeRequest(width: 1280, height: 800))
        #expect(ModeRequest(parsing: "1920x1080@60") == ModeRequest(width: 1920, height: 1080, refreshRate: 60))
        #expect(ModeRequest(parsing: "1920x") == nil)
        #expect(ModeRequest(parsing: "0x10") == nil)
        #expect(ModeRequest(parsing: "10x10@-1") == nil)
    }
}
