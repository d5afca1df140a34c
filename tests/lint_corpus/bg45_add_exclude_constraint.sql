-- expect: unsafe unique-without-index
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint EXCLUDE: builds a GiST index under ACCESS EXCLUSIVE; no USING INDEX form exists for EXCLUDE)
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); new relations room_reservations_no_overlap; seq_scan rose on public.room_reservations; locks held (whole file in one test transaction): room_reservations AccessExclusiveLock, room_reservations ShareLock, room_reservations_no_overlap AccessExclusiveLock
-- given: CREATE TABLE room_reservations (id bigint PRIMARY KEY, room int NOT NULL, during tstzrange NOT NULL);
ALTER TABLE room_reservations ADD CONSTRAINT room_reservations_no_overlap EXCLUDE USING gist (during WITH &&);
