-- expect: unsafe enum-value-used-in-same-transaction
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (Notes: a value added inside a transaction block cannot be used until it commits)
-- verified: PG15+16: ERROR: unsafe use of new value "archived" of enum type ticket_status (at the SET DEFAULT); the block rolls back
-- given: CREATE TYPE ticket_status AS ENUM ('open', 'closed');
-- given: CREATE TABLE tickets (id bigint PRIMARY KEY, status ticket_status NOT NULL DEFAULT 'open');
BEGIN;
ALTER TYPE ticket_status ADD VALUE IF NOT EXISTS 'archived';
ALTER TABLE tickets ALTER COLUMN status SET DEFAULT 'archived';
COMMIT;
