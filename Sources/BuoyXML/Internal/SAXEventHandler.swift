import CLibXML2

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The receiver of one document's SAX events, called by ``SAXSession`` on the parsing thread.
///
/// A handler may throw from any event; the session then stops delivering events, stops
/// feeding libxml2, and rethrows the error from ``SAXSession/parse(fileAt:)``.
protocol SAXEventHandler: AnyObject {
    func startElement(_ element: SAXElement) throws
    func endElement(localName: UnsafePointer<UInt8>, namespace: UnsafePointer<UInt8>?) throws
    /// Character data and CDATA sections, in the order of the document, in pieces of any size.
    func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws
    /// The content of a CDATA section (the same text as ``characters(_:)`` would give), for a
    /// handler that needs to know where its text came from; the default passes it on to
    /// ``characters(_:)``.
    func cdataBlock(_ bytes: UnsafeBufferPointer<UInt8>) throws
    /// The document ended and libxml2 found it well-formed.
    func endDocument() throws
}

extension SAXEventHandler {
    func cdataBlock(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        try characters(bytes)
    }
}

/// A start tag as libxml2's SAX2 `startElementNs` gives it: pointers into libxml2's buffers,
/// valid only during the callback.
struct SAXElement {
    /// The parser context that reported the element (the document's, or one libxml2 made to
    /// parse an entity's content).
    let parserContext: xmlParserCtxtPtr
    let localName: UnsafePointer<UInt8>
    let namespace: UnsafePointer<UInt8>?
    let attributeCount: Int
    /// `attributeCount` groups of five pointers: local name, prefix, URI, value, value end.
    let attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?

    func isNamed(_ name: StaticString, namespace expected: StaticString? = nil) -> Bool {
        guard SAXName.equals(localName, name) else { return false }
        guard let expected else { return namespace == nil }
        guard let namespace else { return false }
        return SAXName.equals(namespace, expected)
    }

    var localNameString: String { String(cString: localName) }
    var namespaceString: String? { namespace.map { String(cString: $0) } }

    /// An attribute value as a string. Without `XML_PARSE_NOENT`, libxml2 hands SAX2 attribute
    /// values with entity references left in (an `&amp;` as `&#38;`, an internal entity as
    /// `&name;`) for its tree builder to decode; this decodes them the way the tree builder
    /// does, with `xmlStringLenDecodeEntities`, which applies libxml2's expansion bounds.
    func decode(_ value: UnsafeBufferPointer<UInt8>) -> String {
        guard let base = value.baseAddress, value.contains(UInt8(ascii: "&")),
            let decoded = xmlStringLenDecodeEntities(parserContext, base, Int32(value.count), Int32(XML_SUBSTITUTE_REF), 0, 0, 0)
        else {
            return String(decoding: value, as: UTF8.self)
        }
        defer { free(decoded) }
        return String(cString: decoded)
    }

    /// Calls `body` with every attribute's local name and (undecoded) value bytes.
    func forEachAttribute(_ body: (UnsafePointer<UInt8>, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        guard let attributes else { return }
        for index in 0..<attributeCount {
            let group = attributes + index * 5
            guard let name = group[0], let value = group[3], let end = group[4] else { continue }
            try body(name, UnsafeBufferPointer(start: value, count: end - value))
        }
    }

    /// The value of the attribute with local name `name` (any namespace), decoded.
    func attribute(_ name: StaticString) -> String? {
        var result: String?
        forEachAttribute { attributeName, value in
            if result == nil, SAXName.equals(attributeName, name) {
                result = decode(value)
            }
        }
        return result
    }
}

enum SAXName {
    /// Whether the NUL-terminated `name` equals `expected`.
    @inline(__always)
    static func equals(_ name: UnsafePointer<UInt8>, _ expected: StaticString) -> Bool {
        let length = expected.utf8CodeUnitCount
        let bytes = expected.utf8Start
        for index in 0..<length where name[index] != bytes[index] {
            return false
        }
        return name[length] == 0
    }

}

extension SAXName {
    /// Whether the NUL-terminated `name` starts with `prefix`.
    static func hasPrefix(_ name: UnsafePointer<UInt8>?, _ prefix: StaticString) -> Bool {
        guard let name else { return false }
        let bytes = prefix.utf8Start
        for index in 0..<prefix.utf8CodeUnitCount where name[index] != bytes[index] {
            return false
        }
        return true
    }
}
