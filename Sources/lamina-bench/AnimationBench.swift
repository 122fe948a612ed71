import LaminaCore
func runAnimationBenchmark() -> String { "todo" }
