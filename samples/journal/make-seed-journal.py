#!/usr/bin/env python3
"""Writes SurfJournalSeed.sqlite: a small store in the Core Data SQLite layout of the
SurfJournal app (ZJOURNALENTRY, Z_PRIMARYKEY, Z_METADATA; dates as seconds since 2001-01-01),
with invented sessions, for the demo's import-coredata job. Deterministic: same file every run.

    python3 samples/journal/make-seed-journal.py
"""
import os
import random
import sqlite3
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "SurfJournalSeed.sqlite")
REFERENCE = datetime(2001, 1, 1, tzinfo=timezone.utc).timestamp()
LOCATIONS = ["Steamer Lane", "Pleasure Point", "Mavericks", "Ocean Beach", "Linda Mar", "Waddell Creek"]

def main():
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(PATH + suffix):
            os.remove(PATH + suffix)
    rng = random.Random(20261122)
    db = sqlite3.connect(PATH)
    db.executescript("""
        CREATE TABLE ZJOURNALENTRY (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER,
            ZRATING INTEGER, ZDATE TIMESTAMP, ZHEIGHT VARCHAR, ZLOCATION VARCHAR, ZPERIOD VARCHAR, ZWIND VARCHAR);
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
    """)
    start = datetime(2023, 1, 1, tzinfo=timezone.utc).timestamp()
    count = 240
    for pk in range(1, count + 1):
        when = start + rng.randrange(0, 2 * 365 * 86400) + rng.random()
        db.execute(
            "INSERT INTO ZJOURNALENTRY VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?)",
            (pk, rng.randint(1, 5), when - REFERENCE, "%.1f" % rng.uniform(0.5, 12),
             rng.choice(LOCATIONS), str(rng.randint(6, 18)), "%.1f" % rng.uniform(0, 20)))
    db.execute("INSERT INTO Z_PRIMARYKEY VALUES (1, 'JournalEntry', 0, ?)", (count,))
    db.execute("INSERT INTO Z_METADATA VALUES (1, '6F1A4C8E-6B6A-4E0B-9C1D-2A7F3B5D9E10', NULL)")
    db.commit()
    db.close()

if __name__ == "__main__":
    main()
