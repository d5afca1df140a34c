-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DATA TYPE; enum -> text is an I/O conversion, not binary coercible: pg_cast has no enum->text entry)
-- verified: PG15+16: shipments and its indexes got new relfilenodes
-- given: CREATE TYPE shipment_state AS ENUM ('pending', 'shipped', 'delivered');
-- given: CREATE TABLE shipments (id bigint PRIMARY KEY, state shipment_state NOT NULL DEFAULT 'pending');
-- given: CREATE INDEX shipments_state_idx ON shipments (state);
-- Drop the enum: the set of states is now configured by the app
ALTER TABLE shipments ALTER COLUMN state DROP DEFAULT;
ALTER TABLE shipments ALTER COLUMN state TYPE text USING state::text;
ALTER TABLE shipments ALTER COLUMN state SET DEFAULT 'pending';
DROP TYPE shipment_state;
