-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DATA TYPE on an identity column: int4 -> int8 rewrites; the identity sequence's type follows)
-- verified: PG15+16: events and events_pkey got new relfilenodes; sequence now bigint
-- given: CREATE TABLE events (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text NOT NULL);
ALTER TABLE events ALTER COLUMN id SET DATA TYPE bigint;
