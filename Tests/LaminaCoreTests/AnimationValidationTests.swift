import Testing
import LaminaCore

@Suite("Animation validation")
struct AnimationValidationTests {
    @Test func validAnimationsHaveNoErrors() {
        #expect(Animation.basic(BasicAnimation(keyPath: "opacity", to: .number(0), duration: 1)).validate().isEmpty)
        #expect(Animation.keyframe(KeyframeAnimation(keyPath: "position", path: Path([.moveTo(.zero), .lineTo(Point(1, 1))]))).validate().isEmpty)
        #expect(Animation.spring(SpringAnimation(keyPath: "position.x", toValue: .number(3))).validate().isEmpty)
        #expect(Animation.transition(Transition()).validate().isEmpty)
    }

    @Test func eachProblemIsReportedWithItsInput() {
        let badType = Animation.basic(BasicAnimation(keyPath: "position", to: .number(3), duration: 1)).validate()
        #expect(badType == [.valueType(keyPath: "position", role: "toValue", expected: [.point], got: .number)])
        #expect(badType[0].description == "position: toValue is a number, expected point")

        let three = Animation.basic(BasicAnimation(keyPath: "opacity", from: .number(0), to: .number(1), by: .number(1), duration: 1))
        #expect(three.validate() == [.tooManyValues(keyPath: "opacity")])

        var timing = BasicAnimation(keyPath: "opacity", to: .number(1), duration: -1)
        timing.repeatCount = 2
        timing.repeatDuration = 3
        timing.speed = .nan
        let errors = Animation.basic(timing).validate()
        #expect(errors.count == 3)
        #expect(errors.contains(.conflictingRepeat(repeatCount: 2, repeatDuration: 3)))

        let noFrames = Animation.keyframe(KeyframeAnimation(keyPath: "opacity")).validate()
        #expect(noFrames == [.noKeyframes(keyPath: "opacity")])

        let pathOnNumber = Animation.keyframe(KeyframeAnimation(keyPath: "opacity", path: Path([.moveTo(.zero), .lineTo(Point(1, 1))])))
        #expect(pathOnNumber.validate() == [.pathNeedsPointProperty(keyPath: "opacity")])

        let emptyPath = Animation.keyframe(KeyframeAnimation(keyPath: "position", path: Path([.moveTo(.zero)])))
        #expect(emptyPath.validate() == [.invalidPath(keyPath: "position", reason: "no line or curve elements")])

        let mixed = Animation.keyframe(KeyframeAnimation(keyPath: "position", values: [.point(.zero), .number(1)]))
        #expect(mixed.validate() == [.valueType(keyPath: "position", role: "values[1]", expected: [.point], got: .number)])

        var vf = BasicAnimation(keyPath: "opacity", to: .number(1), duration: 1)
        vf.valueFunction = .rotateZ
        #expect(Animation.basic(vf).validate() == [.valueFunctionNeedsTransform(keyPath: "opacity")])

        let spring = Animation.spring(SpringAnimation(keyPath: "opacity", toValue: .number(1), mass: 0, damping: -1))
        #expect(spring.validate().count == 2)

        let transition = Animation.transition(Transition(startProgress: 0.8, endProgress: 0.2))
        #expect(transition.validate() == [.transitionProgress(start: 0.8, end: 0.2)])

        let group = Animation.group(AnimationGroup([.basic(BasicAnimation(keyPath: "nope", duration: 1))], duration: 1))
        guard case .inGroup(0, .keyPath(.unknownProperty(keyPath: "nope", property: "nope", valid: _))) = group.validate().first else {
            Issue.record("group child error not reported: \(group.validate())")
            return
        }
    }

    @Test func nonFiniteValuesAreRefused() {
        let a = Animation.basic(BasicAnimation(keyPath: "opacity", from: .number(.nan), to: .number(1), duration: 1))
        #expect(a.validate() == [.notFinite(keyPath: "opacity", role: "fromValue")])
    }

    @Test func valueFunctionsTakeTheirInputTypes() {
        var scale = BasicAnimation(keyPath: "transform", from: .point(Point(1, 1)), to: .point(Point(2, 3)), duration: 1)
        scale.valueFunction = .scale
        #expect(Animation.basic(scale).validate().isEmpty)
        scale.valueFunction = .rotateZ
        #expect(Animation.basic(scale).validate().count == 2)
    }
}

@Suite("Keyframe spline parameters")
struct KeyframeSplineParameterValidationTests {
    // A NaN tension would otherwise reach the spline on every frame (hand reasoning).
    @Test func nonFiniteTensionIsRefused() {
        var k = KeyframeAnimation(keyPath: "opacity", values: [.number(0), .number(1), .number(0)])
        k.calculationMode = .cubic
        k.tensionValues = [0, .nan, 0]
        #expect(Animation.keyframe(k).validate().contains(.notFinite(keyPath: "opacity", role: "tensionValues[1]")))
        k.tensionValues = [0, 0.5, 0]
        #expect(Animation.keyframe(k).validate().isEmpty)
    }
}
