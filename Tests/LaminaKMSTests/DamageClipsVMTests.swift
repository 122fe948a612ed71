import Foundation
import LaminaCore
import Testing

/// Damage clips as the kernel receives them (issue 10): vkms, built for the guest's kernel with
/// the FB_DAMAGE_CLIPS property its Linux 6.1 version lacks and a line in the kernel log for each
/// clip the kernel parsed from a commit (`scripts/vm/vmkms.py`, `patch_vkms`). virtio-gpu's
/// test (`smallChangeFlipsWithDamageClips`) shows the screen by screendumps but its 6.1 driver
/// takes no clips; here the clips go through the atomic ioctl.
///
/// After a small change (a 40×40 dot turns yellow, then cyan), the last commit's clip on the
/// primary plane is the dot's (grown for antialiasing), and the screen is right: vkms's CRC of
/// the composed frame equals that of a laminad started afresh with the final scene, drawn whole.
/// Part of the serialized KMS suite `KMSVMTests` (KMSVMTests.swift).
extension KMSVMTests {
    @Test func theKernelReceivesTheDamageClipsOfASmallChange() async throws {
        let small = testScene.replacingOccurrences(of: "\n]}", with: ",\n {\"name\":\"dot\",\"bounds\":[0,0,40,40],\"position\":[640,400],\"backgroundColor\":\"#FFFFFFFF\"}\n]}")
        let changed = small.replacingOccurrences(of: "#FFFFFFFF", with: "#FFFF00FF")
        let again = small.replacingOccurrences(of: "#FFFFFFFF", with: "#00FFFFFF")
        let run = try await VMHarness.run("damage-clips", device: "vkms", files: ["scene.json": small, "changed.json": changed, "again.json": again], script: """
            mount -t debugfs none /sys/kernel/debug 2>/dev/null
            start_laminad --session-journal ""
            apply $D/scene.json; settle
            apply $D/changed.json; settle
            dmesg -c > /dev/null
            apply $D/again.json; settle
            value clips "$(dmesg | sed -n 's/.*vkms: plane \\([0-9]*\\) damage clip /\\1:/p' | paste -sd' ')"
            value primary "$(sed -n 's/^plane\\[\\([0-9]*\\)\\]: plane-0$/\\1/p' $DRI/state)"
            value read_back "$("$L" screenshot /tmp/read.png --pixel 640,400 --pixel 200,150 --pixel 640,300 | tr '\\n' ';')"
            crc partial
            stop_laminad
            start_laminad --session-journal ""
            apply $D/again.json; settle
            crc whole
            stop_laminad
            """)
        #expect(run.log.contains("FB_DAMAGE_CLIPS yes"), "the patched vkms offers the property")
        // The dot spans 620…660 × 380…420; laminad grows its clip by 2 for antialiasing.
        let primary = run.values["primary"] ?? "?"
        let clips = (run.values["clips"] ?? "").split(separator: " ").map(String.init)
        #expect(clips.contains("\(primary):618,378-662,422"), "the clips the kernel got for the last change: \(clips) (primary plane \(primary))")
        #expect(clips.filter { $0.hasPrefix("\(primary):") }.count == 1, "one clip on the primary plane: \(clips)")
        let readBack = run.values["read_back"] ?? ""
        #expect(readBack.contains("640,400: 0 255 255 255") && readBack.contains("200,150: 255 0 0 255")
                && readBack.contains("640,300: 0 0 0 255"), "\(readBack)")
        // The partly redrawn frame the kernel composed is the whole frame, bit for bit.
        #expect(run.values["partial"] != nil && run.values["partial"] != "" && run.values["partial"] == run.values["whole"],
                "vkms's CRC after the small change \(run.values["partial"] ?? "-"), drawn whole \(run.values["whole"] ?? "-")")
        #expect(run.values["laminad_exit"] == "0")
    }
}
