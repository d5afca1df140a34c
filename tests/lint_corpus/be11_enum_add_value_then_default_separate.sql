-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (ADD VALUE outside a block commits at once; usable in the next transaction); sql-altertable.html (SET DEFAULT affects only later INSERTs)
-- verified: PG15+16: both statements succeed in autocommit; tickets not rewritten nor scanned
-- given: CREATE TYPE ticket_status AS ENUM ('open', 'closed');
-- given: CREATE TABLE tickets (id bigint PRIMARY KEY, status ticket_status NOT NULL DEFAULT 'open');
ALTER TYPE ticket_status ADD VALUE IF NOT EXISTS 'triage' BEFORE 'open';
ALTER TABLE tickets ALTER COLUMN status SET DEFAULT 'triage';
