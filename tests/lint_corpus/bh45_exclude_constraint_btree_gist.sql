-- expect: unsafe unique-without-index
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD EXCLUDE builds its index under ACCESS EXCLUSIVE; no USING INDEX form); https://www.postgresql.org/docs/current/btree-gist.html
-- verified: PG15: CREATE EXTENSION ok; inside BEGIN AccessExclusiveLock on bookings; new gist index built
-- given: CREATE TABLE bookings (id bigint PRIMARY KEY, room_id int NOT NULL, during tstzrange NOT NULL);
CREATE EXTENSION IF NOT EXISTS btree_gist;
ALTER TABLE bookings ADD CONSTRAINT bookings_no_overlap EXCLUDE USING gist (room_id WITH =, during WITH &&);
