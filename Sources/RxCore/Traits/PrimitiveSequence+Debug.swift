extension PrimitiveSequence {
    /// Prints the sequence's event, subscription and disposal; see
    /// `ObservableType.debug(_:trimOutput:file:line:function:)`.
    ///
    /// - Parameters:
    ///   - identifier: The prefix; default `file:line (function)` of the call.
    ///   - trimOutput: Whether to cut each event's description to 40 characters.
    ///   - file: The caller's file, for the default prefix.
    ///   - line: The caller's line, for the default prefix.
    ///   - function: The caller's function, for the default prefix.
    /// - Returns: The same sequence.
    /// - Note: Prints on the thread of each event.
    public func debug(
        _ identifier: String? = nil,
        trimOutput: Bool = false,
        file: String = #fileID,
        line: UInt = #line,
        function: String = #function
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: source.debug(identifier, trimOutput: trimOutput, file: file, line: line, function: function))
    }
}
