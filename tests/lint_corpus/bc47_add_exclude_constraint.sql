-- expect: unsafe unique-without-index
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint: an EXCLUDE constraint builds its index inside the ALTER TABLE; there is no USING INDEX form for EXCLUDE); https://www.postgresql.org/docs/current/sql-createtable.html (EXCLUDE)
-- verified: PG15: AccessExclusiveLock on room_bookings; a new gist index room_bookings_no_overlap was built (table scanned once)
-- given: CREATE EXTENSION IF NOT EXISTS btree_gist;
-- given: CREATE TABLE room_bookings (id bigint PRIMARY KEY, room_id int NOT NULL, during tstzrange NOT NULL);
ALTER TABLE room_bookings ADD CONSTRAINT room_bookings_no_overlap EXCLUDE USING gist (room_id WITH =, during WITH &&);
