"""Layout from Python: autoresizing_mask and constraints set here, laminad lays the layers out
(read back through the tree JSON), a cycle is refused with laminad's message, and
layout_sublayers runs before the commit for a marked layer."""

from __future__ import annotations

import pytest

import lamina


@pytest.fixture
def conn(daemon):  # type: ignore[no-untyped-def]
    c = lamina.connect(daemon.socket, name="pytest-layout")
    yield c
    c.close()


def frames(conn: lamina.Connection) -> dict:
    (me,) = [x for x in conn.tree()["clients"] if x["name"] == "pytest-layout"]
    out = {}

    def walk(layer: dict) -> None:
        if "name" in layer:
            b, p = layer.get("bounds", [0, 0, 0, 0]), layer.get("position", [0, 0])
            out[layer["name"]] = (p[0] - b[2] / 2, p[1] - b[3] / 2, b[2], b[3])
        for s in layer.get("sublayers", []):
            walk(s)
    walk(me["root"])
    return out


def test_constraints_lay_out_siblings(conn: lamina.Connection) -> None:
    panel = lamina.Layer(name="panel", frame=(40, 40, 400, 300),
                         autoresizing_mask=lamina.AutoresizingMask.WIDTH_SIZABLE | lamina.AutoresizingMask.HEIGHT_SIZABLE)
    title = lamina.Layer(name="title", bounds=(0, 0, 200, 50),
                         constraints=[lamina.Constraint("midX"), {"attribute": "minY", "offset": 10}])
    badge = lamina.Layer(name="badge", bounds=(0, 0, 20, 20), constraints=[
        lamina.Constraint("minX", "title", "maxX", 1, 4), lamina.Constraint("midY", "title", "midY")])
    conn.root.add_sublayer(panel)
    panel.add_sublayer(badge)
    panel.add_sublayer(title)
    conn.sync()
    f = frames(conn)
    assert f["title"] == (100, 10, 200, 50)
    assert f["badge"] == (304, 25, 20, 20)
    assert panel.autoresizing_mask == 18 and title.constraints[1] == ("minY", "superlayer", "minY", 1.0, 10.0)
    # The panel grows: laminad lays its sublayers out again.
    panel.bounds = (0, 0, 600, 300)
    conn.sync()
    assert frames(conn)["title"] == (200, 10, 200, 50)


def test_a_cycle_is_refused_naming_the_constraint(conn: lamina.Connection) -> None:
    a = lamina.Layer(name="a", constraints=[lamina.Constraint("minX", "b")])
    b = lamina.Layer(name="b", constraints=[lamina.Constraint("minX", "a")])
    conn.root.add_sublayer(a)
    conn.root.add_sublayer(b)
    with pytest.raises(lamina.LaminaError, match="cycle"):
        conn.sync()


def test_layout_sublayers_runs_before_the_commit(conn: lamina.Connection) -> None:
    box = lamina.Layer(name="box", frame=(0, 0, 100, 100))
    inner = lamina.Layer(name="inner")
    box.add_sublayer(inner)
    conn.root.add_sublayer(box)
    calls = []

    def layout(layer: lamina.Layer) -> None:
        calls.append(layer.name)
        w, h = layer.preferred_frame_size()
        inner.frame = (10, 10, w - 20, h - 20)
    box.layout = layout
    conn.sync()
    assert calls == ["box"] and not box.needs_layout
    assert frames(conn)["inner"] == (10, 10, 80, 80)
    box.bounds = (0, 0, 300, 100)     # a new size marks the layer
    assert box.needs_layout
    conn.sync()
    assert frames(conn)["inner"] == (10, 10, 280, 80)
