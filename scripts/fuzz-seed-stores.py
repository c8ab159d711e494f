#!/usr/bin/env python3
"""Seeds for the core-data-store fuzzer: a Core Data store checkpointed into one file.

    fuzz-seed-stores.py STORE.sqlite OUTPUT_DIRECTORY

A Core Data app leaves its recent rows in the store's -wal, but the fuzzer mutates one file,
so the store (with its -wal and -shm) is copied and checkpointed into a single file, once in
WAL mode and once in rollback-journal mode (the header differs, and so does the reader's path).
The original files are only read.
"""
import os
import shutil
import sqlite3
import sys
import tempfile

store, output = sys.argv[1], sys.argv[2]
os.makedirs(output, exist_ok=True)
with tempfile.TemporaryDirectory() as scratch:
    for mode in ("wal", "delete"):
        copy = os.path.join(scratch, f"store-{mode}.sqlite")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(store + suffix):
                shutil.copyfile(store + suffix, copy + suffix)
        database = sqlite3.connect(copy)
        database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        database.execute(f"PRAGMA journal_mode={mode}")
        database.execute("VACUUM")
        database.close()
        shutil.copyfile(copy, os.path.join(output, f"surfjournal-{mode}.sqlite"))
