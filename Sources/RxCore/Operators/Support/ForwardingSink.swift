/// Forwards every event unchanged, with the grammar of `Sink` (nothing after a terminal event or
/// dispose): the sink of operators whose work is all in what they subscribe to and what its
/// upstream owns (`using`'s resource, `multicast(_:selector:)`'s connection), or in what it does when
/// disposed (`refCount`'s sink leaves the connection).
// @unchecked Sendable: no state beyond the atomic lifecycle word of Sink.
class ForwardingSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    override func onNext(_ element: Element) {
        forwardNext(element)
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        forwardCompleted()
    }
}
