import Foundation
import Logging

extension SceneRegistry {
    /// When a store writes what was set.
    public enum SavePolicy: Sendable, Equatable {
        /// Throttle saves to one per `window`: a set on a quiet store saves
        /// at once; sets made while a save runs or within `window` after it
        /// are gathered into the next save, `window` after the last ended.
        /// `.coalesced(.zero)` saves again as soon as a save ends.
        case coalesced(Duration)
        /// Save only on ``SceneStore/flush()`` and when the registry closes
        /// (deterministic tests; apps that flush at known points).
        case onFlush

        /// The configuration's default, `.coalesced(.milliseconds(30))`
        /// (for the package's code).
        package static let `default` = SavePolicy.coalesced(.milliseconds(30))

        /// `.coalesced(.zero)`, for the package's tests.
        package static let writeThrough = SavePolicy.coalesced(.zero)
    }

    /// Size limits on what this process writes, each enforced by a typed
    /// error naming the key and limit.
    ///
    /// They bound writes only: a scene another process wrote under larger
    /// limits is read whole, up to ``largest``, the limits every SceneStore
    /// reads. A limit set above its ``largest`` counterpart is lowered to it.
    public struct Limits: Sendable, Equatable {
        /// Key length in UTF-8 bytes (1...this).
        public var maxKeyBytes = 256 { didSet { maxKeyBytes = min(maxKeyBytes, Self.largest.maxKeyBytes) } }
        /// One value's size in bytes (string UTF-8, Data bytes, URL string).
        public var maxValueBytes = 1 << 20 { didSet { maxValueBytes = min(maxValueBytes, Self.largest.maxValueBytes) } }
        /// Keys plus values of one scene, in bytes.
        public var maxSceneBytes = 8 << 20 { didSet { maxSceneBytes = min(maxSceneBytes, Self.largest.maxSceneBytes) } }

        /// The default limits: 256, 1 MiB and 8 MiB.
        public init() {}

        private init(largestKey: Int, value: Int, scene: Int) {
            maxKeyBytes = largestKey
            maxValueBytes = value
            maxSceneBytes = scene
        }

        /// The most any process may write, and so what every reading
        /// accepts: keys of 4 KiB, values and scenes of 64 MiB. A stored
        /// scene beyond them is damage (quarantined); one within them is
        /// read whatever this process's own limits are.
        public static let largest = Limits(largestKey: 4 << 10, value: 64 << 20, scene: 64 << 20)
    }

    /// How a registry behaves; the defaults suit an app.
    public struct Configuration: Sendable {
        /// When a store writes what was set. By default
        /// `.coalesced(.milliseconds(30))`: an isolated set reaches the
        /// disk (and other processes) at once; a burst of sets costs one
        /// write per 30 ms.
        public var savePolicy: SavePolicy
        /// The size limits on keys, values and scenes.
        public var limits: Limits
        /// How changes by other processes are noticed.
        public var watcher: WatcherPreference
        /// Where the registry logs what it does not throw: a save that
        /// failed in the background, a watcher that degraded, a file moved
        /// to quarantine.
        public var logger: Logger
        /// How long a save, discard or recovery waits for the scene lock
        /// that another process holds before it fails with
        /// ``SceneStoreError/lockTimeout(scene:holderPID:waited:)``
        /// (nothing is written then; a background save retries later).
        /// Saves hold the lock for about a millisecond, so only a stopped
        /// or stuck process ever makes anyone wait this long.
        public var lockTimeout: Duration
        /// Whether the registry only reads (inspection tools); `false`, the
        /// default, creates the root, saves, discards and recovers damaged
        /// files. A read-only registry creates nothing on disk (no root,
        /// lock file or quarantine) and never takes a lock. A missing root
        /// holds no scenes; a damaged file is left in place and its scene
        /// reads as empty. `set`, `flush` and ``SceneRegistry/discard(_:)``
        /// throw ``SceneStoreError/readOnly(scene:)``;
        /// ``SceneStore/removeValue(for:)`` is a logged no-op; closing
        /// writes nothing.
        public var readOnly: Bool

        /// The clock that save coalescing, the back-off after a failed
        /// save, the file lock's timeout and a binding's retry run on: the
        /// continuous clock, unless a test passes a manual one
        /// (SceneStoreTesting's `ManualClock`) to advance instead of
        /// sleeping.
        public var clock: any Clock<Duration>
        /// Window scenes nobody reopened for this long are closed for good
        /// at launch (``SceneRegistry/scenesToRestore()``); `nil`, the
        /// default, keeps them until the app closes them.
        public var restorableExpiry: Duration? = nil
        /// The calendar time window scenes are stamped with (created, last
        /// active) and expire by: `Date()`, unless a test passes its own.
        /// A second source of time on purpose: these stamps are stored and
        /// compared by other processes, after a reboot too, where a
        /// ``clock`` instant means nothing; every wait uses ``clock``.
        public var now: @Sendable () -> Date = { Date() }

        /// A configuration; each parameter is the property of its name.
        public init(
            savePolicy: SavePolicy = .coalesced(.milliseconds(30)),
            limits: Limits = Limits(),
            watcher: WatcherPreference = .automatic,
            logger: Logger = Logger(label: "SceneStore"),
            lockTimeout: Duration = .seconds(10),
            readOnly: Bool = false,
            clock: any Clock<Duration> = ContinuousClock()
        ) {
            self.savePolicy = savePolicy
            self.limits = limits
            self.watcher = watcher
            self.logger = logger
            self.lockTimeout = lockTimeout
            self.readOnly = readOnly
            self.clock = clock
        }
    }
}
