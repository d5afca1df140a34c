-- expect: unsafe enum-value-used-in-same-transaction
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (Notes: a value added inside a transaction block cannot be used until it commits); a DO block is one transaction
-- verified: PG15: ERROR: unsafe use of new value "archived" of enum type doc_status
-- given: CREATE TYPE doc_status AS ENUM ('draft', 'published');
-- given: CREATE TABLE docs (id bigint PRIMARY KEY, status doc_status NOT NULL);
DO $$
BEGIN
  ALTER TYPE doc_status ADD VALUE IF NOT EXISTS 'archived';
  UPDATE docs SET status = 'archived' WHERE id = 42;
END
$$;
