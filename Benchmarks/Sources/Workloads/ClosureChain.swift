// The floor every workload is compared against: the same pipeline as plain closures calling
// closures. No locks, no lifecycle word, no disposal, no terminal events; only the indirect calls
// and captured contexts that any push-based chain pays.

/// A push source made of plain closures: `run` hands each element to the downstream closure.
struct ClosureSource<Element> {
    let run: (@escaping (Element) -> Void) -> Void

    @inline(never)
    func map<Result>(_ transform: @escaping (Element) -> Result) -> ClosureSource<Result> {
        let upstream = run
        return ClosureSource<Result> { downstream in
            upstream { downstream(transform($0)) }
        }
    }

    @inline(never)
    func filter(_ predicate: @escaping (Element) -> Bool) -> ClosureSource<Element> {
        let upstream = run
        return ClosureSource { downstream in
            upstream { if predicate($0) { downstream($0) } }
        }
    }

    @inline(never)
    func flatMap<Result>(_ transform: @escaping (Element) -> ClosureSource<Result>) -> ClosureSource<Result> {
        let upstream = run
        return ClosureSource<Result> { downstream in
            upstream { transform($0).run(downstream) }
        }
    }

    @inline(never)
    func subscribe(_ onNext: @escaping (Element) -> Void) {
        run(onNext)
    }

    @inline(never)
    static func just(_ element: Element) -> ClosureSource<Element> {
        ClosureSource { $0(element) }
    }
}

/// Where a closure-based "create" keeps the downstream it was handed, so a loop can push into it.
final class ClosureOutlet<Element> {
    var push: (Element) -> Void = { _ in }

    /// A source whose `run` stores the downstream here.
    func source() -> ClosureSource<Element> {
        ClosureSource { [unowned self] downstream in self.push = downstream }
    }
}

/// A callback "single" of plain closures: the floor for Single.create → map → subscribe.
struct ClosureSingle<Element> {
    let run: (@escaping (Result<Element, Error>) -> Void) -> Void

    @inline(never)
    func map<Mapped>(_ transform: @escaping (Element) -> Mapped) -> ClosureSingle<Mapped> {
        let upstream = run
        return ClosureSingle<Mapped> { downstream in
            upstream { downstream($0.map(transform)) }
        }
    }
}
