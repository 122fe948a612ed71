"""Tests of vmkms.py's host-side pieces that need no guest (run by scripts/test.sh)."""
import io
import os
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmkms  # noqa: E402


def write_pack(folder, name, entries):
    with tarfile.open(os.path.join(folder, name), "w") as pack:
        for path, data in entries.items():
            info = tarfile.TarInfo(path)
            info.size = len(data)
            pack.addfile(info, io.BytesIO(data))


def read_packs(folder):
    entries, packs = {}, sorted(f for f in os.listdir(folder) if f.endswith(".tar"))
    for name in packs:
        with tarfile.open(os.path.join(folder, name)) as pack:
            for member in pack:
                entries.setdefault(member.name, []).append(pack.extractfile(member).read())
    return packs, entries


def test_few_packs_are_left_as_they_are(tmp_path):
    for k in range(3):
        write_pack(tmp_path, f"p{k}.tar", {f"./0{k}/a": b"x"})
    vmkms.merge_shader_packs(str(tmp_path), most=3)
    packs, entries = read_packs(tmp_path)
    assert packs == ["p0.tar", "p1.tar", "p2.tar"]
    assert len(entries) == 3


def test_many_packs_become_one_with_each_entry_once(tmp_path):
    for k in range(5):
        write_pack(tmp_path, f"p{k}.tar", {"./00/shared": b"same", f"./0{k}/own": bytes([k]) * 10})
    vmkms.merge_shader_packs(str(tmp_path), most=3)
    packs, entries = read_packs(tmp_path)
    assert len(packs) == 1 and packs[0].startswith("merged-")
    assert entries["./00/shared"] == [b"same"]
    assert all(entries[f"./0{k}/own"] == [bytes([k]) * 10] for k in range(5))
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".part")]


def test_an_unreadable_pack_is_left_out_of_the_merge(tmp_path):
    for k in range(3):
        write_pack(tmp_path, f"p{k}.tar", {f"./0{k}/a": b"x"})
    with open(os.path.join(tmp_path, "p9.tar"), "wb") as f:
        f.write(b"not a tar file at all" * 40)
    vmkms.merge_shader_packs(str(tmp_path), most=2)
    packs, entries = read_packs(tmp_path)
    assert len(packs) == 1
    assert sorted(entries) == ["./00/a", "./01/a", "./02/a"]


def test_a_merge_over_the_limit_starts_again(tmp_path):
    for k in range(3):
        write_pack(tmp_path, f"p{k}.tar", {f"./0{k}/a": b"y" * 1000})
    vmkms.merge_shader_packs(str(tmp_path), most=2, limit=2500)
    assert os.listdir(tmp_path) == []


def test_the_sharing_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("LAMINA_VM_SHADER_CACHE", "0")
    assert vmkms.shader_cache_folder() is None


def test_a_half_written_pack_goes_after_an_hour(tmp_path):
    old, fresh = os.path.join(tmp_path, ".a.part"), os.path.join(tmp_path, ".b.part")
    for path in (old, fresh):
        with open(path, "wb") as f:
            f.write(b"half")
    os.utime(old, (os.path.getatime(old), os.path.getmtime(old) - 7200))
    vmkms.merge_shader_packs(str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == [".b.part"]
