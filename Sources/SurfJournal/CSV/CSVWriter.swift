public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes an RFC 4180 CSV file, streaming, and puts it in place atomically.
///
/// Rows go into a 64 KiB byte buffer that is written to a temporary file beside the
/// destination (`.<name>.tmp-<unique>`). ``finish()`` flushes, fsyncs and renames it over
/// the destination, so a reader sees either the old file or the complete new one. If the
/// writer is cancelled, released without ``finish()``, or hits an error, the temporary file
/// is removed and an existing destination is left untouched.
///
/// Format:
/// - CRLF line endings, a header row, every row with as many fields as the header.
/// - A text field is quoted when it holds a comma, a double quote, CR or LF; quotes inside
///   are doubled. An empty string is written `""`; ``CSVField/null`` is an empty field, so
///   the two read back apart.
/// - Integers in plain decimal digits.
/// - Doubles in Swift's shortest round-trip digits, locale-independent: `0.1`, `3.0`,
///   `-2.5`. Plain decimal notation is used for magnitudes from 1e-6 up to 1e21 (where
///   Swift's `description` would switch to `1e-05` or `1e+16`), exponent notation outside
///   that range (`1e-07`, `1e+21`), as JavaScript's number formatting does; NaN and the
///   infinities are written `nan`, `inf`, `-inf`. `Double(String)` reads every form back
///   to the same value.
/// - Dates in ISO 8601 UTC, `YYYY-MM-DDTHH:MM:SSZ`, with a fraction of a second only when
///   it is non-zero, to the microsecond with trailing zeros removed
///   (`2014-08-29T14:02:09.299382Z`, `2004-09-02T07:03:08.7906Z`). Years 0000–9999 only.
///
/// A writer is used from one thread at a time and is not `Sendable`.
public final class CSVWriter {
    /// The file that ``finish()`` creates or replaces.
    public let destination: URL
    /// The number of fields of every row.
    public let columnCount: Int
    /// Data rows written so far (not counting the header).
    public private(set) var rowCount = 0

    private enum State {
        case open(fileDescriptor: Int32)
        case finished
        case cancelled
        case failed(CSVWriterError)
    }

    private var state: State
    private let temporaryPath: String
    private var buffer: [UInt8] = []
    private let bufferCapacity: Int
    private var bytesFlushed = 0

    /// Creates the temporary file beside `destination` and buffers the header row.
    ///
    /// - Throws: ``CSVWriterError/Code/cannotCreate`` naming the destination, when its
    ///   directory is missing or not writable or when the destination is a directory.
    public convenience init(destination: URL, header: [String]) throws {
        try self.init(destination: destination, header: header, bufferCapacity: 64 * 1024, openFile: Self.createFile)
    }

    /// The designated initializer, with the buffer size and the way the temporary file is
    /// opened as parameters so that tests can force small flushes and real write errors.
    /// `openFile` gets the temporary path and returns a descriptor, or -1 with `errno` set.
    package init(destination: URL, header: [String], bufferCapacity: Int, openFile: (String) -> Int32) throws {
        precondition(!header.isEmpty, "a CSV file needs at least one column")
        precondition(bufferCapacity > 0, "bufferCapacity must be positive")
        self.destination = destination
        self.columnCount = header.count
        self.bufferCapacity = bufferCapacity
        let directory = destination.deletingLastPathComponent().path
        let unique = "\(getpid())-\(String(UInt64.random(in: .min ... .max), radix: 36))"
        self.temporaryPath = URL(fileURLWithPath: directory)
            .appendingPathComponent(".\(destination.lastPathComponent).tmp-\(unique)").path

        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CSVWriterError(code: .cannotCreate, path: destination.path, reason: "the destination is a directory")
        }
        let fileDescriptor = openFile(temporaryPath)
        guard fileDescriptor >= 0 else {
            let errorNumber = errno
            throw CSVWriterError(
                code: .cannotCreate,
                path: destination.path,
                reason: "cannot create a temporary file in \(directory)",
                errorNumber: errorNumber
            )
        }
        self.state = .open(fileDescriptor: fileDescriptor)
        buffer.reserveCapacity(bufferCapacity + 1_024)
        for (index, name) in header.enumerated() {
            if index > 0 { buffer.append(CSVEncoding.comma) }
            CSVEncoding.appendText(name, to: &buffer)
        }
        buffer.append(CSVEncoding.carriageReturn)
        buffer.append(CSVEncoding.lineFeed)
    }

    deinit {
        discardTemporaryFile()
    }

    /// Appends one row. Its field count must equal the header's.
    ///
    /// - Throws: ``CSVWriterError/Code/writeFailed`` when flushing the buffer fails (the
    ///   temporary file is then removed and every later call rethrows the same error), or
    ///   ``CSVWriterError/Code/invalidValue`` for a date outside years 0000–9999 (the row
    ///   is not written; the writer stays usable).
    public func writeRow(_ fields: [CSVField]) throws {
        try checkWritable()
        precondition(fields.count == columnCount, "a row of \(fields.count) fields in a CSV file of \(columnCount) columns")
        // Work on a local buffer: a stored property passed inout field by field would pay a
        // dynamic exclusivity check each time.
        var buffer: [UInt8] = []
        swap(&buffer, &self.buffer)
        defer { swap(&buffer, &self.buffer) }
        let rowStart = buffer.count
        for (index, field) in fields.enumerated() {
            if index > 0 { buffer.append(CSVEncoding.comma) }
            switch field {
            case .text(let text):
                CSVEncoding.appendText(text, to: &buffer)
            case .integer(let integer):
                CSVEncoding.appendInteger(integer, to: &buffer)
            case .double(let double):
                CSVEncoding.appendDouble(double, to: &buffer)
            case .date(let date):
                guard CSVEncoding.appendDate(date, to: &buffer) else {
                    buffer.removeSubrange(rowStart...)
                    throw CSVWriterError(
                        code: .invalidValue,
                        path: destination.path,
                        reason: "row \(rowCount + 1), field \(index + 1): a date outside years 0000-9999"
                    )
                }
            case .null:
                break
            }
        }
        buffer.append(CSVEncoding.carriageReturn)
        buffer.append(CSVEncoding.lineFeed)
        rowCount += 1
        if buffer.count >= bufferCapacity {
            try flush(&buffer)
        }
    }

    /// Writes what is buffered, fsyncs, and renames the file over the destination.
    ///
    /// - Returns: The number of data rows and the file size in bytes.
    /// - Throws: ``CSVWriterError/Code/writeFailed`` or ``CSVWriterError/Code/cannotReplace``;
    ///   the destination is then untouched and the temporary file removed.
    public func finish() throws -> (rows: Int, bytes: Int) {
        try checkWritable()
        guard case .open(let fileDescriptor) = state else { preconditionFailure("unreachable") }
        try flush(&buffer)
        guard fsync(fileDescriptor) == 0 else {
            let errorNumber = errno
            throw fail(.writeFailed, "cannot sync \(temporaryPath) to disk", errorNumber)
        }
        state = .finished
        // Closing may report a delayed write error (NFS): the data would not be complete.
        guard close(fileDescriptor) == 0 else {
            let errorNumber = errno
            let error = CSVWriterError(code: .writeFailed, path: destination.path, reason: "cannot close \(temporaryPath)", errorNumber: errorNumber)
            unlink(temporaryPath)
            state = .failed(error)
            throw error
        }
        guard rename(temporaryPath, destination.path) == 0 else {
            let errorNumber = errno
            let error = CSVWriterError(
                code: .cannotReplace,
                path: destination.path,
                reason: "cannot rename \(temporaryPath) into place",
                errorNumber: errorNumber
            )
            unlink(temporaryPath)
            state = .failed(error)
            throw error
        }
        syncDirectory(containing: destination)
        return (rows: rowCount, bytes: bytesFlushed)
    }

    /// Abandons the file: removes the temporary file and leaves the destination untouched.
    /// Does nothing after ``finish()`` or a previous ``cancel()``.
    public func cancel() {
        discardTemporaryFile()
    }

    // MARK: - File handling

    private static func createFile(atPath path: String) -> Int32 {
        open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
    }

    private func checkWritable() throws {
        switch state {
        case .open:
            return
        case .failed(let error):
            throw error
        case .finished:
            preconditionFailure("CSVWriter for \(destination.path) used after finish()")
        case .cancelled:
            preconditionFailure("CSVWriter for \(destination.path) used after cancel()")
        }
    }

    /// Writes `buffer` to the temporary file and empties it.
    private func flush(_ buffer: inout [UInt8]) throws {
        guard case .open(let fileDescriptor) = state else { return }
        var written = 0
        let failure: Int32? = buffer.withUnsafeBytes { bytes in
            while written < bytes.count {
                let result = write(fileDescriptor, bytes.baseAddress! + written, bytes.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += result
            }
            return nil
        }
        bytesFlushed += written
        if let failure {
            throw fail(.writeFailed, "cannot write to \(temporaryPath)", failure)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Records a failure: the temporary file goes, later calls rethrow the error.
    private func fail(_ code: CSVWriterError.Code, _ reason: String, _ errorNumber: Int32) -> CSVWriterError {
        let error = CSVWriterError(code: code, path: destination.path, reason: reason, errorNumber: errorNumber)
        discardTemporaryFile()
        state = .failed(error)
        return error
    }

    private func discardTemporaryFile() {
        guard case .open(let fileDescriptor) = state else { return }
        close(fileDescriptor)
        unlink(temporaryPath)
        state = .cancelled
    }
}

@available(*, unavailable)
extension CSVWriter: Sendable {}
