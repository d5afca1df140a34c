-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: only a change to the base type from an unconstrained domain skips the rewrite); tablecmds.c ATColumnChangeRequiresRewrite returns true on a CoerceToDomain with constraints
-- verified: PG15 and PG18: contacts and contacts_pkey got new relfilenodes
-- given: CREATE DOMAIN short_label AS text CHECK (length(VALUE) <= 64);
-- given: CREATE TABLE tags (id bigint PRIMARY KEY, label text NOT NULL);
ALTER TABLE tags ALTER COLUMN label TYPE short_label;
