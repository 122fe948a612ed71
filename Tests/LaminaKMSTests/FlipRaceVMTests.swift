import Foundation
import Testing

/// Issue 24's lost page flips, on two real heads: blanking one display used to wait for every
/// queued flip and throw the events away, so an output whose flip was read there stayed
/// "awaiting" for ever — it froze, and the watchdog ping was withheld. Here a spinning layer
/// keeps both heads flipping while the second head is blanked and relit again and again; the
/// first keeps drawing and the watchdog keeps being fed.
@Suite("Page flips across a power change", .serialized)
struct FlipRaceVMTests {
    static let spinner = """
    {"sublayers":[
     {"name":"spin","bounds":[0,0,300,300],"position":[640,400],"backgroundColor":"#FF8000FF",
      "animations":{"spin":{"type":"basic","keyPath":"transform.rotation.z","fromValue":0,"toValue":6.283,
                            "duration":1,"repeatCount":"infinity"}}}
    ]}
    """

    @Test func blankingOneHeadMidFlipLeavesTheOtherFlipping() async throws {
        let run = try await VMHarness.run("flip-race", outputs: 2, vncHead: 1, files: ["spin.json": Self.spinner], script: """
            # A stand-in for systemd's notify socket: counts the watchdog pings.
            python3 -c '
            import socket
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.bind("/tmp/notify.sock")
            with open("/tmp/pings", "a") as f:
                while True:
                    if b"WATCHDOG=1" in s.recv(4096):
                        f.write("ping\\n"); f.flush()
            ' &
            i=0; while [ ! -S /tmp/notify.sock ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
            export NOTIFY_SOCKET=/tmp/notify.sock WATCHDOG_USEC=1000000
            start_laminad
            # The second head is connected once laminad runs (virtio-gpu lights one at boot).
            echo "VMKMS_RESIZE 1 1024 768"; read _
            wait_log "Virtual-2 connected" 300
            apply $D/spin.json
            frames() { "$L" stats | sed -n 's/^framesRendered //p'; }
            # Blank and relight the second head while both flip: each blank waits for the
            # queued flips, the first head's among them.
            for n in 1 2 3 4 5 6 7 8; do
                "$L" display off Virtual-2 >/dev/null || echo "VMKMS_FAIL display off $n"
                "$L" display on Virtual-2 >/dev/null || echo "VMKMS_FAIL display on $n"
            done
            "$L" display off Virtual-2 >/dev/null
            # The first head goes on: its frames keep coming, whatever the guest's speed (a
            # count of frames, waited for, not a rate).
            before=$(frames)
            pings_before=$(wc -l < /tmp/pings)
            i=0
            while [ $(( $(frames) - before )) -lt 30 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
            value frames_after $(( $(frames) - before ))
            # The watchdog is fed: pings keep arriving (every half second when all is well).
            i=0
            while [ $(( $(wc -l < /tmp/pings) - pings_before )) -lt 3 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
            value pings_after $(( $(wc -l < /tmp/pings) - pings_before ))
            value withheld $(grep -c "withholding the watchdog ping" $LOG)
            # The longest a flip was logged pending as a ping was withheld (0: none was). laminad
            # withholds once a flip is 2 s late in real time, which a flip under TCG on a loaded
            # host can be and still complete; a lost one stays pending while the waits above run
            # out (a minute each).
            value longest_pending $(sed -n 's/.*a page flip has been pending for \\([0-9]*\\) s: withholding.*/\\1/p' $LOG | sort -n | tail -n 1 | grep . || echo 0)
            value pending_limit $(scaled 10)
            stop_laminad
            """)
        #expect(Int(run.values["frames_after"] ?? "") ?? 0 >= 30, "the first head stopped drawing: \(run.values)")
        #expect(Int(run.values["pings_after"] ?? "") ?? 0 >= 3, "the watchdog was not fed: \(run.values)")
        // Not `withheld == 0`: a slow flip that completes withholds a ping too (see the script).
        let longest = Int(run.values["longest_pending"] ?? "") ?? .max, limit = Int(run.values["pending_limit"] ?? "") ?? 10
        #expect(longest <= limit, "a flip stayed pending \(longest) s (the limit at this guest's speed: \(limit) s): \(run.values)")
        #expect(run.values["laminad_exit"] == "0")
    }
}
