import Foundation
import LaminaCore
import Testing

/// Input on real KMS in a QEMU guest: the parts that need a display that can blank. In the
/// serialized KMS suite `KMSSystemVMTests` (KMSVMTests.swift).
extension KMSSystemVMTests {
    /// A display blanked for idleness wakes at the first touch, and that touch is not
    /// delivered (its down, moves and up); the next touch is. `laminactl events` on the session
    /// `laminactl apply` made shows what was delivered.
    @Test func touchWakesAnIdleBlankedDisplayAndIsNotDelivered() async throws {
        let run = try await VMHarness.run("wake", files: ["scene.json": testScene], script: """
            # 12 s, times the guest's speed factor: the five touches and the screendump after them
            # (eight laminactl calls) must come before the display blanks again.
            IDLE=$(scaled 12); value idle_blank $IDLE
            start_laminad --idle-blank $IDLE
            apply $D/scene.json; settle
            "$L" events --count 3 >/tmp/events.txt 2>/tmp/events.err &
            EV=$!
            poll 100 grep -q listening /tmp/events.err || echo "VMKMS_FAIL laminactl events did not listen"
            cat /tmp/events.err
            wait_log "idle for $IDLE" 200; nap 0.5
            shot idle
            "$L" input touch down 1 200 150
            "$L" input touch move 1 210 160
            "$L" input touch up 1
            "$L" input touch down 2 220 170
            "$L" input touch up 2
            settle
            shot woken
            poll 100 gone $EV
            cat /tmp/events.err
            value event_lines "$(wc -l </tmp/events.txt)"
            value events "$(tr '\\n' '|' </tmp/events.txt)"
            value stats_delivered "$("$L" stats | sed -n 's/^input.delivered //p')"
            stop_laminad
            """)
        #expect(run.failures.isEmpty, "\(run.failures)")
        expectPixel(try run.shot("idle"), 200, 150, (0, 0, 0), "blank after \(run.values["idle_blank"] ?? "?") s idle")
        expectPixel(try run.shot("woken"), 200, 150, (255, 0, 0), "the touch woke the display")
        #expect(run.serial.contains("touch on a blanked display: waking it"))
        let values = run.values
        #expect(values["event_lines"] == "3")
        let events = (values["events"] ?? "").split(separator: "|")
        // The session got the keyboard with the second touch, then its down and up; nothing of touch 1.
        #expect(events.count == 3)
        #expect(events.first?.contains(#""type":"focusIn""#) == true)
        #expect(events.dropFirst().first?.contains(#""type":"touchDown","session":"laminactl","layer":"red","layerID":"#) == true)
        #expect(events.allSatisfy { !$0.contains(#""id":1,"#) })
        #expect(events.dropFirst().allSatisfy { $0.contains(#""id":2,"#) && $0.contains(#""injected":true"#) })
    }
}
