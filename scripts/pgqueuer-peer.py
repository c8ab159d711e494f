"""PgQueuer, the peer that `lineup-bench postgres-jobs` measures Lineup beside (issue 35).

Runs in a venv of its own that the benchmark makes (`python3 -m venv`, then `pip install
pgqueuer==VERSION asyncpg`): installs PgQueuer's tables into an empty database, inserts JOBS
no-op jobs, then starts WORKERS processes, each a QueueManager in drain mode with a batch size of
BATCH, and times them from their start until the last one has drained the queue. Prints one line:

    pgqueuer jobs=N workers=K batch=B seconds=S done=D

where D is the number of jobs PgQueuer logged as successful, which the benchmark checks.
"""

import argparse
import asyncio
import multiprocessing
import time
from datetime import timedelta

import asyncpg
import pgqueuer
from pgqueuer import AsyncpgDriver, Queries, QueueManager
from pgqueuer.domain.types import QueueExecutionMode


async def prepare(dsn: str, jobs: int) -> None:
    connection = await asyncpg.connect(dsn)
    try:
        queries = Queries(AsyncpgDriver(connection))
        await queries.install()
        # One insert of all the jobs, as the benchmark inserts Lineup's.
        await queries.enqueue(["noop"] * jobs, [None] * jobs, [0] * jobs)
    finally:
        await connection.close()


async def drain(dsn: str, batch: int) -> None:
    connection = await asyncpg.connect(dsn)
    try:
        manager = QueueManager(Queries(AsyncpgDriver(connection)))

        @manager.entrypoint("noop")
        async def noop(job: pgqueuer.Job) -> None:
            pass

        await manager.run(
            batch_size=batch,
            mode=QueueExecutionMode.drain,
            dequeue_timeout=timedelta(seconds=1),
            log_aggregation_interval=timedelta(0),
        )
    finally:
        await connection.close()


def worker(dsn: str, batch: int, ready, go) -> None:
    ready.wait()
    go.wait()
    asyncio.run(drain(dsn, batch))


async def count_done(dsn: str) -> int:
    connection = await asyncpg.connect(dsn)
    try:
        return await connection.fetchval("SELECT count(*) FROM pgqueuer_log WHERE status = 'successful'")
    finally:
        await connection.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--jobs", type=int, required=True)
    parser.add_argument("--workers", type=int, required=True)
    parser.add_argument("--batch", type=int, default=10)
    arguments = parser.parse_args()

    asyncio.run(prepare(arguments.dsn, arguments.jobs))
    # The workers are started, then let go together: the time counts draining, not starting
    # Python processes.
    ready = multiprocessing.Barrier(arguments.workers + 1)
    go = multiprocessing.Event()
    processes = [
        multiprocessing.Process(target=worker, args=(arguments.dsn, arguments.batch, ready, go))
        for _ in range(arguments.workers)
    ]
    for process in processes:
        process.start()
    ready.wait()
    began = time.monotonic()
    go.set()
    for process in processes:
        process.join()
    seconds = time.monotonic() - began
    failed = [process.exitcode for process in processes if process.exitcode != 0]
    if failed:
        raise SystemExit(f"pgqueuer: {len(failed)} worker(s) failed, exit codes {failed}")
    done = asyncio.run(count_done(arguments.dsn))
    print(
        f"pgqueuer jobs={arguments.jobs} workers={arguments.workers} batch={arguments.batch} "
        f"seconds={seconds:.6f} done={done}",
        flush=True,
    )


if __name__ == "__main__":
    main()
