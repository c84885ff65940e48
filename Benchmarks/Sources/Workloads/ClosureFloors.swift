// Floors for the multi-source workloads: plain closures and arrays, no locks, no disposal.

/// A zip of two closure streams: elements wait in arrays until their partner arrives.
final class ClosureZip<Left, Right> {
    var downstream: ((Left, Right)) -> Void = { _ in }
    private var lefts: [Left] = []
    private var rights: [Right] = []

    func pushLeft(_ left: Left) {
        if rights.isEmpty {
            lefts.append(left)
        } else {
            downstream((left, rights.removeFirst()))
        }
    }

    func pushRight(_ right: Right) {
        if lefts.isEmpty {
            rights.append(right)
        } else {
            downstream((lefts.removeFirst(), right))
        }
    }
}

/// A closure "subject": every subscribed downstream closure is kept in an array.
final class ClosureFanOut<Element> {
    private var downstreams: [(Element) -> Void] = []

    /// A source whose `run` adds the downstream to the array.
    func source() -> ClosureSource<Element> {
        ClosureSource { [unowned self] downstream in self.downstreams.append(downstream) }
    }

    func push(_ element: Element) {
        for downstream in downstreams { downstream(element) }
    }

    func removeAll() {
        downstreams.removeAll()
    }
}
