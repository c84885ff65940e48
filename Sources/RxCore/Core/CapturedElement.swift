/// An element an operator captures in a `@Sendable` closure to emit it later, possibly on another
/// thread (`catchAndReturn`, `ifEmpty(default:)`, `just(_:scheduler:)`, …).
///
/// Rx elements are not required to be `Sendable` (RxSwift's are not): every operator that crosses
/// threads (`observe(on:)`, `subscribe(on:)`, timers) hands elements over as they are, and the
/// grammar serializes what reaches one observer. A captured element is one more such hand-over, so
/// this box states that rule where the compiler would otherwise ask for `Element: Sendable`. It is
/// the only place (with `SendingHandoff` for the async bridge) where an element crosses into a
/// `@Sendable` closure unchecked.
// @unchecked Sendable: see above; the box itself is immutable.
struct CapturedElement<Element>: @unchecked Sendable {
    let value: Element

    init(_ value: Element) {
        self.value = value
    }
}
