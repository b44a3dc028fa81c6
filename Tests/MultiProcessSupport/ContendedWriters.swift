/// Arguments for writer processes that contend for one scene, several at
/// once, on a machine that may be loaded (CI: 2 cores, the whole suite
/// beside them). Each save there is an `fsync` that can take seconds while
/// the disk is saturated, and a writer queues behind every other one's, so
/// it waits for the scene's lock up to a minute instead of the registry's
/// default 10 s, which suits an app, not a stress run. A lock wait that
/// still times out fails the writer, and the test with it: nothing is lost
/// unreported either way.
package let contendedWriter = ["--lock-timeout", "60"]
