/// The fields of `status.json` these tests read, decoded independently of the daemon's types
/// (as any other observer of the spool would).
struct StatusFile: Decodable {
    struct RunningJob: Decodable {
        struct Job: Decodable {
            let name: String
            let id: String?
            let kind: String?
        }

        let job: Job
    }

    struct Flush: Decodable {
        let reason: String
        let succeeded: Bool
        let acknowledged: Int
    }

    let pid: Int32
    let phase: String
    let lastFlush: Flush?
    let running: [RunningJob]
    let queued: Int
    let awaitingFlush: Int
}
