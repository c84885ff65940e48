import Foundation

extension ObservableType {
    /// Prints every event of the sequence, its subscription and its disposal, with an identifier —
    /// RxSwift's `debug`, for finding out what a chain does.
    ///
    /// ```
    /// 2026-11-24 05:31:07.123: feed -> subscribed
    /// 2026-11-24 05:31:07.180: feed -> Event next(User(id: 1))
    /// 2026-11-24 05:31:07.180: feed -> Event completed
    /// 2026-11-24 05:31:07.180: feed -> isDisposed
    /// ```
    ///
    /// - Parameters:
    ///   - identifier: The prefix; default `file:line (function)` of the call.
    ///   - trimOutput: Whether to cut each event's description to 40 characters.
    ///   - file: The calling file, for the default identifier.
    ///   - line: The calling line, for the default identifier.
    ///   - function: The calling function, for the default identifier.
    /// - Returns: The same sequence.
    /// - Note: Prints on the thread of each event. Descriptions of elements and errors are printed as
    ///   they describe themselves: `HTTPClientError` redacts secrets, your own types must too.
    public func debug(
        _ identifier: String? = nil,
        trimOutput: Bool = false,
        file: String = #fileID,
        line: UInt = #line,
        function: String = #function
    ) -> Observable<Element> {
        let prefix = identifier ?? "\(file):\(line) (\(function))"
        let source = asObservable()
        return Observable.create { observer in
            DebugLog.print(prefix, "subscribed")
            let subscription = source.subscribe { event in
                let text: String
                switch event {
                case .next(let element): text = "Event next(\(element))"
                case .error(let error): text = "Event error(\(error))"
                case .completed: text = "Event completed"
                }
                DebugLog.print(prefix, trimOutput && text.count > 40 ? String(text.prefix(40)) + "..." : text)
                observer.on(event)
            }
            return Disposables.create {
                DebugLog.print(prefix, "isDisposed")
                subscription.dispose()
            }
        }
    }
}

/// The timestamped line `debug` prints.
enum DebugLog {
    static func print(_ prefix: String, _ text: String) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withFractionalSeconds, .withSpaceBetweenDateAndTime]
        Swift.print("\(formatter.string(from: Date())): \(prefix) -> \(text)")
    }
}
