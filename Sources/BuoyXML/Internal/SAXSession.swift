import CLibXML2
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libxml2 must be initialised once before parsers run on several threads. A global `let` is
/// initialised exactly once, thread-safely, by the Swift runtime; nothing else of libxml2's
/// global state is touched.
private let libxml2Initialized: Bool = {
    xmlInitParser()
    return true
}()

/// One streaming parse of one file with libxml2's SAX2 push parser.
///
/// The file is read in chunks of ``BuoyXMLLimits/chunkSize`` bytes and pushed to
/// `xmlParseChunk`, so memory does not grow with the file. The C callbacks find this session
/// through the parser context's `_private` field (an unretained `Unmanaged` reference; the
/// session outlives the parser context, which ``parse(fileAt:)`` frees before returning).
/// The user data stays the parser context itself, as libxml2's own SAX2 callbacks (kept for
/// the internal subset and entities) require; libxml2 copies `_private` into the contexts it
/// creates to parse entity content. There is no global mutable state, and two sessions on two
/// threads share nothing.
///
/// Security: the only option set is `XML_PARSE_NONET`. Without `XML_PARSE_NOENT`,
/// `XML_PARSE_DTDLOAD`, `XML_PARSE_DTDVALID` and `XML_PARSE_DTDATTR`, libxml2 neither loads an
/// external DTD nor reads an external entity (a reference to one produces nothing), and
/// without `XML_PARSE_HUGE` it bounds the expansion of internal entities and fails a
/// billion-laughs document with an error. The `externalSubset` and `reference` callbacks are
/// removed as well.
final class SAXSession {
    let path: String
    let handler: any SAXEventHandler
    let limits: BuoyXMLLimits
    private let wantsCharacters: Bool
    private var context: xmlParserCtxtPtr?
    private(set) var failure: (any Error)?
    private(set) var byteCount = 0
    /// Bytes of character data libxml2 delivered so far.
    private var textByteCount = 0
    /// Whether libxml2 reported a start tag.
    fileprivate var sawRootElement = false

    init(path: String, handler: any SAXEventHandler, limits: BuoyXMLLimits, wantsCharacters: Bool = true) {
        precondition(libxml2Initialized)
        self.path = path
        self.handler = handler
        self.limits = limits
        self.wantsCharacters = wantsCharacters
    }

    /// Parses the file, delivering events to the handler; throws the first libxml2 error, or
    /// the first error a handler threw.
    func parse(fileAt url: URL) throws {
        guard url.isFileURL else {
            throw BuoyXMLError(code: .unreadableFile, file: url.absoluteString, message: "not a local file URL")
        }
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let number = errno
            throw BuoyXMLError(
                code: .unreadableFile,
                file: path,
                message: "cannot open the file: \(String(cString: strerror(number)))",
                systemErrorNumber: number
            )
        }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        defer { try? file.close() }

        let chunk = UnsafeMutablePointer<CChar>.allocate(capacity: limits.chunkSize)
        defer { chunk.deallocate() }

        var sax = makeSAXHandler()
        var length = try read(file.fileDescriptor, into: chunk)
        // The first bytes go with the context so that libxml2 detects the encoding from them.
        let head = min(length, 4)
        guard let context = xmlCreatePushParserCtxt(&sax, nil, chunk, Int32(head), path) else {
            throw BuoyXMLError(code: .malformedDocument, file: path, message: "libxml2 could not create a parser")
        }
        context.pointee._private = Unmanaged.passUnretained(self).toOpaque()
        self.context = context
        defer {
            if let document = context.pointee.myDoc {
                xmlFreeDoc(document)
                context.pointee.myDoc = nil
            }
            xmlFreeParserCtxt(context)
            self.context = nil
        }
        _ = xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))

        byteCount = length
        var offset = head
        while length > 0 {
            if length > offset {
                _ = xmlParseChunk(context, chunk + offset, Int32(length - offset), 0)
            }
            if failure != nil { break }
            offset = 0
            length = try read(file.fileDescriptor, into: chunk)
            byteCount += length
        }
        if failure == nil {
            // libxml2 reports every document that ends too early at this last call with one
            // message, "Extra content at the end of the document", at the last line it parsed.
            // Say what happened, and where the file ends.
            let openElement = context.pointee.nameNr > 0 ? context.pointee.name.map { String(cString: $0) } : nil
            _ = xmlParseChunk(context, nil, 0, 1)
            if var error = failure as? BuoyXMLError, error.libxml2Code == Int(XML_ERR_DOCUMENT_END.rawValue),
                let end = endOfFile(url)
            {
                if let openElement {
                    error.message = "Premature end of data in tag \(openElement)"
                } else if !sawRootElement {
                    error.message = "Document is empty"
                }
                if openElement != nil || !sawRootElement {
                    error.line = end.line
                    error.column = end.column
                    failure = error
                }
            }
        } else {
            xmlStopParser(context)
        }
        if let failure {
            throw failure
        }
        if context.pointee.wellFormed == 0 {
            // An error libxml2 did not report through the structured handler.
            if let last = xmlCtxtGetLastError(context) {
                throw malformed(last.pointee)
            }
            throw BuoyXMLError(code: .malformedDocument, file: path, message: "the document is not well-formed")
        }
        try handler.endDocument()
    }

    /// The line and column just past the last byte of the file (read again: this is only for
    /// an error message).
    private func endOfFile(_ url: URL) -> (line: Int, column: Int)? {
        // An empty file ends where it starts. It is not read: Foundation's `Data(contentsOf:)`
        // leaks a page-sized buffer for an empty file (found by the buoy XML fuzzer).
        if let size = try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int, size == 0 {
            return (1, 1)
        }
        guard let data = try? Data(contentsOf: url, options: .mappedIfSafe) else { return nil }
        var position = TextPosition(line: 1, column: 1)
        position.advance(over: data)
        return (position.line, position.column)
    }

    /// The parser's current position, 1-based: in a start-element callback, that of the `>`
    /// which ends the start tag (of the `/` of an empty element's `/>`).
    var position: (line: Int, column: Int)? {
        guard let context else { return nil }
        return (Int(xmlSAX2GetLineNumber(context)), Int(xmlSAX2GetColumnNumber(context)))
    }

    /// An error at the parser's current position.
    func error(_ code: BuoyXMLError.Code, _ message: String) -> BuoyXMLError {
        guard let context else {
            return BuoyXMLError(code: code, file: path, message: message)
        }
        return BuoyXMLError(
            code: code,
            file: path,
            line: Int(xmlSAX2GetLineNumber(context)),
            column: Int(xmlSAX2GetColumnNumber(context)),
            message: message
        )
    }

    /// Counts text against the bytes read and hands it to the handler.
    ///
    /// Without entities, a document cannot deliver more text than about twice its size (a
    /// Latin-1 or UTF-16 document grows at most that much in UTF-8). libxml2 2.9 stops
    /// billion-laughs nesting but lets a flat "quadratic blow-up" through (a large entity
    /// referenced many times), which would keep the parser busy for as long as it takes to
    /// deliver gigabytes; more text than four times the bytes read plus 1 MiB ends the parse.
    fileprivate func characters(_ bytes: UnsafeBufferPointer<UInt8>, isCDATA: Bool) throws {
        textByteCount += bytes.count
        if textByteCount > 4 * byteCount + (1 << 20) {
            throw error(.limitExceeded, "entities expand to more than four times the size of the document")
        }
        if wantsCharacters {
            if isCDATA {
                try handler.cdataBlock(bytes)
            } else {
                try handler.characters(bytes)
            }
        }
    }

    fileprivate func fail(_ error: any Error) {
        if failure == nil {
            failure = error
        }
    }

    fileprivate func recordLibxml2Error(_ error: xmlError) {
        // Warnings (e.g. a relative namespace URI) do not make a document unusable.
        guard error.level.rawValue >= XML_ERR_ERROR.rawValue, failure == nil else { return }
        failure = malformed(error)
    }

    private func malformed(_ error: xmlError) -> BuoyXMLError {
        var message = error.message.map { String(cString: $0) } ?? "the document is not well-formed"
        while let last = message.last, last.isWhitespace { message.removeLast() }
        var line = error.line > 0 ? Int(error.line) : nil
        var column = error.int2 > 0 ? Int(error.int2) : nil
        if let context, let origin = error.ctxt, origin != UnsafeMutableRawPointer(context) {
            // Raised while parsing an entity's content: its position is in the entity, so name
            // the position of the reference in the document instead.
            line = Int(xmlSAX2GetLineNumber(context))
            column = Int(xmlSAX2GetColumnNumber(context))
        }
        return BuoyXMLError(
            code: .malformedDocument,
            file: path,
            line: line,
            column: column,
            message: message,
            libxml2Code: Int(error.code)
        )
    }

    private func read(_ descriptor: Int32, into buffer: UnsafeMutablePointer<CChar>) throws -> Int {
        while true {
            let count = readDescriptor(descriptor, buffer, limits.chunkSize)
            if count >= 0 { return count }
            let number = errno
            if number == EINTR { continue }
            throw BuoyXMLError(
                code: .unreadableFile,
                file: path,
                message: "cannot read the file: \(String(cString: strerror(number)))",
                systemErrorNumber: number
            )
        }
    }

    private func makeSAXHandler() -> xmlSAXHandler {
        var sax = xmlSAXHandler()
        // SAX2 defaults keep the internal subset (entity declarations, needed to expand and to
        // bound internal entities); everything that would build a tree is replaced or removed.
        xmlSAXVersion(&sax, 2)
        sax.startElementNs = saxStartElement
        sax.endElementNs = wantsCharacters ? saxEndElement : nil
        sax.characters = saxCharacters
        sax.cdataBlock = saxCDATA
        sax.ignorableWhitespace = saxCharacters
        sax.serror = saxError
        sax.startElement = nil
        sax.endElement = nil
        sax.reference = nil
        sax.externalSubset = nil
        sax.entityDecl = saxEntityDecl
        sax.comment = nil
        sax.processingInstruction = nil
        return sax
    }
}

/// `read(2)`, under a name that the session's own `read` does not hide.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// The session of a callback: its user data is a parser context whose `_private` field holds
/// the session.
@inline(__always)
private func session(_ userData: UnsafeMutableRawPointer?) -> SAXSession? {
    guard let userData,
        let session = userData.assumingMemoryBound(to: xmlParserCtxt.self).pointee._private
    else { return nil }
    return Unmanaged<SAXSession>.fromOpaque(session).takeUnretainedValue()
}

private let saxStartElement: startElementNsSAX2Func = {
    userData, localName, _, namespace, _, _, attributeCount, _, attributes in
    guard let session = session(userData), session.failure == nil, let localName else { return }
    session.sawRootElement = true
    let element = SAXElement(
        parserContext: userData!.assumingMemoryBound(to: xmlParserCtxt.self),
        localName: localName,
        namespace: namespace,
        attributeCount: Int(attributeCount),
        attributes: attributes
    )
    do {
        try session.handler.startElement(element)
    } catch {
        session.fail(error)
    }
}

/// Refuses external entity declarations (XXE) outright; internal ones go to libxml2's default,
/// which expands them within its bounds.
private let saxEntityDecl: entityDeclSAXFunc = { userData, name, type, publicID, systemID, content in
    guard let session = session(userData) else { return }
    switch xmlEntityType(UInt32(type)) {
    case XML_EXTERNAL_GENERAL_PARSED_ENTITY, XML_EXTERNAL_GENERAL_UNPARSED_ENTITY, XML_EXTERNAL_PARAMETER_ENTITY:
        let entity = name.map { String(cString: $0) } ?? "?"
        let target = systemID.map { String(cString: $0) } ?? publicID.map { String(cString: $0) } ?? "?"
        session.fail(
            session.error(
                .externalEntity, "the document declares the external entity \(entity) (\(target)); external entities are never read"))
        if let context = userData?.assumingMemoryBound(to: xmlParserCtxt.self) {
            xmlStopParser(context)
        }
    default:
        xmlSAX2EntityDecl(userData, name, type, publicID, systemID, content)
    }
}

private let saxEndElement: endElementNsSAX2Func = { userData, localName, _, namespace in
    guard let session = session(userData), session.failure == nil, let localName else { return }
    do {
        try session.handler.endElement(localName: localName, namespace: namespace)
    } catch {
        session.fail(error)
    }
}

private let saxCharacters: charactersSAXFunc = { userData, bytes, length in
    guard let session = session(userData), session.failure == nil, let bytes, length > 0 else { return }
    do {
        try session.characters(UnsafeBufferPointer(start: bytes, count: Int(length)), isCDATA: false)
    } catch {
        session.fail(error)
    }
}

private let saxCDATA: cdataBlockSAXFunc = { userData, bytes, length in
    guard let session = session(userData), session.failure == nil, let bytes, length > 0 else { return }
    do {
        try session.characters(UnsafeBufferPointer(start: bytes, count: Int(length)), isCDATA: true)
    } catch {
        session.fail(error)
    }
}

private let saxError: xmlStructuredErrorFunc = { userData, error in
    guard let session = session(userData), let error else { return }
    session.recordLibxml2Error(error.pointee)
}
