// The glass case's Qt Quick peer (bench-frames.sh --qt with the glass case): the peer scene's
// 100 moving rectangles (../shared/peers/scene-animated.qml, kept in step with it) under a
// 400x300 frosted panel in the middle, as bench-frames.sh's lamina-glass scene has it:
//   the panel at (440, 210), corners 16, over what lies behind it blurred by a Gaussian of
//   radius 20 (Lamina's inputRadius is three standard deviations: deviation 20 / 3), then a
//   25 % white fill.
// With Debian 12's Qt 6.4 the blur is Qt5Compat.GraphicalEffects' GaussianBlur (Qt's
// MultiEffect came in 6.5): what lies behind the panel, and 20 px around it for the blur to
// read, is drawn live into a texture (ShaderEffectSource), blurred in two passes of 41 taps,
// and drawn through a rounded mask (OpacityMask).
import QtQuick
import Qt5Compat.GraphicalEffects

Window {
    id: win
    width: 1280
    height: 720
    visible: true
    color: "black"
    title: "peer-qt-glass"

    Item {
        id: content
        width: 1280
        height: 720

        // The window's black, inside what the panel captures: the backdrop is opaque, as the
        // display Lamina's backdrop reads is, so the blur hides what lies behind the panel.
        Rectangle {
            anchors.fill: parent
            color: "black"
        }

        Repeater {
            model: 100
            delegate: Rectangle {
                id: r
                required property int index
                readonly property real modelX: (index % 10) * 122
                readonly property int startDelayMs: index * 20

                x: modelX
                y: Math.floor(index / 10) * 71
                width: 120
                height: 80
                radius: 12
                color: Qt.hsva(index / 100, 1, 1, 1)
                border.width: 2
                border.color: "white"
                opacity: 0.85

                SequentialAnimation {
                    running: true
                    PauseAnimation { duration: r.startDelayMs }
                    SequentialAnimation {
                        loops: Animation.Infinite
                        NumberAnimation {
                            target: r; property: "x"; from: r.modelX; to: r.modelX + 60; duration: 2000
                            easing.type: Easing.BezierSpline; easing.bezierCurve: [0.42, 0, 0.58, 1, 1, 1]
                        }
                        NumberAnimation {
                            target: r; property: "x"; from: r.modelX + 60; to: r.modelX; duration: 2000
                            easing.type: Easing.BezierSpline; easing.bezierCurve: [0.42, 0, 0.58, 1, 1, 1]
                        }
                    }
                }
                SequentialAnimation {
                    running: true
                    PauseAnimation { duration: r.startDelayMs }
                    SequentialAnimation {
                        loops: Animation.Infinite
                        NumberAnimation { target: r; property: "opacity"; from: 0.85; to: 0.35; duration: 3000 }
                        NumberAnimation { target: r; property: "opacity"; from: 0.35; to: 0.85; duration: 3000 }
                    }
                }
            }
        }
    }

    Item {
        id: glass
        x: 440
        y: 210
        width: 400
        height: 300
        readonly property int reach: 20

        // What lies behind the panel and as far around it as the blur reads, redrawn each frame.
        ShaderEffectSource {
            id: behind
            visible: false
            sourceItem: content
            live: true
            sourceRect: Qt.rect(glass.x - glass.reach, glass.y - glass.reach,
                                glass.width + 2 * glass.reach, glass.height + 2 * glass.reach)
            width: glass.width + 2 * glass.reach
            height: glass.height + 2 * glass.reach
        }
        GaussianBlur {
            id: blur
            visible: false
            x: -glass.reach
            y: -glass.reach
            width: behind.width
            height: behind.height
            source: behind
            radius: 20
            samples: 41
            deviation: 20 / 3
        }
        // The panel's rounded shape, in the blur's coordinates.
        Item {
            id: shape
            visible: false
            width: behind.width
            height: behind.height
            Rectangle {
                x: glass.reach
                y: glass.reach
                width: glass.width
                height: glass.height
                radius: 16
                color: "white"
            }
        }
        OpacityMask {
            x: -glass.reach
            y: -glass.reach
            width: behind.width
            height: behind.height
            source: blur
            maskSource: shape
        }
        Rectangle {
            anchors.fill: parent
            radius: 16
            color: Qt.rgba(1, 1, 1, 0.25)
        }
    }
}
