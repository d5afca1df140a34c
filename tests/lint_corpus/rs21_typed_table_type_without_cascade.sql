-- expect: unsafe rejected-by-schema
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (ALTER ATTRIBUTE ... TYPE; CASCADE) (RESTRICT: refuse the operation if the type being altered is the type of a typed table); src/backend/commands/tablecmds.c find_typed_table_dependencies
-- verified: PG15: SQLSTATE 2BP01 cannot alter type because it is the type of a typed table (tests/integration/test_rejected_by_schema.py)
-- given: CREATE TYPE person_t AS (name text, born date);
-- given: CREATE TABLE people OF person_t;
ALTER TYPE person_t ADD ATTRIBUTE email text;
