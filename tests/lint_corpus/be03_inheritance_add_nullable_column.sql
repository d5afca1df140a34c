-- expect: safe
-- doc: https://www.postgresql.org/docs/current/ddl-inherit.html (ALTER TABLE propagates column additions to children); sql-altertable.html Notes (ADD COLUMN without default: catalog only)
-- verified: PG15+16: parent and both children got the column, relfilenodes unchanged, no seq scan
-- given: CREATE TABLE vehicles (id bigint PRIMARY KEY, plate text NOT NULL);
-- given: CREATE TABLE cars (seats int) INHERITS (vehicles);
-- given: CREATE TABLE trucks (payload_kg int) INHERITS (vehicles);
BEGIN;
ALTER TABLE vehicles ADD COLUMN registered_at timestamptz;
ALTER TABLE vehicles ADD COLUMN country char(2) DEFAULT 'DE';
COMMENT ON COLUMN vehicles.country IS 'ISO 3166-1 alpha-2';
COMMIT;
