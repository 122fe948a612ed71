// The snow case's Qt Quick peer (bench-frames.sh --qt with the snow case): bench-frames.sh's
// lamina-snow scene in Qt Quick Particles, on a black window:
//   500 flakes a second living 10 s, born anywhere on the 1280x720 window (CA's rectangle
//   shape), each the 8x8 white disc bench-frames.sh writes (flake.png, copied beside this
//   file), 8 px at scale 1 with 0.5 either way (8 ± 4 px);
//   velocity 40 ± 20 px/s at 90° (down) ± 0.5 rad (CA's emissionRange 1 spreads half of it
//   either way), 4 px/s² down;
//   spin 0.5 ± 2 rad/s from no rotation; colour (0.9, 0.95, 1) at alpha 0.9 ± 0.1.
// Lamina's emitter has been emitting since long before the window opens (its particles are a
// closed form of the layer's time, which is the system's), so it shows 5,000 particles from
// the first frame; `startTime` gives Qt's emitter the same ten seconds of history. Particles
// appear and vanish without Qt's default fade (`entryEffect`), as Core Animation's do.
// Qt Quick Particles also computes a particle's place on the GPU from its birth (position,
// velocity and acceleration go to the vertex shader), so this is like for like: one draw of
// every particle each frame, the rasterizer (llvmpipe) doing the rest.
import QtQuick
import QtQuick.Particles

Window {
    width: 1280
    height: 720
    visible: true
    color: "black"
    title: "peer-qt-snow"

    ParticleSystem {
        id: snow
        anchors.fill: parent
    }

    ImageParticle {
        system: snow
        source: "flake.png"
        color: Qt.rgba(0.9, 0.95, 1, 1)
        alpha: 0.9
        alphaVariation: 0.1
        rotation: 0
        rotationVelocity: 0.5 * 180 / Math.PI
        rotationVelocityVariation: 2 * 180 / Math.PI
        entryEffect: ImageParticle.None
    }

    Emitter {
        system: snow
        anchors.fill: parent
        emitRate: 500
        lifeSpan: 10000
        startTime: 10000
        size: 8
        sizeVariation: 4
        velocity: AngleDirection {
            angle: 90
            angleVariation: 0.5 * 180 / Math.PI
            magnitude: 40
            magnitudeVariation: 20
        }
        acceleration: PointDirection { y: 4 }
    }
}
