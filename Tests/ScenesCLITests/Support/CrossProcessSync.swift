import Testing

/// The cross-process checks of the CLI and the demo. They launch many
/// `scenes` processes and some measure time, so they run one at a time.
@Suite(.serialized) enum CrossProcessSync {}
