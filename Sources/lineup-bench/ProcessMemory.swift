import Foundation

/// The resident memory of this process, from `/proc/self/status` (Linux). On other systems every
/// figure is nil and the table says "n/a".
enum ProcessMemory {
    /// Peak resident set size since the process started, or since ``resetPeak()`` (VmHWM), in bytes.
    static func peakResidentBytes() -> Int? {
        statusField("VmHWM")
    }

    /// Current resident set size (VmRSS), in bytes.
    static func residentBytes() -> Int? {
        statusField("VmRSS")
    }

    /// Sets the peak back to the current resident size (`echo 5 > /proc/self/clear_refs`, Linux
    /// 4.0+), so that a later phase of the run gets a peak of its own. False when not supported.
    @discardableResult
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
    }

    /// Decimal megabytes (10^6 bytes), the unit of the targets.
    static func megabytes(_ bytes: Int) -> Double {
        Double(bytes) / 1_000_000
    }

    private static func statusField(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            // "VmHWM:	  181234 kB": the kernel's kB are KiB.
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let kibibytes = Int(fields[1]) else { return nil }
            return kibibytes * 1024
        }
        return nil
    }
}
