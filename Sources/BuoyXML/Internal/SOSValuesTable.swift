import Foundation

/// The rows of one `swe:values` block, split into tokens and blocks as the character data
/// arrives, in pieces of any size: only the current token is buffered.
///
/// Each row becomes one ``BuoyObservationRecord`` when it carries at least one surf value
/// (a non-empty token in a column of a ``BuoyObservationProperty``); rows without any (all
/// empty, or a document whose columns are all other properties) are skipped after their
/// values are counted as ignored.
final class SOSValuesTable {
    /// What a column holds. A trivial enum (no strings inside), so reading one per token costs
    /// no reference counting.
    enum Column {
        case station
        case time
        case property(BuoyObservationProperty, unit: BuoyUnit?, reversesDirection: Bool)
        /// A property the model does not hold; the name is at this index of `ignoredNames`.
        case ignored(Int)
        case skipped
    }

    /// The state of the row being read. It lives in a local variable while a piece of text is
    /// consumed (and is stored back after), so that the per-token work touches no class
    /// property and pays no dynamic exclusivity check.
    private struct RowState {
        var columnIndex = 0
        var row = BuoyObservationRecord(stationID: "", time: Date(timeIntervalSince1970: 0))
        var hasContent = false
        var hasSurfValue = false
        var time: Date?
        var timeUnreadable = false
        var station: String?
        var ignoredCounts: [Int]
        /// The last station token's identifier, so that a station column costs a `String` only
        /// when the station changes.
        var lastStationID: String?
    }

    private let columns: [Column]
    private let ignoredNames: [String]
    private let tokenSeparator: [UInt8]
    private let blockSeparator: [UInt8]
    private let decimalSeparator: UInt8
    private let singleByteSeparators: Bool
    private let sink: ObservationSink
    private let constantStation: String?
    private let latitude: Double?
    private let longitude: Double?
    /// The start of a token that began in an earlier piece of text.
    private let pending: ByteBuffer
    private let lastStationToken: ByteBuffer
    /// The time token of the current row, as written, for the example of a skipped row.
    private let timeToken: ByteBuffer
    /// Where the `swe:values` start tag is, for the examples of skipped rows.
    private let valuesPosition: (line: Int, column: Int)?
    /// Rows that are not blank, read so far.
    private var rowNumber = 0
    private let tooLong: () -> any Error
    private var state: RowState

    init(
        columns: [Column],
        ignoredNames: [String],
        encoding: SOSEncoding,
        sink: ObservationSink,
        constantStation: String?,
        latitude: Double?,
        longitude: Double?,
        limits: BuoyXMLLimits,
        valuesPosition: (line: Int, column: Int)?,
        tooLong: @escaping () -> any Error
    ) {
        self.columns = columns
        self.ignoredNames = ignoredNames
        self.tokenSeparator = encoding.tokenSeparator
        self.blockSeparator = encoding.blockSeparator
        self.decimalSeparator = encoding.decimalSeparator
        self.singleByteSeparators = encoding.tokenSeparator.count == 1 && encoding.blockSeparator.count == 1
        self.sink = sink
        self.constantStation = constantStation
        self.latitude = latitude
        self.longitude = longitude
        self.pending = ByteBuffer(initialCapacity: 64, limit: limits.maximumTextBytes)
        self.lastStationToken = ByteBuffer(initialCapacity: 64, limit: limits.maximumTextBytes)
        self.timeToken = ByteBuffer(initialCapacity: 32, limit: limits.maximumTextBytes)
        self.valuesPosition = valuesPosition
        self.tooLong = tooLong
        self.state = RowState(ignoredCounts: Array(repeating: 0, count: ignoredNames.count))
    }

    func consume(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        var state = self.state
        defer { self.state = state }
        if singleByteSeparators {
            try consumeSplittingOnBytes(bytes, &state)
        } else {
            try consumeSplittingOnStrings(bytes, &state)
        }
    }

    /// The common case: tokens that lie within this piece are handled where they are; only a
    /// token cut by the end of the piece is copied.
    private func consumeSplittingOnBytes(_ bytes: UnsafeBufferPointer<UInt8>, _ state: inout RowState) throws {
        let tokenByte = tokenSeparator[0]
        let blockByte = blockSeparator[0]
        var hasPending = !pending.isEmpty
        var start = 0
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte == tokenByte || byte == blockByte {
                let piece = UnsafeBufferPointer(rebasing: bytes[start..<index])
                if hasPending {
                    guard pending.append(piece) else { throw tooLong() }
                    try endToken(pending.bytes, &state)
                    pending.removeAll()
                    hasPending = false
                } else {
                    try endToken(piece, &state)
                }
                if byte == blockByte {
                    try endRow(&state)
                }
                start = index + 1
            }
            index += 1
        }
        if count > start {
            guard pending.append(UnsafeBufferPointer(rebasing: bytes[start..<count])) else { throw tooLong() }
        }
    }

    private func consumeSplittingOnStrings(_ bytes: UnsafeBufferPointer<UInt8>, _ state: inout RowState) throws {
        for byte in bytes {
            guard pending.append(byte) else { throw tooLong() }
            if pending.hasSuffix(blockSeparator) {
                pending.removeLast(blockSeparator.count)
                try endToken(pending.bytes, &state)
                pending.removeAll()
                try endRow(&state)
            } else if pending.hasSuffix(tokenSeparator) {
                pending.removeLast(tokenSeparator.count)
                try endToken(pending.bytes, &state)
                pending.removeAll()
            }
        }
    }

    /// The end of `swe:values`: the last row needs no block separator.
    func finish() throws {
        var state = self.state
        defer { self.state = state }
        try endToken(pending.bytes, &state)
        pending.removeAll()
        try endRow(&state)
        for (index, name) in ignoredNames.enumerated() {
            sink.ignore(name, count: state.ignoredCounts[index])
        }
    }

    private func endToken(_ token: UnsafeBufferPointer<UInt8>, _ state: inout RowState) throws {
        defer { state.columnIndex += 1 }
        let value = ByteParsing.trimmed(token)
        guard !value.isEmpty else { return }
        state.hasContent = true
        guard state.columnIndex < columns.count else { return }
        switch columns[state.columnIndex] {
        case .time:
            guard timeToken.assign(value) else { throw tooLong() }
            if let time = UTCTimestamp.parseISO8601(value) {
                state.time = time
            } else {
                state.timeUnreadable = true
            }
        case .station:
            if state.lastStationID == nil || !lastStationToken.equals(value) {
                guard lastStationToken.assign(value) else { throw tooLong() }
                state.lastStationID = StationID.fromURN(String(decoding: value, as: UTF8.self))
            }
            state.station = state.lastStationID
        case .property(let property, let unit, let reversesDirection):
            state.hasSurfValue = true
            guard let number = ByteParsing.decimal(value, decimalSeparator: decimalSeparator) else {
                sink.rejectValue(BuoyRejection.notANumber(property))
                return
            }
            guard var accepted = sink.accept(number, in: unit, for: property) else { return }
            if reversesDirection {
                accepted = (accepted + 180).truncatingRemainder(dividingBy: 360)
            }
            state.row[property] = accepted
        case .ignored(let index):
            state.ignoredCounts[index] += 1
        case .skipped:
            break
        }
    }

    private func endRow(_ state: inout RowState) throws {
        defer {
            state.columnIndex = 0
            state.row = BuoyObservationRecord(stationID: "", time: state.row.time)
            state.hasContent = false
            state.hasSurfValue = false
            state.time = nil
            state.timeUnreadable = false
            state.station = nil
            timeToken.removeAll()
        }
        // A blank line, or the white space after the last block separator.
        guard state.hasContent else { return }
        rowNumber += 1
        sink.countRecord()
        guard state.columnIndex == columns.count else {
            sink.rejectRecord(BuoyRejection.rowWithWrongTokenCount, example: rowExample)
            return
        }
        guard state.hasSurfValue else { return }
        guard let time = state.time else {
            sink.rejectRecord(
                state.timeUnreadable ? BuoyRejection.recordWithUnreadableTime : BuoyRejection.recordWithoutTime,
                example: rowExample)
            return
        }
        guard let station = state.station ?? constantStation else {
            sink.rejectRecord(BuoyRejection.recordWithoutStation, example: rowExample)
            return
        }
        state.row.stationID = station
        state.row.time = time
        let latitude = self.latitude
        let longitude = self.longitude
        try sink.deliver(state.row) {
            BuoyStationRecord(stationID: station, latitude: latitude, longitude: longitude)
        }
    }
}

extension SOSValuesTable {
    /// The current row's time token, as written, with the row number; `nil` for a row
    /// without one.
    private func rowExample() -> BuoyDocumentText? {
        guard !timeToken.isEmpty else { return nil }
        return BuoyDocumentText(
            text: String(decoding: timeToken.bytes, as: UTF8.self),
            line: valuesPosition?.line, column: valuesPosition?.column, row: rowNumber)
    }
}

/// `swe:TextEncoding`: how `swe:values` separates tokens and blocks.
struct SOSEncoding {
    var tokenSeparator: [UInt8] = [UInt8(ascii: ",")]
    var blockSeparator: [UInt8] = [UInt8(ascii: "\n")]
    var decimalSeparator: UInt8 = UInt8(ascii: ".")

    /// A separator attribute: NDBC writes `blockSeparator="\n"` with a literal backslash, so the
    /// C escapes `\n`, `\r`, `\t` and `\\` are decoded (a real newline, `&#10;`, works too).
    static func separator(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var escaping = false
        for byte in text.utf8 {
            if escaping {
                switch byte {
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "t"): bytes.append(0x09)
                default: bytes.append(byte)
                }
                escaping = false
            } else if byte == UInt8(ascii: "\\") {
                escaping = true
            } else {
                bytes.append(byte)
            }
        }
        if escaping { bytes.append(UInt8(ascii: "\\")) }
        // XML turns every CR LF and lone CR of a text into LF before handing it over, so a
        // separator written with CR is taken as LF (values that spell CR as `&#13;` are not
        // supported).
        var normalized: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0D {
                normalized.append(0x0A)
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { index += 1 }
            } else {
                normalized.append(bytes[index])
            }
            index += 1
        }
        return normalized
    }
}
