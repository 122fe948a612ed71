import Foundation
import LaminaCore
import Testing

/// The boot handoff on real KMS (issue 29 §2): a splash is on the display before laminad starts
/// (`lamina-probe splash`, left half orange, right half green); laminad takes the display over
/// without a modeset, shows the splash as the background until a client's first frame (a
/// full-screen blue layer), then crossfades to it. Part of the serialized KMS suite
/// `KMSSystemVMTests` (a nested suite, so `--filter BootHandoffVMTests` runs it alone).
///
/// The guest runs Debian 12's Linux 6.1. There a DRM client's framebuffers die with its file:
/// a KMS program that exits cannot leave its picture (`kernelTakesAnExitedProgramsPicture`
/// shows it), so the splashes that work are the fbdev one (the kernel owns /dev/fb0's
/// framebuffer) and a KMS one that stays alive after dropping DRM master (plymouth's way).
extension KMSSystemVMTests {
    @Suite struct BootHandoffVMTests {
        static let left = (230, 120, 20), right = (20, 160, 90), scene = (40, 64, 200)
        static let sceneFile = ##"{"sublayers":[{"bounds":[0,0,1280,800],"position":[640,400],"backgroundColor":"#2840C8FF"}]}"##

        /// How far along the line from the splash's colour to the scene's one screendump is.
        enum State: Equatable { case splash, blend(Double), scene, black, other(String) }

        /// Classifies the samples of one screendump (16 × 10 grid, row by row; the left 8
        /// columns lie on the splash's left half). Each pixel must lie on the segment from its
        /// splash colour to the scene's (within 12 per channel), all at the same fraction
        /// (within 0.06): a crossfade is uniform.
        static func classify(_ px: [[Int]]) -> (State, Double) {
            if px.allSatisfy({ $0.max()! < 16 }) { return (.black, 0) }
            var fractions: [Double] = []
            for (i, p) in px.enumerated() {
                let s = i % 16 < 8 ? [left.0, left.1, left.2] : [right.0, right.1, right.2]
                let d = [scene.0 - s[0], scene.1 - s[1], scene.2 - s[2]].map(Double.init)
                let v = [p[0] - s[0], p[1] - s[1], p[2] - s[2]].map(Double.init)
                let t = (v[0] * d[0] + v[1] * d[1] + v[2] * d[2]) / (d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
                let off = (0..<3).map { abs(v[$0] - t * d[$0]) }.max()!
                guard off <= 12, t > -0.05, t < 1.05 else { return (.other("sample \(i) is \(p), off the splash-to-scene line by \(Int(off))"), t) }
                fractions.append(t)
            }
            let lo = fractions.min()!, hi = fractions.max()!, mean = fractions.reduce(0, +) / Double(fractions.count)
            guard hi - lo <= 0.06 else { return (.other("not one crossfade: fractions \(lo)…\(hi)"), mean) }
            return mean < 0.03 ? (.splash, mean) : mean > 0.97 ? (.scene, mean) : (.blend(mean), mean)
        }

        /// The burst of screendumps NAME.jsonl, classified; the counts and the sequence checked:
        /// no black or foreign frame, splash → blend → scene, the fraction never going back.
        static func checkBurst(_ run: VMHarness.Run, _ name: String, wantBlends: Bool) throws -> [String: Int] {
            let text = String(decoding: try #require(run.file(name + ".jsonl"), "no burst \(name)"), as: UTF8.self)
            var counts: [String: Int] = [:]
            var last = -1.0, phase = 0
            var trace: [String] = []
            for line in text.split(separator: "\n") {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let px = try #require(object["px"] as? [[Int]])
                let i = object["i"] as? Int ?? -1
                let (state, t) = classify(px)
                let key: String, rank: Int
                switch state {
                case .splash: (key, rank) = ("splash", 0)
                case .blend: (key, rank) = ("blend", 1)
                case .scene: (key, rank) = ("scene", 2)
                case .black: (key, rank) = ("black", -1)
                case .other(let why): (key, rank) = ("other", -1); trace.append("shot \(i): \(why)")
                }
                counts[key, default: 0] += 1
                if rank >= 0 {
                    #expect(rank >= phase, "shot \(i) is \(key) after a later state")
                    #expect(t >= last - 0.05, "shot \(i): the fade went back from \(last) to \(t)")
                    phase = max(phase, rank)
                    last = max(last, t)
                }
            }
            print("boot handoff burst \(name): \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
            #expect(counts["black", default: 0] == 0, "a black frame in \(name)")
            #expect(counts["other", default: 0] == 0, "frames neither splash, blend nor scene: \(trace.prefix(5))")
            #expect(counts["splash", default: 0] > 0 && counts["scene", default: 0] > 0, "\(counts)")
            if wantBlends { #expect(counts["blend", default: 0] > 0, "no shot caught the crossfade: \(counts)") }
            return counts
        }

        /// Expects every sample of a screendump at `fraction` of the way from splash to scene.
        static func expectFraction(_ shot: Bitmap, _ fraction: Double, _ what: String) {
            for (x, s) in [(320, left), (960, right)] {
                for y in [100, 400, 700] {
                    let want = (Int((Double(s.0) + fraction * Double(scene.0 - s.0)).rounded()),
                                Int((Double(s.1) + fraction * Double(scene.1 - s.1)).rounded()),
                                Int((Double(s.2) + fraction * Double(scene.2 - s.2)).rounded()))
                    expectPixel(shot, x, y, want, tolerance: 4, what)
                }
            }
        }

        /// An fbdev splash (as psplash draws): screendumps one after another from before
        /// laminad starts until after the fade show the splash, the crossfade, the scene, and
        /// never a black frame (real clock, a 6 s fade: frames in a TCG guest under load can take a
        /// second, and the first frame with the scene, which compiles its shaders, many: the fade
        /// counts from when that frame was drawn, `BootHandoff.frameDrawn`). Then, on the virtual clock, the blend's
        /// values at known times. At exit (`on_exit = keep`), 6.1 has no CLOSEFB: laminad copies
        /// its last frame into the console's framebuffer and puts that back; the shot after
        /// exit shows the scene.
        @Test func fbdevSplashFadesToTheSceneWithoutABlackFrame() async throws {
            let run = try await VMHarness.run("boot-fbdev", timeout: 240, files: [
                "scene.json": Self.sceneFile,
                "boot.toml": "[boot]\nhandoff = \"fade\"\nfade_seconds = 6\non_exit = \"keep\"\n",
            ], script: """
                HANDOFF=
                "$B/lamina-probe" splash --fbdev || echo "VMKMS_FAIL no fbdev splash"
                # fbdev emulation copies what was written to the display's buffer from a worker.
                nap 0.5
                value crtc_before "$("$B/lamina-probe" crtc | head -n 1)"
                shot splash
                echo "VMKMS_BURST boot 8000"
                start_laminad --config $D/boot.toml
                wait_log "first frame on screen" 100
                value stats_before_client "$("$L" stats | grep '^boot\\.' | paste -sd' ')"
                apply $D/scene.json
                wait_log "boot picture has faded out" 300
                settle
                echo "VMKMS_BURST_END"
                shot scene
                value stats_after "$("$L" stats | grep '^boot\\.' | paste -sd' ')"
                stop_laminad
                value crtc_after_exit "$("$B/lamina-probe" crtc | head -n 1)"
                # After lastclose (the kernel's fbdev emulation puts its framebuffer back).
                nap 0.5
                shot after_exit
                # The virtual clock: the blend at known times.
                "$B/lamina-probe" splash --fbdev || echo "VMKMS_FAIL no fbdev splash"
                nap 0.5
                start_laminad --config $D/boot.toml --clock virtual
                settle; shot v0
                apply $D/scene.json; settle; shot v1
                "$L" advance 1.5 >/dev/null; settle; shot v2
                "$L" advance 1.5 >/dev/null; settle; shot v3
                "$L" advance 1.5 >/dev/null; settle; shot v4
                "$L" advance 1.5 >/dev/null; settle; shot v5
                stop_laminad
                """)
            let values = run.values
            print("boot handoff: CRTC before \(values["crtc_before"] ?? "?"), after exit \(values["crtc_after_exit"] ?? "?")")
            print("boot handoff: stats before a client: \(values["stats_before_client"] ?? "?"); after: \(values["stats_after"] ?? "?")")
            #expect(run.log.contains("took the display over without a modeset"), "no takeover in the log")
            #expect(run.log.contains("picture imported: 1280x800"), "no picture imported")
            #expect(values["stats_before_client"]?.contains("boot.outputsTakenOver 1") == true)
            #expect(values["stats_before_client"]?.contains("boot.phase 1") == true)
            #expect(values["stats_after"]?.contains("boot.phase 4") == true)
            let splash = try run.shot("splash")
            expectPixel(splash, 320, 400, Self.left, tolerance: 2, "the fbdev splash's left half")
            expectPixel(splash, 960, 400, Self.right, tolerance: 2, "the fbdev splash's right half")
            _ = try Self.checkBurst(run, "boot", wantBlends: true)
            Self.expectFraction(try run.shot("scene"), 1, "the scene after the fade")
            // 6.1: no CLOSEFB, so on_exit = keep copies the last frame into the console's
            // framebuffer (the fbdev one, which the kernel keeps) and puts that back; the VT
            // stays in graphics mode (the splash had it so), so the scene stays on screen.
            #expect(run.log.contains("the last frame was copied into the framebuffer shown before laminad")
                    || run.log.contains("the last frame stays on screen"), "on_exit = keep did nothing")
            Self.expectFraction(try run.shot("after_exit"), 1, "laminad's last frame, left on screen after it exited")
            // The virtual clock: splash until the client's frame, which starts the fade from
            // the splash; then a quarter of the way per 1.5 s of the 6 s fade.
            for (name, fraction) in [("v0", 0.0), ("v1", 0.0), ("v2", 0.25), ("v3", 0.5), ("v4", 0.75), ("v5", 1.0)] {
                Self.expectFraction(try run.shot(name), fraction, "\(name): \(fraction) of the way to the scene")
            }
        }

        /// The kernel fact the design rests on, checked on the guest's kernel: a KMS program
        /// that lights its own framebuffer and exits does not leave it on screen (before 6.8 the
        /// kernel removes a client's framebuffers, and the CRTC scanning one out, when its file
        /// closes; the fbdev console then comes back). And plymouth's way does work: a splash
        /// that stays alive after dropping DRM master is taken over by laminad (its framebuffer
        /// imported through GetFB2), and laminad shows it until the client's frame.
        @Test func kernelTakesAnExitedProgramsPictureButNotALiveOnes() async throws {
            let run = try await VMHarness.run("boot-kms", timeout: 240, files: [
                "scene.json": Self.sceneFile,
                "boot.toml": "[boot]\nhandoff = \"keep\"\n",
            ], script: """
                HANDOFF=
                value uname "$(uname -r)"
                "$B/lamina-probe" splash --kms --exit > /tmp/splash.txt || echo "VMKMS_FAIL the KMS splash did not show"
                value exited_splash "$(cat /tmp/splash.txt)"
                value crtc_after_exit "$("$B/lamina-probe" crtc | head -n 1)"
                shot exited
                mkfifo /tmp/go
                "$B/lamina-probe" splash --kms < /tmp/go > /tmp/splash.txt &
                SPLASH=$!
                exec 7>/tmp/go
                poll 100 grep -q "splash shown" /tmp/splash.txt || echo "VMKMS_FAIL the live KMS splash did not show"
                value live_splash "$(cat /tmp/splash.txt)"
                shot live
                start_laminad --config $D/boot.toml
                wait_log "first frame on screen" 100
                settle; shot taken
                # A byte, not EOF: laminad, started since, holds the fifo's write end too.
                echo go >&7; exec 7>&-
                wait $SPLASH
                apply $D/scene.json; settle; shot scene
                stop_laminad
                # Legacy modesetting: the takeover is a drmModePageFlip instead of SetCrtc.
                "$B/lamina-probe" splash --fbdev || echo "VMKMS_FAIL no fbdev splash"
                nap 0.5
                export LAMINA_KMS_NO_ATOMIC=1
                start_laminad --config $D/boot.toml
                wait_count "took the display over without a modeset" 2 100
                settle; shot legacy
                stop_laminad
                """)
            let values = run.values
            print("boot handoff: kernel \(values["uname"] ?? "?"); a KMS splash that exited: \(values["exited_splash"] ?? "?") → CRTC \(values["crtc_after_exit"] ?? "?")")
            let exitedFB = values["exited_splash"]?.split(separator: " ").firstIndex(of: "framebuffer").flatMap { i in
                values["exited_splash"]?.split(separator: " ").dropFirst(i + 1).first.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) }
            }
            let after = values["crtc_after_exit"] ?? ""
            let kept = exitedFB.map { after.contains("fb \($0) ") } ?? false
            // On 6.1 the exited program's framebuffer is gone from the CRTC (the fbdev console,
            // or nothing, shows instead); say so either way.
            print("boot handoff: the exited splash's framebuffer \(kept ? "stayed" : "did not stay") on the CRTC")
            if values["uname"]?.hasPrefix("6.1.") == true { #expect(!kept, "Linux 6.1 kept an exited client's framebuffer: \(after)") }
            let live = try run.shot("live")
            expectPixel(live, 320, 400, Self.left, tolerance: 2, "the live KMS splash")
            #expect(run.log.contains("took the display over without a modeset"))
            #expect(run.log.contains("picture imported"), "GetFB2 of the live splash's framebuffer")
            // Taken over: the splash as laminad's background (keep), then under the scene.
            let taken = try run.shot("taken")
            expectPixel(taken, 320, 400, Self.left, tolerance: 2, "laminad shows the splash it took over")
            expectPixel(taken, 960, 400, Self.right, tolerance: 2, "laminad shows the splash it took over")
            Self.expectFraction(try run.shot("scene"), 1, "the scene over the kept splash")
            // The same on the legacy path (restored session's scene over the kept fbdev splash).
            #expect(run.log.contains("legacy modesetting (LAMINA_KMS_NO_ATOMIC=1)"))
            #expect(run.log.components(separatedBy: "took the display over without a modeset").count - 1 == 2, "a takeover per start")
            Self.expectFraction(try run.shot("legacy"), 1, "legacy: the restored scene over the kept splash")
        }
    }
}
