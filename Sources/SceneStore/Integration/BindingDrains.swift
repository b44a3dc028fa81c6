/// The bindings of one store (``SceneStore/bind(_:on:)``, SceneNavigation's
/// `PathBinding.bind`): what each must hand over before the store closes.
///
/// A model edit reaches a binding through Observation, one main-actor turn
/// later; a `close()` right after the edit must not overtake it. So a
/// closing store first awaits every binding's ``BindingRunner/settle()``
/// (the model read directly, its edit committed), then flushes.
package final class BindingDrains: Sendable {
    private let runners = Locked<[ObjectIdentifier: BindingRunner]>([:])

    init() {}

    func add(_ runner: BindingRunner) {
        runners.withLock { $0[ObjectIdentifier(runner)] = runner }
    }

    func remove(_ runner: BindingRunner) {
        runners.withLock { $0[ObjectIdentifier(runner)] = nil }
    }

    /// Returns once every binding handed its model's edits to the store.
    func settleAll() async {
        let all = runners.withLock { Array($0.values) }
        for runner in all { await runner.settle() }
    }
}
