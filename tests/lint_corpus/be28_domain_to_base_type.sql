-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: "when the old type is ... an unconstrained domain over the new type, a table rewrite is not needed")
-- verified: PG15+16: notes and notes_body_idx keep their relfilenodes, no seq scan
-- given: CREATE DOMAIN markdown AS text;
-- given: CREATE TABLE notes (id bigint PRIMARY KEY, body markdown);
-- given: CREATE INDEX notes_body_idx ON notes (body);
ALTER TABLE notes ALTER COLUMN body TYPE text;
DROP DOMAIN markdown;
