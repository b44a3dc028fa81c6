import Testing

/// The library's own checks across real processes (`scenes-lab` writers,
/// probes and torture): SIGKILLs, lost updates, overflowing watchers, idle
/// CPU, the history check. They launch many processes and some measure
/// time, so they run one at a time.
@Suite(.serialized) enum MultiProcess {}
