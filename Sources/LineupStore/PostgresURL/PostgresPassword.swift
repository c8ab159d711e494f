/// A password, which describes, debug-describes and dumps itself as `***`: a settings value
/// that holds one can be logged or interpolated by mistake and still not show it.
package struct PostgresPassword: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The password itself, for the server and nothing else.
    package let text: String

    package init(_ text: String) {
        self.text = text
    }

    package var description: String { "***" }
    package var debugDescription: String { "***" }
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
