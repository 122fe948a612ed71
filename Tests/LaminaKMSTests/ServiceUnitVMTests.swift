import Foundation
import LaminaCore
import Testing

/// laminad under the shipped unit (issue 24): what docs/scene-format.md says a scene's video may
/// be must play under `systemd/laminad.service`'s sandbox, not only from a shell.
///
/// The guest boots systemd as PID 1 (`vmkms.py run --systemd`: udev, the journal and seatd as
/// on a machine) and installs the unit and its socket as they are, laminad where the unit's
/// ExecStart looks for it and the shipped configuration. The one change is a test drop-in that
/// lengthens `TimeoutStartSec` and `WatchdogSec` (under TCG on a busy host, GStreamer's first
/// registry scan takes 25–60 s, opening three videos blocks the loop for more than the unit's
/// 10 s, and page flips stay pending for seconds). laminad then shows, in one scene, a VP8 file in a user's home,
/// vivid's camera and an `http://` stream served in the guest, checked by `stats` and by the
/// screen's pixels; that it runs confined is read from its process (the lamina user, seccomp,
/// no new privileges) and from systemd. Under the unit before issue 24 all three failed (no
/// /home, no V4L2 devices, no IPv4). Then `systemd/laminad-offline.conf`, installed as a
/// drop-in, is read back from systemd: the old unit's network settings again. Part of the
/// serialized KMS suite `KMSSystemVMTests` (KMSVMTests.swift).
extension KMSSystemVMTests {
    @Test func theShippedUnitPlaysHomeFilesCamerasAndStreams() async throws {
        let scene = """
            {"sublayers":[
              {"name":"camera","bounds":[0,0,640,360],"position":[320,180],"video":"v4l2:///dev/video0","playing":true},
              {"name":"file","bounds":[0,0,300,200],"position":[850,120],"video":"/home/kiosk/media/green.webm","playing":true,"loop":true},
              {"name":"stream","bounds":[0,0,300,200],"position":[850,520],"video":"http://127.0.0.1:8080/blue.webm","playing":true,"loop":true}]}
            """
        // The clips are made here (TCG would take minutes to encode them): five seconds of one
        // colour each, 64×48 VP8 in WebM.
        let media = VMHarness.repository + "/.cache/vm/tests/service-unit-media"
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        for (name, colour) in [("green", "0xff00ff00"), ("blue", "0xff0000ff")] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
            p.arguments = ["-q", "videotestsrc", "pattern=solid-color", "foreground-color=" + colour, "num-buffers=50", "!",
                           "video/x-raw,width=64,height=48,framerate=10/1", "!", "videoconvert", "!", "vp8enc", "deadline=1", "!",
                           "webmmux", "!", "filesink", "location=\(media)/\(name).webm"]
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            try #require(p.terminationStatus == 0, "gst-launch-1.0 (gstreamer1.0-tools) could not make \(name).webm")
        }
        let run = try await VMHarness.run("service-unit", systemd: true, timeout: 900, files: ["scene.json": scene], script: """
            R=\(VMHarness.repository)
            M=\(media)
            export LAMINA_SOCKET=/run/lamina/lamina.sock
            value t_boot "$(cut -d' ' -f1 /proc/uptime)"
            # The unit as shipped: its files as they are, laminad where its ExecStart looks.
            cp "$LAMINAD" /usr/bin/laminad
            cp "$R/systemd/laminad.service" "$R/systemd/laminad.socket" /etc/systemd/system/
            # The lamina user and group, as the laminad package makes them (sysusers.d).
            systemd-sysusers "$R/systemd/lamina.sysusers.conf" || echo "VMKMS_FAIL systemd-sysusers"
            value lamina_uid "$(id -u lamina)"
            mkdir -p /etc/lamina /etc/systemd/system/laminad.service.d
            cp "$R/config/laminad.toml" /etc/lamina/laminad.toml
            # TCG runs code tens of times slower than a machine: a longer start timeout, and a
            # watchdog still on (laminad behaves as under one) but too long to trip here, where
            # page flips may stay pending for seconds (laminad then withholds its ping). The
            # sandbox stays the unit's.
            cat > /etc/systemd/system/laminad.service.d/vm-slow.conf <<EOT
            [Service]
            TimeoutStartSec=10min
            WatchdogSec=1h
            EOT
            systemctl daemon-reload
            # Media as a kiosk keeps it: a clip in a user's home, another served over HTTP here.
            mkdir -p /home/kiosk/media /srv/www
            chmod 755 /home/kiosk /home/kiosk/media
            cp $M/green.webm /home/kiosk/media/ && cp $M/blue.webm /srv/www/ || echo "VMKMS_FAIL no clips"
            chmod 644 /home/kiosk/media/green.webm /srv/www/blue.webm
            busybox httpd -p 127.0.0.1:8080 -h /srv/www || echo "VMKMS_FAIL httpd did not start"
            SYSTEMD_IGNORE_CHROOT=1 udevadm settle --timeout=$(scaled 30) || echo "VMKMS_FAIL udevadm settle"
            journalctl -f -o cat -u laminad.service >>$LOG 2>&1 &
            JOURNAL=$!
            value t_start "$(cut -d' ' -f1 /proc/uptime)"
            systemctl start laminad.service || echo "VMKMS_FAIL systemctl start laminad.service"
            value t_ready "$(cut -d' ' -f1 /proc/uptime)"
            MAIN=$(systemctl show -p MainPID --value laminad.service)
            value uid "$(awk '/^Uid:/ {print $2}' /proc/$MAIN/status)"
            value seccomp "$(awk '/^Seccomp:/ {print $2}' /proc/$MAIN/status)"
            value nonewprivs "$(awk '/^NoNewPrivs:/ {print $2}' /proc/$MAIN/status)"
            value devicepolicy "$(systemctl show -p DevicePolicy --value laminad.service)"
            # wait_videos N NAME: N videos play and the camera and the files have shown frames, or
            # each of the scene's three videos plays or has failed (at most 300 s at the reference speed,
            # scaled by the guest's speed factor: TCG on a busy host is slow).
            wait_videos() {
              END=$(( $(cut -d. -f1 /proc/uptime) + $(scaled 300) ))
              while [ "$(cut -d. -f1 /proc/uptime)" -lt $END ]; do
                "$L" stats > /tmp/stats
                playing=$(sed -n 's/^videosPlaying //p' /tmp/stats)
                failed=$(grep -cE ' video [0-9]+(: | [(])' $LOG)
                [ "$playing" = "$1" ] && [ "$(sed -n 's/^video.framesDMABuf //p' /tmp/stats)" -ge 3 ] && [ "$(sed -n 's/^video.framesSystemMemory //p' /tmp/stats)" -ge 10 ] && break
                [ "$failed" -gt 0 ] && [ $((playing + failed)) -ge 3 ] && break
                sleep 1
              done
              for k in videosPlaying video.framesDMABuf video.framesSystemMemory; do value $2.$k "$(sed -n "s/^$k //p" /tmp/stats)"; done
            }
            apply $D/scene.json
            wait_videos 3 shipped
            settle
            shot shipped
            value t_shown "$(cut -d' ' -f1 /proc/uptime)"
            value shipped.restarts "$(systemctl show -p NRestarts --value laminad.service)"

            # The offline drop-in takes effect as written (the settings it restores are the ones
            # that stopped the stream before this unit: no second start of laminad here).
            cp "$R/systemd/laminad-offline.conf" /etc/systemd/system/laminad.service.d/offline.conf
            systemctl daemon-reload
            value offline.families "$(systemctl show -p RestrictAddressFamilies --value laminad.service)"
            value offline.ipdeny "$(systemctl show -p IPAddressDeny --value laminad.service)"
            # The whole journal of the unit, in order, as laminad's log.
            kill $JOURNAL
            journalctl -o cat -u laminad.service > $LOG
            """)
        let values = run.values
        // Confined as the unit says: the lamina system user, seccomp's filter mode, no new
        // privileges, the closed device policy.
        #expect(values["uid"] != nil && values["uid"] == values["lamina_uid"] && values["uid"] != "0", "laminad runs as lamina: \(values)")
        #expect(values["seccomp"] == "2" && values["nonewprivs"] == "1" && values["devicepolicy"] == "closed", "\(values)")
        #expect(run.log.contains("video: GStreamer started before READY=1"), "under the watchdog GStreamer starts before READY")

        // The shipped unit: the three sources play, without a restart and without a video error.
        #expect(values["shipped.videosPlaying"] == "3", "the file under /home, the camera and the stream play: \(values)")
        #expect(Int(values["shipped.video.framesDMABuf"] ?? "") ?? 0 >= 3, "the camera's frames: \(values)")
        #expect(Int(values["shipped.video.framesSystemMemory"] ?? "") ?? 0 >= 10, "the files' frames: \(values)")
        #expect(values["shipped.restarts"] == "0")
        // A video's errors: "video N: …" when it cannot open, "video N (URI): …" from GStreamer.
        let errors = run.log.split(separator: "\n").filter { $0.range(of: #"\] video \d+(: | \()"#, options: .regularExpression) != nil }
        #expect(errors.isEmpty, "video errors: \(errors)")
        // Mesa keeps its shader cache in the unit's cache folder (XDG_CACHE_HOME), as GStreamer its registry.
        #expect(!run.log.contains("for shader cache"), "Mesa's shader cache has a folder")
        let shipped = try run.shot("shipped")
        // vivid's colour bars, in order (VideoCameraVMTests checks them closely).
        let bars: [(String, (Bool, Bool, Bool))] = [
            ("white", (true, true, true)), ("yellow", (true, true, false)), ("cyan", (false, true, true)),
            ("green", (false, true, false)), ("magenta", (true, false, true)), ("red", (true, false, false)),
            ("blue", (false, false, true)),
        ]
        for (i, bar) in bars.enumerated() {
            let p = shipped.pixel(x: 40 + 80 * i, y: 200)
            func on(_ v: UInt8, _ expected: Bool) -> Bool { expected ? (170...215).contains(v) : v <= 60 }
            #expect(on(p.r, bar.1.0) && on(p.g, bar.1.1) && on(p.b, bar.1.2), "the camera's \(bar.0) bar is \(p.r),\(p.g),\(p.b)")
        }
        // The clips are one colour each (VP8: within 40).
        expectPixel(shipped, 850, 120, (0, 255, 0), tolerance: 40, "the file under /home/kiosk")
        expectPixel(shipped, 850, 520, (0, 0, 255), tolerance: 40, "the http:// stream")
        expectPixel(shipped, 1200, 760, (0, 0, 0), "the background")

        // The offline drop-in parses and puts back the old unit's network settings.
        #expect(values["offline.families"] == "AF_NETLINK AF_UNIX", "\(values)")
        #expect(Set((values["offline.ipdeny"] ?? "").split(separator: " ")) == ["0.0.0.0/0", "::/0"], "IPAddressDeny=any: \(values)")
    }
}
