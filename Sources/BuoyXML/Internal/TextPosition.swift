/// A line and a column in a document, both from 1, the column counting characters (UTF-8
/// continuation bytes do not move it), as the positions in error messages do.
struct TextPosition {
    var line: Int
    var column: Int

    /// Moves past `bytes` of UTF-8 text.
    mutating func advance(over bytes: some Sequence<UInt8>) {
        for byte in bytes {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
    }
}
