@testable import SceneStore

// Two processes saving at once (Simulation.swift holds the other steps).

extension Simulation {
    /// What a contended step hears: the file system's pause events, and
    /// each flush as it ends.
    enum Turn: Sendable {
        case paused, blocked
        case finished(process: Int, saved: Bool)
    }

    /// Process `first` flushes and stops before its call the seed picks;
    /// process `second` flushes meanwhile. If the second meets a lock the
    /// first holds, the first goes on, ends (and settles), and then the
    /// second. Each save is booked when it ends; a key both had pending may
    /// hold either value (which save wrote last, the booking order cannot
    /// tell when the first stopped after its lock was let go).
    mutating func contend(_ processes: inout [Process], _ first: Int, _ second: Int) async {
        let (turns, turn) = AsyncStream.makeStream(of: Turn.self)
        system.pause(afterCalls: 1 + draw(12)) { turn.yield($0 == .paused ? .paused : .blocked) }
        defer { system.stopPausing() }
        let values = [first, second].map { processes[$0].pending.merging(processes[$0].retained) { one, _ in one } }
        let system = system
        let flush = { (index: Int, store: SceneStore) in
            _ = Task {
                let saved: Bool
                do {
                    try await store.flush()
                    saved = true
                } catch {
                    saved = false
                }
                // A pause only stops the first's flush: not what follows it
                // (its reload), which would hold up the second.
                if index == first { system.stopPausing() }
                turn.yield(.finished(process: index, saved: saved))
            }
        }
        flush(first, processes[first].store)
        var (paused, blocked, ended) = (false, false, 0)
        for await next in turns {
            switch next {
            case .paused:
                paused = true
                flush(second, processes[second].store)
            case .blocked:
                blocked = true
                system.resumePaused()
            case .finished(let index, let succeeded):
                book(&processes[index], saved: succeeded)
                trace.append("p\(index) flush \(succeeded ? "ok" : "failed")\(paused ? ", contended" : "")")
                ended += 1
                if index == first, blocked {
                    await settle(&processes[first])
                    system.releaseBlocked()
                } else if index == second, !blocked {
                    // Its reload done first: a lock it takes is not waited for.
                    await settle(&processes[second])
                    system.resumePaused()
                }
            }
            if ended == 2 || (ended == 1 && !paused) { break }
        }
        for key in Set(values[0].keys).intersection(values[1].keys) {
            for value in values { if let value = value[key] { maybe[key, default: []].insert(value) } }
        }
    }
}
