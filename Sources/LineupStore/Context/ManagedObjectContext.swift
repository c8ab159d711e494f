import Dispatch
public import Foundation
import Logging
import LineupLocking

/// A scratch pad of managed objects, with Core Data's multi-context semantics.
///
/// A context's parent is either the store (the *writer* context) or another context. Everything
/// a context holds is confined to its serial queue: use it inside ``perform(_:)->()`` or
/// ``performAndWait(_:)``. ``save()`` pushes the changes exactly one level up. Synchronous waits
/// only go upward (child → main → writer); what flows downward (merges into children) is
/// asynchronous, so the stack cannot deadlock.
///
/// Reads never wait for an ancestor's queue: each context publishes a snapshot of its unsaved
/// changes that descendants read under a lock, and the store is read through concurrent WAL
/// snapshots. That is why the main context stays responsive while the writer writes to disk.
/// Nor do the main context and the writer wait for the store's pooled readers, which tasks' long
/// reads may hold: the main context reads with a connection reserved for it, the writer with its
/// own (see `StoreReader`).
///
/// A reader looks at the nearest level first and the store last, and a save publishes the
/// parent's new snapshot before the child clears its own, so a row moving up the stack during a
/// look-up is always found at one level or the next.
///
/// Changes are kept as a `ChangeSet`: immutable segments, one per save, newest first. A
/// parent accepting a child's save of new rows for which it has no objects takes the child's
/// segments as they are (no per-row work, and nothing to copy into its published snapshot); only
/// updates, deletes, rows with uniqueness constraints and rows it has objects for are looked at
/// one by one. The parent answers with the exceptions only (rows its merge policy changed or
/// removed): the child treats every other pushed row as stored as pushed.
public final class ManagedObjectContext: @unchecked Sendable {
    // @unchecked Sendable: the mutable state below is only touched on `queue` (checked on every
    // use, in release builds too: see `preconditionOnQueue()`), the settings and the published
    // snapshot are behind mutexes, and the rest is immutable.

    /// The queue a context runs its blocks on; both kinds are serial queues of the context's own.
    public enum ConcurrencyType: Sendable {
        /// A private serial queue.
        case privateQueue
        /// The daemon's main context. A server has no drained main queue, so this is also a
        /// dedicated serial queue of its own, never `DispatchQueue.main`.
        case mainQueue
    }

    enum Parent {
        case store(any PersistentStore)
        case context(ManagedObjectContext)
    }

    /// The kind of queue the context was made with.
    public let concurrencyType: ConcurrencyType
    /// The context's name, for log lines and error messages: `writer`, `main`, a task's name (a
    /// job's id in the daemon), or `<parent>.child` by default.
    public let name: String
    let parent: Parent
    let store: any PersistentStore
    /// The stack's one gate: the writer passes through it around each write to the store, and
    /// a task's save waits at it while the stack is backlogged (see `save()`).
    let writeGate: WriteGate
    /// Parent first, then its parent, up to the writer.
    let ancestors: [ManagedObjectContext]
    /// The connection this context reads the store with: the writer's own for the writer, the
    /// reserved one for its children (the main context), a pooled one below.
    let storeReader: StoreReader
    let logger: Logger
    private let queue: DispatchQueue
    /// The weak reference to this context that its objects share (see ``ContextLink``).
    let objectLink = ContextLink()

    // MARK: Queue-confined state

    /// Every object the context has handed out, held weakly: objects without changes may go.
    var registry: [ObjectID: WeakObject] = [:]
    /// Objects with unsaved changes, held strongly until saved or rolled back.
    var changedObjects: [ObjectID: ManagedObject] = [:]
    /// The objects that became inserted here, in that order: usually the order of their keys, so
    /// that a save lists its inserts sorted without sorting them. May hold objects that are no
    /// longer inserted (deleted or rolled back since): check their state.
    var insertedInOrder: [ManagedObject] = []
    /// Changes received from child saves for rows that have no object here (yet).
    var childChanges = ChangeSet()
    /// Messages enqueued here or saved into here by children, in that order, waiting for the
    /// next save to move them up with the changes (see `ManagedObjectContext+Outbox.swift`).
    var outbox: [OutboxMessage] = []
    /// How many row changes (inserts, updates, deletes) this context's saves have pushed to its
    /// parent so far. Read it on the context's queue. A job runner reports it when a job that
    /// saved in chunks fails: those chunks are in the parent, and may reach the disk.
    public internal(set) var savedRowChangeCount = 0
    /// The writer's: inserts that the store's unique indexes had it merge into a row another
    /// writer of the database stored first, by primary key, with that row (see `writeToStore`).
    /// Until the write that merged one, its insert was pending here, where every context's fetch
    /// could find it: a later save may point at it, and is pointed at the row instead.
    var mergedInserts: [Int64: ObjectID] = [:]
    /// Primary keys handed out to this context's inserts.
    var reservedKeys: Range<Int64> = 0..<0
    var performDepth = 0
    var needsPublish = false
    /// Set by a delete of an object with relationships: the end of the event propagates it (see
    /// ``propagatesDeletesAtEndOfEvent``).
    var needsDeletePropagation = false
    var registryCountAtLastPurge = 0
    /// The entity of the class last inserted, to skip the model's look-up for the next insert.
    var lastInsertedEntity: EntityDescription?
    /// Faults handed out by a batched fetch, with their batch.
    var faultBatches: [ObjectID: FaultBatch] = [:]
    /// The changes for the next ``ObjectsDidChange`` event (recorded only while it is observed).
    var unpostedObjectChanges = ObjectsDidChange()

    // MARK: Shared state

    /// This context's unsaved changes, for descendants to read without waiting on the queue.
    /// Hold the lock only to copy the snapshot out (see `publishedChanges()`): copying a
    /// ``ChangeSet`` copies a few references.
    let published = Locked<ChangeSet>(ChangeSet())
    let settings: Locked<Settings>
    let children = Locked<[WeakContext]>([])
    let didSaveObservers = EventObservers<ContextDidSave>()
    let objectsDidChangeObservers = EventObservers<ObjectsDidChange>()
    let willSaveObservers = EventObservers<ContextWillSave>()
    let childSaveObservers = EventObservers<ChildSaveAccepted>()

    struct Settings {
        var mergePolicy: MergePolicy?
        var automaticallyMergesChangesFromParent = false
        var propagatesDeletesAtEndOfEvent = true
        var slowWaitThreshold: Duration = .milliseconds(250)
    }

    init(concurrencyType: ConcurrencyType, name: String, parent: Parent, logger: Logger) {
        self.concurrencyType = concurrencyType
        self.name = name
        self.parent = parent
        self.logger = logger
        self.queue = DispatchQueue(label: "lineup.context.\(name)")
        switch parent {
        case let .store(store):
            self.store = store
            self.storeIdentifier = store.identifier
            self.writeGate = WriteGate()
            self.ancestors = []
            self.storeReader = .writer
            self.settings = Locked(Settings())
        case let .context(parentContext):
            self.store = parentContext.store
            self.storeIdentifier = parentContext.storeIdentifier
            self.writeGate = parentContext.writeGate
            self.ancestors = [parentContext] + parentContext.ancestors
            self.storeReader = parentContext.ancestors.isEmpty ? .reserved : .pooled
            self.settings = Locked(Settings())
            parentContext.children.withLock { children in
                children.removeAll { $0.context == nil }
                children.append(WeakContext(context: self))
            }
        }
        objectLink.context = self
    }

    /// A new context whose parent is this one (e.g. a job's private context under the main one).
    public func newChildContext(
        concurrencyType: ConcurrencyType = .privateQueue, name: String? = nil
    ) -> ManagedObjectContext {
        ManagedObjectContext(
            concurrencyType: concurrencyType, name: name ?? "\(self.name).child", parent: .context(self),
            logger: logger)
    }

    /// The context this one saves into; nil for the writer, which saves into the store.
    public var parentContext: ManagedObjectContext? {
        if case let .context(context) = parent { return context }
        return nil
    }

    /// The model of the store at the root of the chain.
    public var model: ManagedObjectModel { store.model }

    /// The identifier of the store at the root of this context's chain (the first part of its
    /// objects' IDs). Kept here: every insert asks for it.
    public let storeIdentifier: UUID

    // MARK: Settings

    /// The policy set on this context itself, nil when it inherits its parent's: what its
    /// changes carry up the stack (``RowChange/mergePolicy``).
    var ownMergePolicy: MergePolicy? {
        settings.withLock { $0.mergePolicy }
    }

    /// The policy this context's saves use; inherited from the parent unless set.
    public var mergePolicy: MergePolicy {
        get { ownMergePolicy ?? parentContext?.mergePolicy ?? .error }
        set { settings.withLock { $0.mergePolicy = newValue } }
    }

    /// When true, the changes this context's parent takes in are merged into this context's
    /// registered objects, asynchronously on its queue: the saves of its other children, and its
    /// own saves (as Core Data merges both).
    public var automaticallyMergesChangesFromParent: Bool {
        get { settings.withLock { $0.automaticallyMergesChangesFromParent } }
        set { settings.withLock { $0.automaticallyMergesChangesFromParent = newValue } }
    }

    /// A `performAndWait` that waits longer than this for the queue logs a warning naming both
    /// contexts (the one waiting and the one waited on).
    public var slowWaitThreshold: Duration {
        get { settings.withLock { $0.slowWaitThreshold } }
        set { settings.withLock { $0.slowWaitThreshold = newValue } }
    }

    // MARK: Queue

    /// True when the caller runs on this context's queue: inside one of its `perform` or
    /// `performAndWait` blocks, and not inside another context's `performAndWait` called from there.
    public var isOnQueue: Bool {
        CurrentContext.identity == identity
    }

    /// What ``CurrentContext`` holds while this context's block runs.
    @inline(__always)
    var identity: UnsafeMutableRawPointer {
        Unmanaged.passUnretained(self).toOpaque()
    }

    /// Runs `block` asynchronously on the context's queue.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async {
            self.runBlock(block)
        }
    }

    /// Runs `block` asynchronously on the context's queue and returns its result.
    public func perform<T: Sendable>(_ block: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.runBlock(block) })
            }
        }
    }

    /// Runs `block` on the context's queue and waits for it; returns its value and rethrows its
    /// error. Reentrant: called on the context's own queue, it runs inline.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue {
            return try block()
        }
        let caller = CurrentContext.context?.name
        let requested = ContinuousClock.now
        return try queue.sync {
            let waited = ContinuousClock.now - requested
            if waited > slowWaitThreshold {
                logger.warning(
                    "slow performAndWait",
                    metadata: [
                        "waiting": "\(caller ?? "a thread outside any context")",
                        "context": "\(name)", "waited_ms": "\(waited / .milliseconds(1))",
                    ])
            }
            return try runBlock(block)
        }
    }

    private func runBlock<T>(_ block: () throws -> T) rethrows -> T {
        try CurrentContext.run(self) {
            performDepth += 1
            defer {
                performDepth -= 1
                if performDepth == 0 { processPendingChanges() }
            }
            return try block()
        }
    }

    /// Ends the event, as Core Data's `processPendingChanges()` does: applies the delete rules of
    /// the objects deleted since the last event (when ``propagatesDeletesAtEndOfEvent``), posts the
    /// ``ObjectsDidChange`` event of the changes made since the last one, and publishes the
    /// unsaved changes for descendants. Runs at the end of every outermost
    /// `perform`/`performAndWait` block (see <doc:Events>), and at every save; call it to do it
    /// earlier.
    public func processPendingChanges() {
        preconditionOnQueue()
        if needsDeletePropagation { propagatePendingDeletes() }
        postObjectsDidChange()
        guard needsPublish else { return }
        needsPublish = false
        var snapshot = pendingChanges()
        published.withLock { swap(&$0, &snapshot) }
        // `snapshot` now holds the previous one: released here, outside the lock, so that a reader
        // never waits for its rows to be freed.
    }

    /// The snapshot this context last published.
    func publishedChanges() -> ChangeSet {
        published.withLock { $0 }
    }

    /// Traps when the caller is not on this context's queue, in release builds too: a context used
    /// off its queue would race with its own blocks and corrupt its state silently.
    @inline(__always)
    func preconditionOnQueue() {
        if _slowPath(!isOnQueue) { usedOffQueue() }
    }

    @inline(never)
    private func usedOffQueue() -> Never {
        // `fatalError`, not `precondition`: an optimized build drops a precondition's message.
        fatalError("context \(name) used \(CurrentContext.whereabouts): use perform or performAndWait")
    }
}

extension ManagedObjectContext: CustomStringConvertible {
    /// `<ManagedObjectContext name>`, for messages.
    public var description: String { "<ManagedObjectContext \(name)>" }
}

struct WeakObject {
    weak var object: ManagedObject?
}

struct WeakContext: Sendable {
    weak var context: ManagedObjectContext?
}
