#!/usr/bin/env python3
"""Simulated power loss (issue 9): what a power cut leaves of lineupd's spool and store, and
whether the daemon recovers from it without losing or duplicating a job.

1. Record. lineupd runs a small mixed workload with `interpose.so` preloaded, which records
   every change it makes under the sandbox (creates, writes with their bytes, truncations,
   fsyncs, renames, unlinks) in order.
2. Cut. A power cut keeps only what was made durable: a file's contents as of its last fsync,
   a change of a name once its directory is fsynced (POSIX's promise; renames atomic, as
   journaling file systems make them and as ALICE and CrashMonkey model them). The durable state changes only at an fsync, so the distinct crash states are the
   state before the workload and the one after each fsync. Each chosen one is written out
   (SQLite's -shm, which it rebuilds, is left out).
3. Check. On each crash state, before recovery: every job in done/ has its rows and outputs
   on disk (an acknowledged job is never lost). Then lineupd starts on it, runs what is left,
   and stops; after: every job exactly once, each good job done and the bad one failed, every
   row once, `PRAGMA integrity_check` ok.

Usage: scripts/power-loss.sh [--cuts N|all] [--seed N] [--keep]
"""
import argparse
import datetime
import json
import os
import random
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time

OP_CREATE, OP_TRUNCATE, OP_WRITE, OP_FSYNC, OP_RENAME, OP_UNLINK, OP_MKDIR, OP_RMDIR, OP_LINK, OP_CONTENT = range(1, 11)
SPOOL_DIRECTORIES = ["tmp", "new", "active", "done", "failed"]
RSS_TIME = datetime.datetime(2024, 1, 15, 14, 50, tzinfo=datetime.timezone.utc).timestamp()

# The workload: (id, job file fields, what it must end as).
JOBS = [
    ("sos", {"kind": "import-buoy", "input": "ndbc-sos-waves-sample.xml"}, "done"),
    # After the SOS import: the two share a station, and a race between them would make one
    # attempt fail and be retried, which syncs active/ and so hides a missing sync of the claims.
    ("rss", {"kind": "import-buoy", "input": "ndbc-latest-obs-lnp01.xml", "after": ["sos"]}, "done"),
    ("journal", {"kind": "import-coredata", "input": "SurfJournalSeed.sqlite"}, "done"),
    ("export", {"kind": "export-csv", "entity": "JournalEntry", "output": "journal.csv", "after": ["journal"]}, "done"),
    ("statistics", {"kind": "statistics", "output": "statistics.json", "after": ["sos", "journal"]}, "done"),
    ("prune", {"kind": "prune-observations", "before": "1990-01-01T00:00:00Z"}, "done"),
    ("truncated", {"kind": "import-buoy", "input": "truncated.xml"}, "failed"),
]
# Jobs in one bulk file (`lineup enqueue --from`): each line acknowledged in the bulk's ledger,
# the bad one failing alone into failed/.
BULK_JOBS = [
    ("bulk-export-1", {"kind": "export-csv", "entity": "JournalEntry", "output": "bulk-1.csv", "after": ["journal"]}, "done"),
    ("bulk-export-2", {"kind": "export-csv", "entity": "JournalEntry", "output": "bulk-2.csv", "after": ["journal"]}, "done"),
    ("bulk-unknown-kind", {"kind": "no-such-kind"}, "failed"),
]
EXPECTED = {job_id: outcome for job_id, _, outcome in JOBS + BULK_JOBS}


class Failure(Exception):
    pass


# --- Recording -----------------------------------------------------------------------------

def read_trace(path):
    operations = []
    with open(path, "rb") as trace:
        data = trace.read()
    offset = 0
    while offset + 24 <= len(data):
        op, path_length, path2_length, data_length, a = struct.unpack_from("<IIIIq", data, offset)
        offset += 24
        first = data[offset:offset + path_length].decode()
        offset += path_length
        second = data[offset:offset + path2_length].decode()
        offset += path2_length
        payload = data[offset:offset + data_length]
        offset += data_length
        operations.append((op, first, second, a, payload))
    return operations


def wait_for(condition, what, timeout, process=None):
    deadline = time.monotonic() + timeout
    while not condition():
        if process is not None and process.poll() is not None:
            raise Failure(f"lineupd exited ({process.returncode}) while waiting for {what}")
        if time.monotonic() > deadline:
            raise Failure(f"timed out waiting for {what}")
        time.sleep(0.05)


def job_files(root, directory):
    path = os.path.join(root, "spool", directory)
    return sorted(name for name in os.listdir(path) if name.endswith(".job.json")) if os.path.isdir(path) else []


def job_id(root, directory, name):
    with open(os.path.join(root, "spool", directory, name)) as file:
        return json.load(file).get("id")


def finished_count(root):
    return len(job_files(root, "done")) + len(job_files(root, "failed"))


def bulk_files(root, directory):
    path = os.path.join(root, "spool", directory)
    return sorted(name for name in os.listdir(path) if name.endswith(".jobs.jsonl")) if os.path.isdir(path) else []


def everything_finished(root):
    """Every job file in done/ or failed/ (the bulk's bad line among them) and the bulk in done/."""
    return finished_count(root) == len(JOBS) + 1 and bulk_files(root, "done") and not job_files(root, "active") \
        and not job_files(root, "new") and not bulk_files(root, "new") and not bulk_files(root, "active")


def bulk_line_places(root):
    """Each bulk line's id: "done" once for each done entry in the bulk's ledger (active/) or
    results (done/), or the bulk's directory while the line has no outcome. A failed line is
    found in failed/ as a job file of its own."""
    places = {}
    ids = {}
    for directory in ["new", "active", "done", "failed"]:
        for name in bulk_files(root, directory):
            with open(os.path.join(root, "spool", directory, name), "rb") as file:
                for number, line in enumerate(file.read().split(b"\n"), 1):
                    if line.strip():
                        ids[number] = (json.loads(line).get("id"), directory)
    outcomes = {}
    for directory, suffix in [("active", ".ledger.jsonl"), ("done", ".results.jsonl"), ("failed", ".results.jsonl")]:
        path = os.path.join(root, "spool", directory)
        for name in (sorted(os.listdir(path)) if os.path.isdir(path) else []):
            if name.endswith(suffix):
                with open(os.path.join(path, name), "rb") as file:
                    for line in file.read().split(b"\n"):
                        try:
                            entry = json.loads(line)
                        except ValueError:
                            continue
                        outcomes.setdefault(entry["line"], []).append(entry["outcome"])
    for number, (line_id, directory) in ids.items():
        settled = [outcome for outcome in outcomes.get(number, []) if outcome in ("done", "failed")]
        for outcome in settled:
            if outcome == "done":
                places.setdefault(line_id, []).append("done")
        if not settled:
            places.setdefault(line_id, []).append(directory)
    return places


def daemon_arguments(binaries, root, inputs):
    return [os.path.join(binaries, "lineupd"), "--store", os.path.join(root, "store.sqlite"),
            "--spool", os.path.join(root, "spool"), "--input", inputs, "--output", os.path.join(root, "output"),
            "--flush-interval", "0.2", "--log-level", "info"]


def record(binaries, interposer, work, samples):
    inputs = os.path.join(work, "input")
    root = os.path.join(work, "root")
    os.makedirs(inputs)
    os.makedirs(os.path.join(root, "output"))
    for name in ["ndbc-sos-waves-sample.xml", "ndbc-latest-obs-lnp01.xml", "journal/SurfJournalSeed.sqlite"]:
        shutil.copy(os.path.join(samples, name), inputs)
    with open(os.path.join(inputs, "truncated.xml"), "w") as file:
        file.write('<?xml version="1.0"?><rss><channel><item><title>cut')
    # Create the spool, then enqueue: all of this is durable before the recording starts.
    subprocess.run([os.path.join(binaries, "lineup"), "status", "--spool", os.path.join(root, "spool")],
                   capture_output=True)
    for directory in SPOOL_DIRECTORIES:
        os.makedirs(os.path.join(root, "spool", directory), exist_ok=True)
    for job_id_, fields, _ in JOBS:
        arguments = [os.path.join(binaries, "lineup"), "enqueue", fields["kind"], "--id", job_id_,
                     "--spool", os.path.join(root, "spool")]
        for key, value in fields.items():
            if key == "kind":
                continue
            if key == "after":
                for dependency in value:
                    arguments += ["--after", dependency]
            else:
                arguments.append(f"{key}={value}")
        subprocess.run(arguments, check=True, capture_output=True)
    bulk = os.path.join(work, "bulk.jsonl")
    with open(bulk, "w") as file:
        for job_id_, fields, _ in BULK_JOBS:
            file.write(json.dumps(dict(fields, id=job_id_)) + "\n")
    subprocess.run([os.path.join(binaries, "lineup"), "enqueue", "--from", bulk, "--spool", os.path.join(root, "spool")],
                   check=True, capture_output=True)
    os.sync()
    initial = snapshot(root)
    trace = os.path.join(work, "trace")
    environment = dict(os.environ, LD_PRELOAD=interposer, LINEUP_TRACE=trace, LINEUP_TRACE_ROOT=root)
    with open(os.path.join(work, "recorded.log"), "w") as log:
        daemon = subprocess.Popen(daemon_arguments(binaries, root, inputs), env=environment, stderr=log, stdout=log)
        try:
            wait_for(lambda: everything_finished(root), "the recorded run's jobs", 120, daemon)
            time.sleep(0.5)  # a flush after the last acknowledgement, as a daemon at rest does
        finally:
            daemon.send_signal(signal.SIGKILL)
            daemon.wait()
    return root, inputs, initial, read_trace(trace)


def snapshot(root):
    """Every file and directory under root, as (is_directory, contents)."""
    entries = {}
    for directory, subdirectories, files in os.walk(root):
        for name in subdirectories:
            entries[os.path.join(directory, name)] = (True, b"")
        for name in files:
            with open(os.path.join(directory, name), "rb") as file:
                entries[os.path.join(directory, name)] = (False, file.read())
    return entries


# --- The model of durability ----------------------------------------------------------------

class Model:
    """The file system as the process saw it (volatile) and as a power cut would leave it
    (durable).

    Contents are per inode and durable as of the inode's last fsync. Each change of a name
    (create, rename, unlink, mkdir, link) is atomic, as journaling file systems make it, and
    durable once a directory it touches is fsynced (for a rename, either one). A cut keeps the
    durable changes, in their order; a change not yet durable is lost, even when a later one
    is kept."""

    def __init__(self, root, initial):
        self.root = root
        self.contents = {}        # inode -> bytearray (what reads would see)
        self.durable = {}         # inode -> bytes (as of its last fsync)
        self.written = set()      # inodes whose writes the trace recorded
        self.directories = set()  # inodes that are directories
        self.names = {}           # path -> inode, as the process sees them
        self.next_inode = 0
        self.names[root] = self._new(True)
        for path, (is_directory, data) in sorted(initial.items()):
            inode = self._new(is_directory)
            if not is_directory:
                self.contents[inode] = bytearray(data)
                self.durable[inode] = bytes(data)
                self.written.add(inode)
            self.names[path] = inode
        self.initial_names = dict(self.names)
        # Changes of names in trace order: (directories touched, [(old name or None, new name
        # or None, inode)]), and whether each is durable yet.
        self.name_changes = []
        self.durable_changes = []

    def _new(self, is_directory):
        self.next_inode += 1
        inode = self.next_inode
        if is_directory:
            self.directories.add(inode)
        else:
            self.contents[inode] = bytearray()
        return inode

    def _change(self, directories, moves):
        self.name_changes.append((set(directories), moves))
        self.durable_changes.append(False)

    def apply(self, operation):
        op, path, path2, a, data = operation
        if op in (OP_CREATE, OP_MKDIR):
            inode = self.names[path] = self._new(op == OP_MKDIR)
            self._change([os.path.dirname(path)], [(None, path, inode)])
        elif op in (OP_TRUNCATE, OP_WRITE, OP_CONTENT):
            inode = self.names.get(path)
            if inode is None:
                # Made by a call the recorder does not see: known from here on.
                inode = self.names[path] = self._new(False)
                self._change([os.path.dirname(path)], [(None, path, inode)])
            content = self.contents[inode]
            if op == OP_TRUNCATE:
                del content[a:]
                content.extend(b"\0" * (a - len(content)))
                self.written.add(inode)
            elif op == OP_WRITE:
                if len(content) < a:
                    content.extend(b"\0" * (a - len(content)))
                content[a:a + len(data)] = data
                self.written.add(inode)
            elif inode not in self.written:
                self.contents[inode] = bytearray(data)
        elif op == OP_FSYNC:
            inode = self.names.get(path)
            if inode is None:
                return
            if inode in self.directories:
                for index, (directories, _) in enumerate(self.name_changes):
                    if path in directories:
                        self.durable_changes[index] = True
            else:
                self.durable[inode] = bytes(self.contents[inode])
        elif op == OP_RENAME:
            moved = [(name, inode) for name, inode in self.names.items() if name == path or name.startswith(path + "/")]
            for name, _ in moved:
                del self.names[name]
            moves = []
            for name, inode in moved:
                self.names[path2 + name[len(path):]] = inode
                moves.append((name, path2 + name[len(path):], inode))
            self._change([os.path.dirname(path), os.path.dirname(path2)], moves)
        elif op in (OP_UNLINK, OP_RMDIR):
            inode = self.names.pop(path, None)
            self._change([os.path.dirname(path)], [(path, None, inode)])
        elif op == OP_LINK:
            if path in self.names:
                self.names[path2] = self.names[path]
                self._change([os.path.dirname(path2)], [(None, path2, self.names[path])])

    def durable_names(self):
        names = dict(self.initial_names)
        for (_, moves), durable in zip(self.name_changes, self.durable_changes):
            if not durable:
                continue
            for old, _, _ in moves:
                if old is not None:
                    names.pop(old, None)
            for _, new, inode in moves:
                if new is not None:
                    names[new] = inode
        return names

    def write_durable_state(self, destination):
        """What a power cut leaves, under `destination` instead of the root."""
        names = self.durable_names()
        for path in sorted(names, key=len):
            # A name whose directory's own name is not durable is unreachable.
            parent = os.path.dirname(path)
            if path != self.root and parent != self.root and parent not in names:
                continue
            target = destination + path[len(self.root):]
            inode = names[path]
            if inode in self.directories:
                os.makedirs(target, exist_ok=True)
            elif not path.endswith("-shm"):
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as file:
                    file.write(self.durable.get(inode, b""))


# --- Checks ----------------------------------------------------------------------------------

def jobs_by_directory(root):
    places = {}
    for directory in ["new", "active", "done", "failed"]:
        for name in job_files(root, directory):
            places.setdefault(job_id(root, directory, name), []).append(directory)
    for line_id, directories in bulk_line_places(root).items():
        places.setdefault(line_id, []).extend(directories)
    return places


def store_facts(root):
    """Facts of the store under root, read from a copy (opening a store may change it)."""
    path = os.path.join(root, "store.sqlite")
    if not os.path.exists(path):
        return None
    with tempfile.TemporaryDirectory() as scratch:
        for suffix in ["", "-wal"]:
            if os.path.exists(path + suffix):
                shutil.copy(path + suffix, os.path.join(scratch, "store.sqlite" + suffix))
        connection = sqlite3.connect(os.path.join(scratch, "store.sqlite"))
        try:
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            facts = {"integrity": "\n".join(row[0] for row in connection.execute("PRAGMA integrity_check"))}
            if "BuoyObservation" in tables:
                facts["observations"] = dict(connection.execute(
                    "SELECT s.stationID, COUNT(*) FROM BuoyObservation o JOIN BuoyStation s ON s.pk = o.station GROUP BY 1"))
                facts["rss_row"] = connection.execute(
                    "SELECT COUNT(*) FROM BuoyObservation o JOIN BuoyStation s ON s.pk = o.station "
                    "WHERE s.stationID = 'LNP01' AND o.time = ?", (RSS_TIME,)).fetchone()[0]
                facts["duplicates"] = connection.execute(
                    "SELECT COUNT(*) FROM (SELECT station, time FROM BuoyObservation GROUP BY 1, 2 HAVING COUNT(*) > 1)").fetchone()[0]
                facts["journal"] = connection.execute("SELECT COUNT(*) FROM JournalEntry").fetchone()[0]
                facts["journal_duplicates"] = connection.execute(
                    "SELECT COUNT(*) FROM (SELECT sourceStoreUUID, sourcePrimaryKey FROM JournalEntry GROUP BY 1, 2 HAVING COUNT(*) > 1)").fetchone()[0]
            return facts
        finally:
            connection.close()


def check_done_jobs_have_their_work(root, when):
    places = jobs_by_directory(root)
    done = {job for job, directories in places.items() if "done" in directories}
    if not done - {"truncated"} and not done:
        return done
    facts = store_facts(root)
    if done & {"sos", "rss", "journal"} and facts is None:
        raise Failure(f"{when}: jobs {sorted(done)} are done and there is no store")
    observations = (facts or {}).get("observations", {})
    if "sos" in done and not (observations.get("LNP02") == 100 and observations.get("LNP03") == 100
                              and observations.get("LNP01", 0) >= 100):
        raise Failure(f"{when}: the SOS import is done, the store holds {observations}")
    if "rss" in done and (facts or {}).get("rss_row") != 1:
        raise Failure(f"{when}: the RSS import is done, its observation is not on disk")
    if "journal" in done and (facts or {}).get("journal") != 240:
        raise Failure(f"{when}: the journal import is done, the store has {(facts or {}).get('journal')} entries of 240")
    for export, output in [("export", "journal.csv"), ("bulk-export-1", "bulk-1.csv"), ("bulk-export-2", "bulk-2.csv")]:
        if export not in done:
            continue
        path = os.path.join(root, "output", output)
        data = open(path, "rb").read() if os.path.exists(path) else None
        if data is None or not data.endswith(b"\r\n") or data.count(b"\r\n") != 241:
            raise Failure(f"{when}: {export} is done, {output} is {'absent' if data is None else f'{len(data)} bytes, {data.count(chr(13).encode())} lines'}")
    if "statistics" in done:
        for name in ["statistics.json", "statistics.txt"]:
            path = os.path.join(root, "output", name)
            data = open(path, "rb").read() if os.path.exists(path) else b""
            try:
                if name.endswith(".json"):
                    json.loads(data)
                elif not data:
                    raise ValueError("empty")
            except ValueError:
                raise Failure(f"{when}: the statistics job is done, {name} is {len(data)} bytes of no use")
    return done


def check_recovered(root, when):
    places = jobs_by_directory(root)
    for job, expected in EXPECTED.items():
        if places.get(job) != [expected]:
            raise Failure(f"{when}: job {job} is in {places.get(job)}, expected [{expected}]")
    if set(places) - set(EXPECTED):
        raise Failure(f"{when}: unknown jobs {sorted(set(places) - set(EXPECTED))}")
    facts = store_facts(root)
    if facts is None or facts["integrity"] != "ok":
        raise Failure(f"{when}: integrity_check: {facts and facts['integrity']}")
    if facts["duplicates"] or facts["journal_duplicates"]:
        raise Failure(f"{when}: duplicate rows: {facts['duplicates']} observations, {facts['journal_duplicates']} entries")
    check_done_jobs_have_their_work(root, when)


def recover(binaries, state, inputs, log_path):
    with open(log_path, "w") as log:
        daemon = subprocess.Popen(daemon_arguments(binaries, state, inputs), stderr=log, stdout=log)
        try:
            # A SIGTERM before the daemon runs ends it as the default action would: wait for it.
            wait_for(lambda: "lineup daemon started" in open(log_path).read(), "lineupd to start", 60, daemon)
            wait_for(lambda: everything_finished(state), "every job to finish after the cut", 120, daemon)
            daemon.send_signal(signal.SIGTERM)
            code = daemon.wait(timeout=60)
        finally:
            if daemon.poll() is None:
                daemon.kill()
                daemon.wait()
    if code != 0:
        raise Failure(f"lineupd exited {code} after recovering (log: {log_path})")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cuts", default="100", help="how many crash states to check, or 'all'")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--binaries", default=".build/debug")
    parser.add_argument("--interposer", required=True)
    parser.add_argument("--samples", default="samples")
    arguments = parser.parse_args()
    seed = arguments.seed if arguments.seed is not None else int(time.time())
    binaries = os.path.abspath(arguments.binaries)
    samples = os.path.abspath(arguments.samples)
    work = tempfile.mkdtemp(prefix="lineup-power-loss-")
    began = time.monotonic()
    try:
        root, inputs, initial, operations = record(binaries, os.path.abspath(arguments.interposer), work, samples)
        fsyncs = [index + 1 for index, operation in enumerate(operations) if operation[0] == OP_FSYNC]
        points = [0] + fsyncs
        chosen = points if arguments.cuts == "all" else sorted(random.Random(seed).sample(points, min(int(arguments.cuts), len(points))))
        print(f"power loss: seed {seed}; recorded {len(operations)} file operations, {len(fsyncs)} fsyncs; "
              f"checking {len(chosen)} of {len(points)} crash states", flush=True)
        model = Model(root, initial)
        applied = 0
        acknowledged_at_cut = 0
        for number, point in enumerate(chosen, 1):
            while applied < point:
                model.apply(operations[applied])
                applied += 1
            state = os.path.join(work, "cut")
            shutil.rmtree(state, ignore_errors=True)
            model.write_durable_state(state)
            for directory in SPOOL_DIRECTORIES:
                os.makedirs(os.path.join(state, "spool", directory), exist_ok=True)
            os.makedirs(os.path.join(state, "output"), exist_ok=True)
            when = f"cut after operation {point} (crash state {number} of {len(chosen)})"
            done = check_done_jobs_have_their_work(state, when + ", before recovery")
            acknowledged_at_cut += len(done)
            recover(binaries, state, inputs, os.path.join(work, "recovery.log"))
            check_recovered(state, when + ", after recovery")
            if number % 25 == 0:
                print(f"power loss: {number} crash states checked", flush=True)
        print(f"power loss: seed {seed}; {len(chosen)} crash states checked, {acknowledged_at_cut} acknowledged jobs "
              f"found intact at their cuts, every state recovered to every job once with its rows; "
              f"{time.monotonic() - began:.0f} s")
    except Failure as failure:
        print(f"power loss: seed {seed}: FAILED: {failure}\n(work directory kept: {work})", file=sys.stderr)
        arguments.keep = True
        sys.exit(1)
    finally:
        if not arguments.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
