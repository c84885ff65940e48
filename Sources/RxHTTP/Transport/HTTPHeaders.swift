/// The header fields of an HTTP message: in the order they came, names compared without regard
/// to case, repeated fields kept (two `WWW-Authenticate` challenges, several `Set-Cookie`, `Link`
/// or `Warning` lines).
///
/// The subscript reads a field as one value: the first, or, for a field whose definition is a
/// list (RFC 9110 §5.3: `Cache-Control`, `Vary`, `WWW-Authenticate`, `Link`, …), every line
/// combined with ", " — what a dictionary of headers held, without losing the lines:
/// `values(for:)` gives each one. `Set-Cookie` is never combined (§5.3), and neither is a field
/// that takes one value (`Content-Type`, `ETag`, `Location`, …), whose first line counts.
///
/// ```swift
/// let headers: HTTPHeaders = ["Set-Cookie": "a=1", "Set-Cookie": "b=2", "Cache-Control": "max-age=60"]
/// headers.values(for: "set-cookie")     // ["a=1", "b=2"]
/// headers["SET-COOKIE"]                 // "a=1"
/// ```
///
/// A dictionary literal or a `[String: String]` makes one, so code written for dictionary headers
/// keeps compiling; iterating gives `(name, value)` pairs in order.
///
/// - Note: A value type; `Sendable`. Its description redacts the values of secret fields
///   (`Authorization`, `Cookie`, `Set-Cookie`, anything named like a token), as the client's logs do.
///   SwiftNIO's `NIOHTTP1` has a type of the same name: a file that imports both spells them
///   `RxHTTP.HTTPHeaders` and `NIOHTTP1.HTTPHeaders`.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One field line.
    @usableFromInline
    struct Field: Sendable, Hashable {
        @usableFromInline var name: String
        @usableFromInline var value: String

        @inlinable
        init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The lines, in order. Inlinable (with `add` and `reserveCapacity`) so that a transport in
    /// another module fills it without a generic, unspecialized call per line.
    @usableFromInline private(set) var fields: [Field]

    /// No fields.
    public init() {
        fields = []
    }

    /// The fields of `pairs`, in their order; repeated names are kept.
    ///
    /// - Parameter pairs: Names and values, e.g. `[("Accept", "application/json")]`.
    public init<Pairs: Sequence>(_ pairs: Pairs) where Pairs.Element == (String, String) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// The fields of a dictionary, sorted by name (a dictionary has no order of its own, and a
    /// stable one keeps requests and logs reproducible).
    ///
    /// - Parameter dictionary: Names and values; one line per name.
    public init(_ dictionary: [String: String]) {
        fields = dictionary.sorted { $0.key < $1.key }.map { Field(name: $0.key, value: $0.value) }
    }

    /// The fields of the literal, in its order; a name may repeat.
    ///
    /// - Parameter elements: Names and values.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    // MARK: Reading

    /// The number of field lines (a repeated name counts each time).
    public var count: Int { fields.count }

    /// Whether there is no field.
    public var isEmpty: Bool { fields.isEmpty }

    /// The names in order, each as first written, without repeats (compared without case).
    public var names: [String] {
        // A set, not a scan of the names so far: a hostile answer may carry thousands of lines.
        var seen = Set<String>()
        return fields.compactMap { seen.insert($0.name.lowercased()).inserted ? $0.name : nil }
    }

    /// Whether a field named `name` (in any case) is present.
    ///
    /// - Parameter name: The field name.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.equal($0.name, name) }
    }

    /// Every value of the field `name` (in any case), one per line, in order; empty when absent.
    /// A line is not split at its commas.
    ///
    /// - Parameter name: The field name.
    /// - Returns: The values.
    public func values(for name: String) -> [String] {
        fields.compactMap { Self.equal($0.name, name) ? $0.value : nil }
    }

    /// The field `name` (in any case) as one value, or nil when absent: its first line, or every
    /// line combined with ", " for a field defined as a list (RFC 9110 §5.3; never `Set-Cookie`).
    /// Setting it replaces every line of that name with one (at the first one's place), or
    /// removes them all when nil.
    public subscript(name: String) -> String? {
        get {
            guard let first = fields.firstIndex(where: { Self.equal($0.name, name) }) else { return nil }
            let value = fields[first].value
            // Most fields come once: the list rule is looked up only for a second line.
            guard let second = fields[(first + 1)...].firstIndex(where: { Self.equal($0.name, name) }),
                Self.isList(name)
            else { return value }
            var combined = value
            for field in fields[second...] where Self.equal(field.name, name) {
                combined += ", " + field.value
            }
            return combined
        }
        set {
            guard let newValue else {
                remove(name)
                return
            }
            replaceOrAdd(name: name, value: newValue)
        }
    }

    /// The sequence's iterator: the fields as `(name, value)`, in order.
    public struct Iterator: IteratorProtocol {
        private var base: IndexingIterator<[Field]>

        init(_ fields: [Field]) {
            base = fields.makeIterator()
        }

        /// The next field, or nil after the last.
        public mutating func next() -> (name: String, value: String)? {
            base.next().map { ($0.name, $0.value) }
        }
    }

    /// The fields as `(name, value)`, in order.
    public func makeIterator() -> Iterator {
        Iterator(fields)
    }

    // MARK: Changing

    /// Appends a line, after any of the same name.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The value.
    @inlinable
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Makes room for `minimumCapacity` lines, for a caller that knows how many it will add.
    ///
    /// - Parameter minimumCapacity: The number of lines.
    @inlinable
    public mutating func reserveCapacity(_ minimumCapacity: Int) {
        fields.reserveCapacity(minimumCapacity)
    }

    /// Sets the field `name` to `value`: one line, where the first of that name was (any case),
    /// or at the end.
    ///
    /// - Parameters:
    ///   - name: The field name, as it will be written.
    ///   - value: The value.
    public mutating func replaceOrAdd(name: String, value: String) {
        guard let first = fields.firstIndex(where: { Self.equal($0.name, name) }) else {
            fields.append(Field(name: name, value: value))
            return
        }
        fields[first] = Field(name: name, value: value)
        var index = first + 1
        while index < fields.count {
            if Self.equal(fields[index].name, name) { fields.remove(at: index) } else { index += 1 }
        }
    }

    /// Removes every line of the field `name` (in any case).
    ///
    /// - Parameter name: The field name.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.equal($0.name, name) }
    }

    // MARK: Equality, description

    /// Whether both have the same lines in the same order, names compared without case.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { equal($0.name, $1.name) && $0.value == $1.value }
    }

    /// Hashes the lines, names folded to lower case (consistent with `==`).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields.count)
        for field in fields {
            hasher.combine(field.name.lowercased())
            hasher.combine(field.value)
        }
    }

    /// The fields as `[Name: value, …]`, the values of secret fields (`Authorization`, `Cookie`,
    /// anything named like a token or a key) redacted.
    public var description: String {
        "[" + Redaction.standard.headers(self).map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "]"
    }

    // MARK: Rules

    /// Whether `a` and `b` name the same field. Header names are ASCII tokens: the comparison folds
    /// ASCII letters on UTF-8 bytes without allocating (it runs several times per response).
    static func equal(_ a: String, _ b: String) -> Bool {
        HeaderFields.equalsIgnoringASCIICase(a, b)
    }

    /// Whether RFC 9110 lets the lines of `name` be combined into one with ", ": true for list
    /// fields and for fields this type does not know (most extension fields are lists), false for
    /// `Set-Cookie` (RFC 6265 §3) and the fields that take a single value.
    static func isList(_ name: String) -> Bool {
        !singleValued.contains { equal($0, name) }
    }

    /// Fields whose lines must not be combined: their first line is their value.
    private static let singleValued = [
        "Set-Cookie", "Content-Type", "Content-Length", "Content-Location", "Content-Range", "Date",
        "ETag", "Expires", "Last-Modified", "Location", "Retry-After", "Age", "Authorization",
        "Proxy-Authorization", "Host", "If-Range", "If-Modified-Since", "If-Unmodified-Since",
        "Max-Forwards", "Referer", "User-Agent", "Server", "From",
        // HTTP/1.1 allows one `Cookie` line; HTTP/2's several would be combined with "; ", not ", ".
        "Cookie",
    ]
}
