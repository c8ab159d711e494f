/// Writes the last `width` decimal digits of `value` (zero-padded) into `text`, ending at index
/// `end`: for the fixed-width fields of the timestamps the spool writes into every job's name and
/// report, filled into a template in place rather than built from strings.
func putDigits(_ value: Int, width: Int, endingAt end: Int, in text: inout [UInt8]) {
    var value = value
    for index in stride(from: end, to: end - width, by: -1) {
        text[index] = UInt8(ascii: "0") + UInt8(value % 10)
        value /= 10
    }
}
