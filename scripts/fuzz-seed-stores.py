#!/usr/bin/env python3
"""Seeds for the core-data-store fuzzer: a store of our own, and small copies of a real one.

    fuzz-seed-stores.py OUTPUT_DIRECTORY [STORE.sqlite]

The store of our own is LineupTestSupport's `inheritanceStore` (entity inheritance, a shared
table, NULLs, a blob), made with the same SQL; inputs the fuzzer finds from it can go into
Tests/ as they are. Inputs found from the real store hold its rows and stay out of the
repository (write a test that builds the damage instead).

A Core Data app leaves its recent rows in the store's -wal, but the fuzzer mutates one file,
so the store (with its -wal and -shm) is copied and checkpointed into a single file. Every
table keeps its schema, Core Data's metadata and its first few rows, in 512-byte pages: a
fuzzer reads a 225 KB file eight times a second and a 3 KB one hundreds of times, and the
mutations reach the parts that matter (headers, the schema, Z_PRIMARYKEY, Z_METADATA) far more
often. One seed is in WAL mode and one in rollback-journal mode (the header differs, and the
reader warns of a missing -wal for the first). The original files are only read.
"""
import os
import shutil
import sqlite3
import sys
import tempfile

ROWS_KEPT = 3

INHERITANCE_STORE = """
    PRAGMA page_size=512;
    CREATE TABLE ZSPOT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR,
        ZWAVEHEIGHT FLOAT, ZREEFDEPTH INTEGER, ZFIRSTSURFED TIMESTAMP, ZPHOTO BLOB );
    CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
    CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
    INSERT INTO Z_PRIMARYKEY VALUES (1,'Spot',0,3),(2,'ReefSpot',1,0);
    INSERT INTO Z_METADATA VALUES (1,'0E5C1E7A-1111-4222-8333-944455556666',NULL);
    INSERT INTO ZSPOT VALUES (1,1,1,'Malibu',1.5,NULL,-31622400.0,NULL),
        (2,2,3,'Teahupoo',2.0,4,0.25,X'CAFE'),(3,1,1,NULL,NULL,NULL,NULL,NULL);
"""

output = sys.argv[1]
store = sys.argv[2] if len(sys.argv) > 2 else None
os.makedirs(output, exist_ok=True)
own = os.path.join(output, "spots-inheritance.sqlite")
if os.path.exists(own):
    os.remove(own)
database = sqlite3.connect(own)
database.executescript(INHERITANCE_STORE)
database.execute("VACUUM")
database.close()

with tempfile.TemporaryDirectory() as scratch:
    for mode in ("wal", "delete") if store else ():
        copy = os.path.join(scratch, f"store-{mode}.sqlite")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(store + suffix):
                shutil.copyfile(store + suffix, copy + suffix)
        database = sqlite3.connect(copy)
        database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        database.execute("PRAGMA journal_mode=delete")
        tables = [name for (name,) in database.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%'")]
        for table in tables:
            if table not in ("Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"):
                database.execute(
                    f'DELETE FROM "{table}" WHERE rowid NOT IN (SELECT rowid FROM "{table}" ORDER BY rowid LIMIT {ROWS_KEPT})')
        database.commit()
        database.execute("PRAGMA page_size=512")
        database.execute("VACUUM")
        database.execute(f"PRAGMA journal_mode={mode}")
        database.close()
        shutil.copyfile(copy, os.path.join(output, f"surfjournal-{mode}.sqlite"))
