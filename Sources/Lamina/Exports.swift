// What a client uses comes with `import Lamina`: the model's types (geometry, colours,
// transforms, animations, timing, paths; LaminaCore) and the protocol's values that appear in
// this library's API (actions, input events, errors, statistics; LaminaProtocol), so that a
// package depending on the `Lamina` product alone can use them and implement `LayerDelegate`.
@_exported import LaminaCore
@_exported import LaminaProtocol
