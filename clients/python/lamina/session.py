"""Kept sessions: taking over the layers a session's earlier program left in laminad (from the
welcome's snapshot), and, when a reconnection finds laminad still holding the session, the
earlier program's animations that the replay must add again.
"""

from __future__ import annotations

import os
import weakref
from typing import Dict, List, Sequence, Tuple

from . import protocol, wire
from .animation import EncodedAnimation
from .errors import LaminaError, ProtocolViolation
from .image import SessionImage
from .layer import GradientLayer, Layer, ReplicatorLayer, ScrollLayer, ShapeLayer, TextLayer, TransformLayer
from .link import Link

#: The largest layer or image number a taken-over session may bring (numbers are 32-bit and
#: this client counts up from the largest).
_MAX_RESTORED_NUMBER = 1 << 22


def take_over(link: Link, snapshot: Sequence[wire.Operation]) -> List[Layer]:
    """Makes the layers of a taken-over session from the welcome's snapshot: their values,
    sublayers and actions (their animations run on in laminad). New layers and images get
    numbers above the session's; tags start far from the earlier client's (laminad reports
    the events of its animations to this connection). Returns the layers in no tree, which the
    connection must hold (a layer released is destroyed in laminad)."""
    classes = {c._kind: c for c in (Layer, GradientLayer, ShapeLayer, TextLayer, ReplicatorLayer, TransformLayer, ScrollLayer)}
    kinds = {v: k for k, v in protocol.LAYER_KINDS.items()}
    made: Dict[int, Layer] = {0: link._root}
    references: List[Tuple[Layer, int, int]] = []
    for op in snapshot:
        if isinstance(op, wire.Create):
            if op.layer == 0 or op.layer in made or op.layer > _MAX_RESTORED_NUMBER or (op.kind or 0) not in kinds:
                raise ProtocolViolation(f"the session snapshot creates layer {op.layer} of kind {op.kind} (a duplicate, the root, too large or unknown)")
            layer = classes.get(kinds.get(op.kind or 0, "layer"), Layer)()
            layer._conn = link
            layer._id = op.layer
            made[op.layer] = layer
            link._layers[op.layer] = layer
            finalizer = weakref.finalize(layer, link._released.append, wire.Destroy(op.layer))
            finalizer.atexit = False
            link._next_layer = max(link._next_layer, op.layer + 1)
        elif isinstance(op, wire.Set) and op.layer in made:
            prop = protocol.PROPERTIES_BY_ID[op.property]
            if prop.type == "layer":
                references.append((made[op.layer], op.property, op.value))
            elif prop.type == "image":
                made[op.layer]._values[op.property] = SessionImage(op.value) if op.value else None
                if op.value <= _MAX_RESTORED_NUMBER:  # (beyond, new numbers never reach it)
                    link._next_image = max(link._next_image, op.value + 1)
            else:
                made[op.layer]._values[op.property] = op.value
        elif isinstance(op, wire.Insert) and op.parent in made and op.child in made:
            parent, child = made[op.parent], made[op.child]
            if op.child == 0 or child._superlayer is not None or child is parent or child._is_ancestor_of(parent):
                raise ProtocolViolation(f"the session snapshot inserts layer {op.child} into {op.parent} twice or in a cycle")
            parent._sublayers.insert(min(op.index, len(parent._sublayers)), child)
            child._superlayer = parent
        elif isinstance(op, wire.SetAction) and op.layer in made and op.action != "inherit":
            action = None if op.action == "none" else EncodedAnimation(op.action)  # type: ignore[arg-type]
            made[op.layer]._actions[(op.dictionary, op.key)] = action
    masks = set()
    for layer, prop_id, number in references:
        if number in made:
            layer._values[prop_id] = made[number]
            masks.add(number)
    # Tags and completion groups far from the earlier program's (laminad reports both to this one).
    link._next_tag = 0x80000000 | (int.from_bytes(os.urandom(4), "little") & 0x3FFFFFFF)
    link._next_group = 0x80000000 | (int.from_bytes(os.urandom(4), "little") & 0x3FFFFFFF)
    return [l for n, l in made.items() if n != 0 and l._superlayer is None and n not in masks]


def held_animations(link: Link) -> List[wire.Operation]:
    """laminad's running animations on this session's layers under keys this connection does
    not hold (an earlier program's), from a `snapshot` request, as add-animations (untagged,
    their beginTimes resolved): asked during a reconnection, before the replay."""
    answer = link._exchange("snapshot")
    if isinstance(answer, LaminaError):
        return []
    kept = []
    for op in answer.value:
        layer = link._layers.get(op.layer) if isinstance(op, wire.AddAnimation) else None
        if layer is not None and op.key not in layer._animations:
            kept.append(wire.AddAnimation(op.layer, op.key, 0, op.animation))
    return kept
