-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (RENAME VALUE: changes the label in pg_enum only; stored values are OIDs, no table is touched); no rule covers enum label renames (the rename rule is about tables and columns)
-- verified: PG15: relfilenode of tickets unchanged, seq_scan unchanged; rows now read 'resolved'
-- given: CREATE TYPE ticket_status AS ENUM ('open', 'pending', 'closed');
-- given: CREATE TABLE tickets (id bigint PRIMARY KEY, status ticket_status NOT NULL DEFAULT 'open');
ALTER TYPE ticket_status RENAME VALUE 'closed' TO 'resolved';
