-- expect: unsafe unique-without-index
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD table_constraint EXCLUDE; there is no USING INDEX form for exclusion constraints); the GiST index is built inside the ALTER TABLE under ACCESS EXCLUSIVE
-- verified: new GiST index built with a scan of room_bookings under AccessExclusiveLock + ShareLock
-- given: CREATE EXTENSION IF NOT EXISTS btree_gist;
-- given: CREATE TABLE room_bookings (id bigint PRIMARY KEY, room_id int NOT NULL, during tstzrange NOT NULL);
ALTER TABLE room_bookings ADD CONSTRAINT room_bookings_no_overlap EXCLUDE USING gist (room_id WITH =, during WITH &&);
